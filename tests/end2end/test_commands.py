"""The CLI contract that scripts and evaluations depend on, through real `desktop-rag` processes."""

import json

from cli_runner import cli, cli_json
from desktop_rag.config import Settings
from documents import write_pdf


def test_index_search_stats_rebuild_contract(tmp_path, docs, data_dir):
    (docs / "heron.md").write_text("# Herons\n\nThe grey heron hunts fish in shallow water.")
    write_pdf(docs / "router.pdf", ["Router manual", "Update the router firmware every month."])
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 broken")
    (docs / "LICENSE").write_text("Permission is hereby granted, free of charge, to any person.\n")  # text: indexed
    (docs / "song.mp3").write_bytes(b"ID3\x04" + bytes(range(256)))  # not read: skipped

    human = cli(data_dir, "index", str(docs), "--contexts", "rules")
    assert "3 files indexed" in human.stdout and "1 failed" in human.stdout and "1 skipped" in human.stdout
    assert "broken.pdf: corrupt or unreadable PDF" in human.stdout

    again = cli_json(data_dir, "index", str(docs), "--contexts", "rules", "--json")
    assert again["unchanged"] == 3 and again["indexed"] == 0 and len(again["failed"]) == 1
    assert again["skipped"] == 1

    found = cli_json(data_dir, "search", "firmware update", "-k", "2", "--json")
    top = found["results"][0]
    assert top["path"].endswith("router.pdf") and top["page"] == 2
    for key in ("path", "page", "chunk_index", "start_char", "end_char", "context", "context_source", "quality",
                "text", "scores"):
        assert key in top
    assert set(top["scores"]) == {"dense", "bm25", "fused", "rerank", "keywords", "meaning", "strength"}
    assert top["scores"]["strength"] >= 0.5  # both words are in the chunk
    assert top["context_source"] == "rules"

    bm25_only = cli_json(data_dir, "search", "heron", "--mode", "bm25", "--json")
    assert [r["path"].rsplit("/", 1)[1] for r in bm25_only["results"]] == ["heron.md"]

    queries = tmp_path / "queries.jsonl"
    queries.write_text(json.dumps({"_id": "q1", "text": "bird fishing"}) + "\n"
                       + json.dumps({"_id": "q2", "text": "router firmware"}) + "\n")
    batch = cli(data_dir, "search", "--queries", str(queries), "-k", "1", "--json").stdout.splitlines()
    answers = [json.loads(line) for line in batch]
    assert [(a["_id"], a["query"]) for a in answers] == [("q1", "bird fishing"), ("q2", "router firmware")]
    assert answers[0]["results"][0]["path"].endswith("heron.md")
    assert answers[1]["results"][0]["path"].endswith("router.pdf")

    stats = cli_json(data_dir, "stats", "--json")
    assert stats["documents"] == {"indexed": 3, "failed": 1, "skipped": 1, "inside_files": 0, "encoded_left_out": 0,
                                  "encoded_chars_left_out": 0}
    assert stats["chunks"] == stats["dense_index_vectors"] == stats["keyword_index_chunks"] > 0
    # broken.pdf is found by its name: its one passage, its name card, has no context
    assert stats["contexts_by_source"] == {"rules": stats["chunks"] - 1, "none": 1}
    assert stats["failures"][0]["path"].endswith("broken.pdf")
    assert "Documents:     3 indexed, 1 failed, 1 skipped" in cli(data_dir, "stats").stdout
    # The searches above are what the LLM upgrade takes first; a folder can be put before them.
    assert stats["upgrade_order"]["among recent search hits"] >= 2
    assert f"LLM contexts are written first for: {docs}" in cli(data_dir, "upgrade-first", str(docs)).stdout
    assert "Upgrade order: 3 documents in a folder marked upgrade first\n" in cli(data_dir, "stats").stdout

    rebuilt = cli(data_dir, "rebuild")
    assert f"{stats['chunks']:,} passages searchable by meaning" in rebuilt.stdout

    readable = cli(data_dir, "search", "heron").stdout
    assert readable.startswith("1. ") and "context (rules):" in readable


def test_rerank_without_model_is_a_note_not_a_failure(docs, data_dir):
    (docs / "a.md").write_text("# A\n\nAardvarks dig burrows at night.")
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    result = cli(data_dir, "search", "aardvark", "--rerank", "--json")
    assert "no reranker model is configured" in result.stderr
    assert json.loads(result.stdout)["reranked"] is False


def test_search_before_indexing_is_a_clear_message(data_dir):
    result = cli(data_dir, "search", "anything", check=False)
    assert result.returncode == 1
    assert "nothing is indexed yet" in result.stderr and "Traceback" not in result.stderr


def test_search_filters_by_flag_and_by_query_words(docs, data_dir):
    from office_documents import write_boiler_folder

    write_boiler_folder(docs)
    cli(data_dir, "index", str(docs), "--contexts", "rules")

    def names(*args):
        found = cli_json(data_dir, "search", *args, "-k", "20", "--json", "--local")
        return sorted({r["path"].rsplit("/", 1)[1] for r in found["results"]}), found

    assert names("boiler service", "--type", "pdf")[0] == ["boiler-invoice.pdf"]
    assert names("boiler service", "--in", str(docs / "tax"))[0] == ["boiler-invoice.pdf"]
    assert names("boiler service", "--type", "mail", "--from", "carl")[0] == ["Inbox.mbox › 2025-06-02 Boiler quote"]
    march, found = names("boiler service", "--after", "2025-03", "--before", "2025-03")
    assert march == ["Inbox.mbox › 2025-03-14 Boiler service on Friday", "boiler-invoice.pdf"]
    assert found["filters"]["after"] and found["results"][0]["dated"] and found["results"][0]["family"]
    assert names("boiler service type:spreadsheet in:house")[0] == ["costs.xlsx"]
    listing = cli(data_dir, "search", "--in", "house", "--sort", "newest", "--local").stdout
    assert listing.startswith("Only: in house") and listing.index("costs.xlsx") < listing.index("boiler.md")
    assert " match " not in listing  # listed by date: no match strength to show
    top = cli_json(data_dir, "search", "invoice paid in March", "-k", "1", "--json", "--local")["results"][0]
    similar = cli_json(data_dir, "search", "--similar", str(top["chunk_id"]), "-k", "3", "--json", "--local")
    assert similar["results"] and top["chunk_id"] not in [r["chunk_id"] for r in similar["results"]]
    none_left = cli(data_dir, "search", "boiler", "--type", "slides", "--local")
    assert "no indexed document is Slides" in none_left.stderr and "No results for 'boiler' (Slides)" in none_left.stdout
    bad = cli(data_dir, "search", "boiler", "--after", "last spring", check=False)
    assert bad.returncode == 1 and "'last spring' is not a date" in bad.stderr


def test_settings_are_persisted_and_validated(data_dir):
    assert f"chunk_tokens = {Settings().chunk_tokens}" in cli(data_dir, "settings").stdout
    cli(data_dir, "settings", "rerank_candidates", "50")
    assert cli(data_dir, "settings", "rerank_candidates").stdout.strip() == "50"
    bad = cli(data_dir, "settings", "no_such_thing", "1", check=False)
    assert bad.returncode == 1 and "unknown setting" in bad.stderr
    cli(data_dir, "settings", "llm_context_levels", "document+section")
    wrong = cli(data_dir, "settings", "llm_context_levels", "sections", check=False)
    assert wrong.returncode == 1 and "document+section+chunk" in wrong.stderr  # refused, with the choices
    assert cli(data_dir, "settings", "llm_context_levels").stdout.strip() == '"document+section"'  # unchanged


def test_eval_on_a_small_prechunked_dataset(tmp_path, data_dir):
    dataset = tmp_path / "tiny"
    dataset.mkdir()
    documents = [
        {"_id": "d1", "title": "birds.md", "text": "Herons hunt fish.\n\nSwallows migrate south in autumn."},
        {"_id": "d2", "title": "net.md", "text": "Routers need firmware updates.\n\nSwitches forward frames."},
    ]
    chunks = [
        {"_id": "d1:0", "doc_id": "d1", "index": 0, "text": "Herons hunt fish."},
        {"_id": "d1:1", "doc_id": "d1", "index": 1, "text": "Swallows migrate south in autumn."},
        {"_id": "d2:0", "doc_id": "d2", "index": 0, "text": "Routers need firmware updates."},
        {"_id": "d2:1", "doc_id": "d2", "index": 1, "text": "Switches forward frames."},
    ]
    queries = [{"_id": "q1", "text": "which bird hunts fish"}, {"_id": "q2", "text": "router firmware"},
               {"_id": "q3", "text": "where do swallows go in autumn"}]
    for name, rows in (("documents.jsonl", documents), ("chunks.jsonl", chunks), ("queries.jsonl", queries)):
        (dataset / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    (dataset / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1:0\t1\nq2\td2:0\t1\nq3\td1:1\t1\n")

    report = cli_json(data_dir, "eval", str(dataset), "--contexts", "rules", "--mode", "hybrid", "-k", "1,3", "--json")
    assert report["dataset"] == "tiny"
    assert report["config"]["contexts"] == "rules" and report["config"]["mode"] == "hybrid"
    assert set(report["recall"]) == {"1", "3"}
    assert report["recall"]["3"] == 1.0 and report["mrr"] > 0.5
    assert report["queries"] == 3 and report["chunks"] == 4 and report["seconds"] > 0
    # Kept for analysis after the run: every relevant chunk's rank (deeper than the cut-offs), every context.
    assert report["relevant_ranks"]["q2"]["d2:0"] == report["first_relevant_rank"]["q2"]
    assert set(report["relevant_ranks"]["q3"]) == {"d1:1"}
    assert set(report["contexts"]) == {"d1:0", "d1:1", "d2:0", "d2:1"}
    assert report["contexts"]["d2:0"]["source"] == "rules" and "net.md" in report["contexts"]["d2:0"]["text"]

    table = cli(data_dir, "eval", str(dataset), "--all", "-k", "1,3").stdout
    for label in ("plain, dense", "plain, hybrid", "rules contexts, dense", "rules contexts, hybrid"):
        assert label in table

    # Several modes on one index, beside an earlier run: recall side by side and the questions that moved.
    earlier = dict(report, first_relevant_rank={"q1": 9, "q2": report["first_relevant_rank"]["q2"], "q3": 1})
    earlier["recall"] = {"1": 0.0, "3": 0.5}
    (tmp_path / "old.json").write_text(json.dumps(earlier))
    both = cli(data_dir, "eval", str(dataset), "--mode", "hybrid,bm25", "-k", "1,3", "--compare",
               str(tmp_path / "old.json")).stdout
    assert "rules contexts, hybrid" in both and "rules contexts, bm25" in both
    rows = [line.split() for line in both.splitlines()]
    assert ["rules,", "hybrid", "R@3", "50.00", "100.00", "+50.00"] in rows
    assert any(row[:2] == ["+", "q1"] and row[2] == "9" for row in rows)  # q1 rose from 9th into the top 3
    wrong = cli(data_dir, "eval", str(dataset), "--mode", "hybrid,fast", check=False)
    assert wrong.returncode != 0 and "not a mode: fast" in wrong.stderr


def test_every_setting_is_described_once_and_checked_on_set_and_on_load(data_dir):
    from dataclasses import fields

    from desktop_rag.config import OPTIONS

    assert {f.name for f in fields(Settings)} == set(OPTIONS)  # a new setting comes with its help and limits
    shown = cli(data_dir, "settings", "embedding_model")
    assert shown.stdout.strip() == '""' and "~100 languages" in shown.stderr and "searchable by meaning again" in shown.stderr
    changed = cli(data_dir, "settings", "chunk_tokens", "256")
    assert "note: applies to files indexed from now on" in changed.stderr
    for key, value, message in (("fusion_bm25_weight", "1.5", "at most 1"), ("candidates", "0", "at least 1"),
                                ("candidates", "many", "candidates must be a whole number, not 'many'")):
        refused = cli(data_dir, "settings", key, value, check=False)
        assert refused.returncode == 1 and message in refused.stderr and "Traceback" not in refused.stderr


def test_a_librarys_warnings_go_to_the_log_not_the_terminal(docs, data_dir):
    """Issue 51, 11: openpyxl's UserWarning ("Data Validation extension is not supported", with its site-packages
    path) was printed by `index` on a first run, from the reader's child process."""
    from office_documents import rewrite_members, write_xlsx

    workbook = write_xlsx(docs / "census.xlsx", {"Census": [["Grey heron", 42]]})
    extension = (b'<extLst><ext uri="{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}" xmlns:x14="http://schemas.microsoft.com'
                 b'/office/spreadsheetml/2009/9/main"><x14:dataValidations count="0"/></ext></extLst></worksheet>')
    rewrite_members(workbook, lambda name, data: data.replace(b"</worksheet>", extension)
                    if name.startswith("xl/worksheets/sheet") else data)
    indexed = cli(data_dir, "index", str(docs), "--contexts", "rules")
    assert "Warning" not in indexed.stderr and "site-packages" not in indexed.stderr, indexed.stderr
    assert cli_json(data_dir, "search", "grey heron", "--json")["results"][0]["path"] == str(workbook)
