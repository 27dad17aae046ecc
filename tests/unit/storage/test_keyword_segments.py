import random

import numpy as np
import pytest

from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.storage.keyword_index import KeywordIndex

_WORDS = ("harbour lease office rent invoice quarter revenue heron estuary kestrel meadow chain bicycle coffee "
          "grinder tomato sauce garden river bridge station train ticket museum library archive letter parcel "
          "contract renewal deadline budget meeting minutes agenda report summary draft review").split()


def _texts(count: int, seed: int) -> dict[int, str]:
    rng = random.Random(seed)
    return {1000 + i: " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 40))) for i in range(count)}


_QUERIES = ("harbour lease", "coffee grinder", "contract renewal deadline", "heron", "museum ticket train",
            "budget budget report", "quince harbour", "quince heron estuary")


def test_one_segment_scores_as_bm25s_itself_does(tmp_path):
    """Our scoring across segments, given one, is bm25s's own: a bm25s change of formula fails here."""
    texts = _texts(200, seed=1)
    index = KeywordIndex(tmp_path / "bm25", lexical_tokens)
    index.rebuild(texts.items())
    [segment] = index._ensure_loaded()
    for query in _QUERIES:
        ours = dict(index.search(query, 300))
        retriever = segment.retriever
        theirs = retriever.get_scores_from_ids(retriever.get_tokens_ids(lexical_tokens(query)))
        expected = {int(segment.ids[i]): float(s) for i, s in enumerate(theirs) if s > 0}
        assert ours.keys() == expected.keys()
        for chunk, score in expected.items():
            assert ours[chunk] == pytest.approx(score, rel=1e-5)


def test_a_merge_scores_exactly_as_a_whole_build_of_the_same_texts(tmp_path):
    texts = _texts(300, seed=2)
    index = KeywordIndex(tmp_path / "segments", lexical_tokens)
    index.rebuild(texts.items())
    changed = {1003: "harbour harbour lease renewal", 1010: "", 5000: "kestrel over the estuary at dawn",
               5001: "coffee"}
    del texts[1007]  # removed
    texts.update(changed)
    index.update([(i, changed[i]) for i in changed], [1003, 1007, 1010, 5000, 5001])
    assert index.segment_count == 2
    assert index.merge(lambda: ([], [])) == len(texts)
    assert index.segment_count == 1
    whole = KeywordIndex(tmp_path / "whole", lexical_tokens)
    whole.rebuild(sorted(texts.items()))
    assert index.chunk_ids() == whole.chunk_ids() == set(texts)
    for query in _QUERIES + ("kestrel dawn",):
        merged, rebuilt = dict(index.search(query, 400)), dict(whole.search(query, 400))
        assert merged.keys() == rebuilt.keys()
        for chunk in rebuilt:
            assert merged[chunk] == pytest.approx(rebuilt[chunk], rel=1e-5)


def _two_segments_and_whole(tmp_path, changes: int) -> tuple[KeywordIndex, KeywordIndex]:
    texts = _texts(2000, seed=3)
    texts[1001] += " quince"
    texts[1002] += " quince"
    index = KeywordIndex(tmp_path / "segments", lexical_tokens)
    index.rebuild(texts.items())
    rng = random.Random(4)
    changed = {i: " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 40)))
               for i in rng.sample(sorted(texts), changes)}
    # Added passages unlike the rest: three times as long, and a word the large segment holds twice. Scored with
    # their own segment's statistics they would rank apart from the others.
    added = {i + 10_000: f"{text} {text} {text} quince" for i, text in _texts(60, seed=5).items()}
    texts.update(changed)
    texts.update(added)
    index.update(list(changed.items()) + list(added.items()), sorted(changed) + sorted(added))
    whole = KeywordIndex(tmp_path / "whole", lexical_tokens)
    whole.rebuild(sorted(texts.items()))
    return index, whole


def test_passages_added_in_a_second_segment_score_exactly_as_in_one_index(tmp_path):
    index, whole = _two_segments_and_whole(tmp_path, changes=0)
    for query in _QUERIES:
        two, one = dict(index.search(query, 3000)), dict(whole.search(query, 3000))
        assert two.keys() == one.keys()
        for chunk, score in one.items():
            assert two[chunk] == pytest.approx(score, rel=1e-5), query


def test_with_changed_passages_masked_two_segments_rank_as_one_index_would(tmp_path):
    """Masked rows still count in the statistics until a merge (as Lucene's deleted documents do): against a whole
    rebuild, the top ten are the same passages, scores within 2 % (40 of 2,000 passages changed, in a corpus of
    40 words where every word is common, so that its idf moves most)."""
    index, whole = _two_segments_and_whole(tmp_path, changes=40)
    for query in _QUERIES:
        two, one = index.search(query, 10), dict(whole.search(query, 3000))
        tenth = sorted(one.values(), reverse=True)[9]
        # The same ten, but for passages within a hair of the tenth (synthetic texts tie often).
        assert {c for c, s in one.items() if s > tenth * 1.02} <= {c for c, _ in two}, query
        assert all(one[c] >= tenth * 0.98 for c, _ in two), query
        for chunk, score in two:
            assert score == pytest.approx(one[chunk], rel=0.02)


def test_merged_term_frequencies_are_given_back_whole(tmp_path):
    """A stored score gives back its term frequency exactly, even a word 200 times in one passage."""
    index = KeywordIndex(tmp_path / "bm25", lexical_tokens)
    index.rebuild([(1, "heron " * 200 + "estuary"), (2, "heron estuary kestrel"), (3, "kestrel")])
    index.update([(4, "heron " * 7)], [4])
    index.merge(lambda: ([], []))
    whole = KeywordIndex(tmp_path / "whole", lexical_tokens)
    whole.rebuild([(1, "heron " * 200 + "estuary"), (2, "heron estuary kestrel"), (3, "kestrel"), (4, "heron " * 7)])
    assert np.allclose([s for _, s in index.search("heron", 5)], [s for _, s in whole.search("heron", 5)], rtol=1e-6)


def test_a_prefix_finds_every_word_it_begins_in_every_segment(tmp_path):
    """Prefixes are found by bisection in each segment's sorted words: the same words a scan of them finds."""
    texts = _texts(200, seed=6)
    index = KeywordIndex(tmp_path / "bm25", lexical_tokens)
    index.rebuild(texts.items())
    index.update([(5000, "quincunx quince quinoa harbourmaster"), (5001, "quinine qu")], changed=set())
    segments = index._ensure_loaded()
    assert len(segments) == 2
    for prefix in ("quin", "qu", "harbour", "h", "zz", "quince"):
        scanned = {word for segment in segments for word in segment.retriever.vocab_dict
                   if word and word.startswith(prefix)}
        found = {word for segment in segments for word in segment.words_beginning(prefix)}
        assert found == scanned, prefix
        assert prefix in ("zz", "quince") or found, prefix  # (the comparison is not of two empty sets)
    hits = dict(index.search("", 10, prefixes=["quin"]))
    assert set(hits) == {5000, 5001}
