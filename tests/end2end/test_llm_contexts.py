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


def test_batched_questions_share_one_evaluation_of_the_document_and_answer_like_one_at_a_time(smollm):
    questions = ["Which step takes longest?", "How many grams are ground?", "What is cleaned after a shot?"]
    conversations = [document_messages(DOCUMENT, q) for q in questions]
    smollm.forget_cache()
    batched = smollm.chat_batch(conversations, max_tokens=12)
    assert len(batched) == 3 and all(c.completion_tokens > 0 for c in batched)
    prompt = batched[0].prompt_tokens
    # The document is computed once for all three, not three times.
    assert sum(c.evaluated_prompt_tokens for c in batched) < 1.2 * prompt

    again = smollm.chat_batch(conversations, max_tokens=12)
    assert all(c.evaluated_prompt_tokens < 0.1 * prompt for c in again)  # the prefix stayed cached
    assert [c.text for c in again] == [c.text for c in batched]

    smollm.forget_cache()
    one_by_one = [smollm.chat(messages, max_tokens=12).text for messages in conversations]
    # Greedy either way; the batch's different float rounding may only rarely change a token.
    agreeing = [a.split()[:3] == b.split()[:3] for a, b in zip(one_by_one, (c.text for c in batched))]
    assert sum(agreeing) >= 2, (one_by_one, [c.text for c in batched])


def test_batched_answers_can_stop_at_their_first_sentence(smollm):
    conversations = [document_messages(DOCUMENT, f"Describe step {i} in two sentences.") for i in (2, 7)]
    full = smollm.chat_batch(conversations, max_tokens=60)
    short = smollm.chat_batch(conversations, max_tokens=60, first_sentence_only=True)
    for whole, first in zip(full, short):
        assert first.finish_reason == "stop" and first.text.rstrip().endswith((".", "!", "?"))
        assert whole.text.startswith(first.text) and first.completion_tokens < whole.completion_tokens


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
    library.edits.set_context(chunk_ids[0], "Hand-written: the Zanzibar espresso routine.")

    summary = library.upgrade_contexts()
    assert summary.documents == 1 and summary.upgraded_chunks + summary.kept_rules == len(chunk_ids) - 1
    assert summary.upgraded_chunks > 0
    sources = dict(library.catalog._db.execute("SELECT chunk_id, source FROM contexts").fetchall())
    assert sources[chunk_ids[0]] == "manual"
    assert sum(1 for s in sources.values() if s == "llm") == summary.upgraded_chunks
    assert library.vectors.count() == library.catalog.chunk_count()  # upgraded chunks re-embedded, not doubled
    assert library.search("zanzibar", k=1, mode="bm25").hits[0].chunk_id == chunk_ids[0]
    # Chunks the model already tried (and whose answers were rejected) are not asked again.
    assert library.upgrade_contexts().documents == 0


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
    assert llm and all(r["prompt_version"] == "ctx-3/chunk" and r["completion_tokens"] > 0 for r in llm)
    for r in llm:
        assert r["chunk"] not in r["text"]  # situated in its own words, not copied
    # Regenerating one chunk's context asks the model about that chunk only and replaces even a hand edit.
    chunk_ids = [r[0] for r in library.catalog._db.execute("SELECT id FROM chunks ORDER BY idx")]
    library.edits.set_context(chunk_ids[1], "Hand-written tamping note.")
    before = library.stats()["llm_tokens"]["completion"]
    regenerated = library.edits.regenerate_context(chunk_ids[1])
    result, stored = regenerated.result, library.catalog.contexts.context(chunk_ids[1])
    assert bool(regenerated.changes) == (result.source == "llm")
    if result.source == "llm":
        assert stored["source"] == "llm" and stored["text"] == result.text and stored["generated_text"] is None
        assert library.search(result.text, k=1, mode="bm25").hits[0].chunk_id == chunk_ids[1]
    else:  # the sampled answer was rejected: nothing changed
        assert stored["source"] == "manual"
    assert 0 < result.completion_tokens <= 2 * 60  # one chunk's answer (and at most one retry), not three
    assert library.stats()["llm_tokens"]["completion"] >= before


def test_a_copied_file_reuses_the_contexts_of_its_original_without_asking_the_model(make_library, docs):
    (docs / "a").mkdir()
    (docs / "a" / "espresso.md").write_text("# Espresso guide\n\n" + DOCUMENT)
    library = make_library(Settings(llm_model="smollm2-135m-instruct-q4_1", llm_context_levels="chunk"))
    first = library.index([docs], contexts="llm")
    assert first.indexed == 1 and first.reused_contexts == 0 and first.chunks > 1

    (docs / "b").mkdir()
    (docs / "b" / "espresso.md").write_text("# Espresso guide\n\n" + DOCUMENT)  # same content, same title
    (docs / "b" / "other.md").write_text("# Espresso guide, revised\n\n" + DOCUMENT.replace("18 grams", "20 g"))
    second = library.index([docs], contexts="llm")
    assert second.indexed == 2 and second.reused_contexts == first.chunks  # the copy, not the revised file
    rows = library.catalog._db.execute(
        "SELECT d.path, c.idx, x.text, x.source, x.model, x.prompt_tokens FROM contexts x"
        " JOIN chunks c ON c.id = x.chunk_id JOIN documents d ON d.id = c.document_id ORDER BY c.idx").fetchall()
    original = [(r["idx"], r["text"], r["source"]) for r in rows if "/a/" in r["path"]]
    copy = [(r["idx"], r["text"], r["source"]) for r in rows if "/b/espresso" in r["path"]]
    assert copy == original
    assert all(r["model"] for r in rows)  # the model wrote or tried every context (rejected ones say so too)
    assert all(r["prompt_tokens"] == 0 for r in rows if "/b/espresso" in r["path"])  # the copy cost nothing


def test_a_long_document_s_later_sections_are_each_asked_about_once(make_library, docs):
    # ~4,000 tokens: past the 1,500-token budget, so the model sees the head plus one section at a time.
    long_guide = "# Espresso guide\n\n" + "\n\n".join(
        DOCUMENT.replace("## Step", f"## Part {part} step") for part in range(4))
    (docs / "guide.md").write_text(long_guide)
    library = make_library(Settings(llm_model="smollm2-135m-instruct-q4_1", llm_context_levels="document+section"))
    summary = library.index([docs], contexts="llm")
    assert summary.indexed == 1 and summary.chunks > 4
    rows = library.catalog._db.execute(
        "SELECT c.idx, x.prompt_version, x.model, x.prompt_tokens FROM contexts x"
        " JOIN chunks c ON c.id = x.chunk_id ORDER BY c.idx").fetchall()
    assert all(r["model"] and r["prompt_version"] == "ctx-3/document+section" for r in rows)
    asked = [r["idx"] for r in rows if r["prompt_tokens"] > 0]
    # The summary is counted on the first chunk, each later section's question on its first chunk: more than
    # one call, fewer than one per chunk.
    assert asked[0] == 0 and 1 < len(asked) < len(rows)


def test_the_real_model_writes_questions_each_chunk_answers_and_keyword_search_finds_them(make_library, docs):
    text = ("# Espresso guide\n\n## Grinding\n\nGrind 18 grams fine, like table salt, right before brewing.\n\n"
            "## Tamping\n\nTamp level with 15 kilograms of force, then polish with a twist.\n\n"
            "## Steaming milk\n\nPurge the wand, keep the tip just under the surface, stop at 60 degrees.\n")
    (docs / "espresso.md").write_text(text)
    library = make_library(Settings(llm_model="qwen2.5-coder-0.5b-instruct-q4_k_m", llm_context_levels="chunk",
                                    llm_questions=2))
    library.index([docs], contexts="llm")
    rows = library.catalog._db.execute(
        "SELECT c.id, c.text AS chunk, x.text, x.questions, x.prompt_version FROM contexts x"
        " JOIN chunks c ON c.id = x.chunk_id ORDER BY c.idx").fetchall()
    asked = [r for r in rows if r["questions"]]
    assert asked, [dict(r) for r in rows]
    # Every chunk was asked (a weak answer's context falls back to rules, and keeps its questions).
    assert all(r["prompt_version"] == "ctx-3/chunk+2questions" for r in rows if r["questions"])
    for row in asked:
        questions = row["questions"].split("\n")
        assert 1 <= len(questions) <= 2 and all(q.endswith(("?", "？")) for q in questions)
        assert "Q:" not in row["text"] and "?" not in row["text"]  # the context is the sentence, without them
    keyword_texts = dict(library.catalog.iter_keyword_texts())
    row = asked[0]
    assert keyword_texts[row["id"]].endswith(row["questions"])  # indexed after the context and the text
    hits = library.search(row["questions"].split("\n")[0], k=3, mode="bm25").hits
    assert row["id"] in [h.chunk_id for h in hits]
