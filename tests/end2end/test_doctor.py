"""The catalog and both indexes agree, and what disagrees is found and rebuilt from the catalog."""

import json
import shutil
import sqlite3

from cli_runner import cli

from desktop_rag.core.library import doctor


def _indexed(library, docs, words=("quince", "medlar", "rowan")):
    for word in words:
        (docs / f"{word}.md").write_text(f"# {word.title()}\n\nThe {word} tree fruits in autumn.\n")
    library.index([docs], contexts="rules")


def test_a_healthy_library_has_no_findings(library, docs):
    _indexed(library, docs)
    checkup = doctor.examine(library)
    assert checkup.healthy and checkup.findings() == []


def test_missing_orphaned_and_stale_parts_are_found_and_repaired(library, docs):
    _indexed(library, docs)
    chunks = sorted(library.catalog.chunk_ids())
    library.vectors.delete(chunks[:1])  # a vector lost
    library.vectors.add([999_999], library.embedder.embed(["an orphan"]))  # a vector of no chunk
    library.keywords.rebuild([(chunks[0], "only one chunk")])  # a keyword index that disagrees

    checkup = doctor.examine(library)
    assert checkup.vectors_missing == {chunks[0]}
    assert checkup.vectors_orphaned == {999_999}
    assert "disagrees with the catalog" in checkup.keyword_problem
    assert len(checkup.findings()) == 3

    done = doctor.repair(library, checkup)
    assert len(done) == 3
    assert doctor.examine(library).healthy
    assert library.search("medlar", k=1, mode="dense").hits[0].path.endswith("medlar.md")
    assert library.search("rowan", k=1, mode="bm25").hits[0].path.endswith("rowan.md")


def test_a_removed_dense_index_is_rebuilt_by_the_next_run_which_says_so(docs, data_dir):
    # Commands in their own processes: within one, Chroma's client (shared by a process's libraries) would keep
    # the removed store in memory.
    _indexed_by_cli(docs, data_dir)
    shutil.rmtree(data_dir / "chroma")

    result = cli(data_dir, "search", "medlar tree", "-k", "1", "--mode", "dense", "--json")
    assert json.loads(result.stdout)["results"] == [] and "doctor --repair" in result.stderr  # said, not silent
    summary = json.loads(cli(data_dir, "index", str(docs), "--json").stdout)
    assert any("meaning index was empty" in n for n in summary["notices"])
    assert summary["embedded"] == 3
    hits = json.loads(cli(data_dir, "search", "medlar tree", "-k", "1", "--mode", "dense", "--json").stdout)
    assert hits["results"][0]["path"].endswith("medlar.md")


def _indexed_by_cli(docs, data_dir, words=("quince", "medlar", "rowan")):
    for word in words:
        (docs / f"{word}.md").write_text(f"# {word.title()}\n\nThe {word} tree fruits in autumn.\n")
    cli(data_dir, "index", str(docs), "--contexts", "rules")


def test_a_keyword_generation_that_is_gone_is_a_clear_error_then_rebuilt(docs, data_dir):
    _indexed_by_cli(docs, data_dir)
    generation = (data_dir / "bm25" / "CURRENT").read_text()
    shutil.rmtree(data_dir / "bm25" / generation)

    result = cli(data_dir, "search", "quince", "--mode", "bm25", check=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "keyword index cannot be read" in result.stderr and "doctor --repair" in result.stderr
    found = json.loads(cli(data_dir, "doctor", "--json", check=False).stdout)
    assert any("keyword index is damaged" in f for f in found["found"]) and found["left"]
    repaired = cli(data_dir, "doctor", "--repair", "--json")
    assert json.loads(repaired.stdout)["left"] == []
    assert "quince.md" in cli(data_dir, "search", "quince", "--mode", "bm25").stdout


def test_reindex_killed_after_emptying_the_store_leaves_work_not_a_lie(make_library, docs):
    """A fault injected where a kill would land: right after Chroma was emptied, before anything else."""
    library = make_library()
    _indexed(library, docs)
    real_reset = library.vectors.reset

    def reset_then_killed():
        real_reset()
        raise KeyboardInterrupt("killed")

    library.vectors.reset = reset_then_killed
    try:
        library.indexes.reindex()
    except KeyboardInterrupt:
        pass
    library.vectors.reset = real_reset
    assert library.catalog.count_pending_embeddings() == 3  # the catalog says what is left to embed
    library.indexes.sync()
    assert doctor.examine(library).healthy
    assert library.vectors.count() == 3


def test_passages_waiting_to_be_embedded_are_a_finding_the_repair_embeds(docs, data_dir):
    """Issue 50: the store deleted and its re-embedding cut short — an empty store agrees with a catalog whose
    passages all wait, and meaning search finds nothing: the doctor counts what each holds, says what waits, and
    its repair does it."""
    _indexed_by_cli(docs, data_dir)
    shutil.rmtree(data_dir / "chroma")
    with sqlite3.connect(data_dir / "catalog.sqlite3") as catalog:  # as a killed re-embedding leaves it
        catalog.execute("UPDATE chunks SET embedded = 0")

    found = json.loads(cli(data_dir, "doctor", "--json").stdout)
    assert found["found"] == []
    assert any("3 of 3 passages wait to be made searchable by meaning" in w for w in found["waiting"])
    assert "the meaning index 0" in found["holds"] and "the keyword index 3" in found["holds"]
    said = cli(data_dir, "doctor").stdout
    assert "The catalog holds 3 passages" in said
    assert "waiting: 3 of 3 passages wait to be made searchable by meaning" in said
    assert "agree on what they hold so far" in said
    repaired = json.loads(cli(data_dir, "doctor", "--repair", "--json").stdout)
    assert "3 passages waiting were embedded" in repaired["repaired"] and repaired["left"] == []
    hits = json.loads(cli(data_dir, "search", "medlar tree", "-k", "1", "--mode", "dense", "--json").stdout)
    assert hits["results"][0]["path"].endswith("medlar.md")


def test_a_missing_keyword_index_is_said_by_every_search_and_found_by_the_doctor(docs, data_dir):
    _indexed_by_cli(docs, data_dir)
    shutil.rmtree(data_dir / "bm25")

    searched = cli(data_dir, "search", "quince", "--json")
    assert "keyword index is missing" in searched.stderr  # never a silent "No results"
    assert any("keyword index is missing" in n for n in json.loads(searched.stdout)["notices"])
    found = json.loads(cli(data_dir, "doctor", "--json", check=False).stdout)
    assert "the keyword index is missing" in found["found"] and "no keyword index" in found["holds"]
    assert json.loads(cli(data_dir, "doctor", "--repair", "--json").stdout)["left"] == []
    assert "quince.md" in cli(data_dir, "search", "quince", "--mode", "bm25").stdout
