"""LLM contexts with real GGUF models: SmolLM2-135M for the mechanics (fast), Qwen2.5-Coder-0.5B for contexts."""

from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.llm.llama_backend import LlamaCppBackend
from desktop_rag.core.llm.models import resolve_model
from desktop_rag.core.llm.prompts import DOCUMENT_SUMMARY, document_messages

DOCUMENT = "\n\n".join(
    f"## Step {i}\n\nThe espresso machine step {i}: grind 18 grams, tamp evenly, and pull a 36 gram shot in "
    f"{25 + i} seconds. Clean the group head after every shot." for i in range(12)
)


@pytest.fixture(scope="module")
def smollm(tmp_path_factory):
    path = resolve_model("smollm2-135m-instruct-q4_1", tmp_path_factory.mktemp("models"))
    return LlamaCppBackend(path, n_ctx=4096, n_threads=2)


def test_document_prefix_is_evaluated_once_across_questions(smollm):
    first = smollm.chat(document_messages(DOCUMENT, DOCUMENT_SUMMARY), max_tokens=8)
    assert first.evaluated_prompt_tokens == first.prompt_tokens > 500  # a cold cache computes everything

    second = smollm.chat(document_messages(DOCUMENT, "Which step takes longest?"), max_tokens=8)
    assert second.prompt_tokens > 500
    # Only the new question is computed; the document before it comes from the KV cache.
    assert second.evaluated_prompt_tokens < 0.1 * second.prompt_tokens

    smollm.forget_cache()
    cold = smollm.chat(document_messages(DOCUMENT, "Which step takes longest?"), max_tokens=8)
    assert cold.evaluated_prompt_tokens == cold.prompt_tokens == second.prompt_tokens


def test_llm_contexts_are_generated_scored_stored_and_found(make_library, docs):
    (docs / "espresso.md").write_text("# Espresso guide\n\n" + DOCUMENT)
    (docs / "tea.md").write_text("# Tea\n\nGreen tea steeps for two minutes at 80 degrees; black tea for four.")
    library = make_library(Settings(llm_model="qwen2.5-coder-0.5b-instruct-q4_k_m"))
    summary = library.index([docs], contexts="llm")
    assert summary.indexed == 2 and summary.failed == [] and summary.notices == []
    rows = library.catalog._db.execute(
        "SELECT x.source, x.model, x.prompt_version, x.quality, x.quality_detail, x.text FROM contexts x"
    ).fetchall()
    llm_rows = [r for r in rows if r["source"] == "llm"]
    assert llm_rows, [dict(r) for r in rows]
    for row in llm_rows:
        assert row["model"].startswith("qwen2.5-coder-0.5b") and row["prompt_version"]
        assert 0.45 <= row["quality"] <= 1.0 and "faithfulness" in row["quality_detail"]
    stats = library.stats()
    assert stats["llm_tokens"]["prompt"] > 0 and stats["llm_tokens"]["completion"] > 0
    hit = library.search("how many grams for an espresso shot", k=1).hits[0]
    assert Path(hit.path).name == "espresso.md"


def test_a_wrong_model_path_falls_back_to_rules_with_a_clear_notice(make_library, docs, tmp_path):
    (docs / "a.md").write_text("# Herons\n\nThe grey heron hunts fish in shallow water.")
    library = make_library(Settings(llm_model=str(tmp_path / "missing.gguf")))
    summary = library.index([docs], contexts="llm")
    assert summary.indexed == 1
    assert any("LLM contexts unavailable" in n and "missing.gguf" in n for n in summary.notices)
    sources = {r[0] for r in library.catalog._db.execute("SELECT source FROM contexts")}
    assert sources == {"rules"}
    assert Path(library.search("heron", k=1).hits[0].path).name == "a.md"


def test_rules_contexts_are_upgraded_later_without_touching_hand_edits(make_library, docs):
    (docs / "espresso.md").write_text("# Espresso guide\n\n" + DOCUMENT)
    library = make_library(Settings(llm_model="qwen2.5-coder-0.5b-instruct-q4_k_m"))
    library.index([docs], contexts="rules")
    chunk_ids = [h.chunk_id for h in library.search("espresso shot grams", k=20, mode="bm25").hits]
    assert len(chunk_ids) > 2
    library.set_context(chunk_ids[0], "Hand-written: the Zanzibar espresso routine.")

    summary = library.upgrade_contexts()
    assert summary.documents == 1 and summary.upgraded_chunks + summary.kept_rules == len(chunk_ids) - 1
    assert summary.upgraded_chunks > 0
    sources = dict(library.catalog._db.execute("SELECT chunk_id, source FROM contexts").fetchall())
    assert sources[chunk_ids[0]] == "manual"
    assert sum(1 for s in sources.values() if s == "llm") == summary.upgraded_chunks
    assert library.vectors.count() == library.catalog.chunk_count()  # upgraded chunks re-embedded, not doubled
    assert library.search("zanzibar", k=1, mode="bm25").hits[0].chunk_id == chunk_ids[0]
    # Only documents that still have rules contexts are visited again.
    assert library.upgrade_contexts().documents == (1 if summary.kept_rules else 0)


def test_chunk_level_contexts_from_the_real_model(make_library, docs):
    text = ("# Espresso guide\n\n## Grinding\n\nGrind 18 grams fine, like table salt, right before brewing.\n\n"
            "## Tamping\n\nTamp level with 15 kilograms of force, then polish with a twist.\n\n"
            "## Steaming milk\n\nPurge the wand, keep the tip just under the surface, stop at 60 degrees.\n")
    (docs / "espresso.md").write_text(text)
    library = make_library(Settings(llm_model="qwen2.5-coder-0.5b-instruct-q4_k_m", llm_context_levels="chunk"))
    summary = library.index([docs], contexts="llm")
    assert summary.indexed == 1 and summary.notices == []
    rows = library.catalog._db.execute(
        "SELECT c.text AS chunk, x.text, x.source, x.prompt_version, x.completion_tokens FROM contexts x"
        " JOIN chunks c ON c.id = x.chunk_id ORDER BY c.idx").fetchall()
    assert len(rows) >= 3
    llm = [r for r in rows if r["source"] == "llm"]
    assert llm and all(r["prompt_version"] == "ctx-1/chunk" and r["completion_tokens"] > 0 for r in llm)
    for r in llm:
        assert r["chunk"] not in r["text"]  # situated in its own words, not copied
