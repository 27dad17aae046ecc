from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.storage.keyword_index import CURRENT, KeywordIndex


def test_rebuild_search_and_atomic_swap(tmp_path):
    index = KeywordIndex(tmp_path / "bm25", lexical_tokens)
    assert index.search("anything", 5) == []
    index.rebuild([(10, "coffee brewing guide"), (11, "bicycle chain wear"), (12, "coffee grinder cleaning")])
    hits = index.search("coffee grinder", 5)
    assert [i for i, _ in hits] == [12, 10]
    assert hits[0][1] > hits[1][1] > 0
    first_generation = (tmp_path / "bm25" / CURRENT).read_text()

    reader = KeywordIndex(tmp_path / "bm25", lexical_tokens)  # another process's view
    assert [i for i, _ in reader.search("chain", 5)] == [11]
    index.rebuild([(20, "chain lubrication schedule")])
    assert (tmp_path / "bm25" / CURRENT).read_text() != first_generation
    assert [i for i, _ in reader.search("chain", 5)] == [20]  # the reader follows the swap
    assert (tmp_path / "bm25" / first_generation).exists()  # kept for a reader that read CURRENT just before
    index.rebuild([(30, "chain guard")])
    assert not (tmp_path / "bm25" / first_generation).exists()  # old generations cleaned up
    assert len([entry for entry in (tmp_path / "bm25").iterdir() if entry.is_dir()]) == 2


def test_unknown_words_and_an_empty_index_give_no_hits(tmp_path):
    index = KeywordIndex(tmp_path / "bm25", lexical_tokens)
    index.rebuild([(1, "alpha beta")])
    assert index.search("zeta omega", 5) == []
    index.rebuild([])
    assert index.search("alpha", 5) == [] and len(index) == 0


def test_a_rebuild_after_a_change_scores_exactly_like_a_fresh_index(tmp_path):
    from desktop_rag.core.text.lexical import lexical_tokens

    texts = {1: "The grey heron hunts fish.", 2: "Swallows migrate south.", 3: "", 4: "Herons and swallows nest."}
    kept = KeywordIndex(tmp_path / "kept", lexical_tokens)
    kept.rebuild(texts.items())
    texts[2] = "Swallows migrate south in autumn, like herons."  # one changed text; 3 has no words at all
    del texts[1]
    kept.rebuild(texts.items())  # reuses the tokens of 3 and 4, tokenizes only 2
    fresh = KeywordIndex(tmp_path / "fresh", lexical_tokens)
    fresh.rebuild(texts.items())
    for query in ("heron", "swallows autumn", "grey fish"):
        assert kept.search(query, 5) == fresh.search(query, 5)
    assert {chunk for chunk, _ in kept.search("herons", 5)} == {2, 4}
    assert kept.search("grey fish", 5) == []  # the removed text's words find nothing


def test_a_part_finds_the_indexed_pairs_that_hold_it(tmp_path):
    index = KeywordIndex(tmp_path / "bm25", lexical_tokens)
    index.rebuild([(1, "池のほとりで灰色の鷺が魚を待つ。"), (2, "鷺"), (3, "白鳥が湖に降りた。")])
    assert index.search("鷺", 5) == [(2, index.search("鷺", 5)[0][1])]  # pairs only: "の鷺", "鷺が" do not match
    assert {chunk for chunk, _ in index.search("鷺", 5, parts=["鷺"])} == {1, 2}
    assert index.search("猫", 5, parts=["猫"]) == []


def test_a_rebuild_given_up_midway_leaves_the_index_as_it_was(tmp_path):
    """A pause or Ctrl-C during a rebuild (~10 s at 110k chunks) is heard within a hundred texts (issue 51, 9)."""
    import pytest

    from desktop_rag.storage.keyword_index import RebuildStopped

    index = KeywordIndex(tmp_path / "bm25", lexical_tokens)
    index.rebuild([(1, "heron estuary"), (2, "kestrel meadow")])
    before = (tmp_path / "bm25" / CURRENT).read_text()
    asked: list[int] = []

    def texts():
        for i in range(100_000):
            asked.append(i)
            yield 100 + i, f"harbour notice {i}"

    with pytest.raises(RebuildStopped):
        index.rebuild(texts(), stopped=lambda: len(asked) > 1_000)
    assert len(asked) <= 1_101  # not the 100,000
    assert (tmp_path / "bm25" / CURRENT).read_text() == before
    assert [i for i, _ in index.search("heron", 5)] == [1]  # the index in use is the one before


def test_searches_arriving_together_load_the_index_once_and_all_get_their_hits(tmp_path, monkeypatch):
    import threading

    import bm25s

    KeywordIndex(tmp_path / "bm25", lexical_tokens).rebuild([(7, "harbour crane schedule"), (8, "ferry timetable")])
    index = KeywordIndex(tmp_path / "bm25", lexical_tokens)  # a process that has not loaded it yet
    loads: list[str] = []
    load = bm25s.BM25.load

    def counted_load(*args, **kwargs):  # the real load, counted (and slowed, so the searches overlap)
        loads.append(args[0])
        threading.Event().wait(0.05)
        return load(*args, **kwargs)

    monkeypatch.setattr(bm25s.BM25, "load", staticmethod(counted_load))
    hits: list[list[int]] = []
    start = threading.Barrier(20)

    def search() -> None:
        start.wait()
        hits.append([i for i, _ in index.search("crane", 3)])

    threads = [threading.Thread(target=search) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert hits == [[7]] * 20 and len(loads) == 1


def test_a_generation_replaced_while_a_reader_loads_it_is_followed_to_the_current_one(tmp_path, monkeypatch):
    """Issue 61: a search during a run was told "the keyword index cannot be read ([Errno 2] …): run doctor
    --repair" — its process had read CURRENT, then the writer's rebuilds removed that generation."""
    import bm25s

    writer = KeywordIndex(tmp_path / "bm25", lexical_tokens)
    writer.rebuild([(1, "harbour crane schedule")])
    reader = KeywordIndex(tmp_path / "bm25", lexical_tokens)  # another process, which has read CURRENT
    load = bm25s.BM25.load
    raced: list[str] = []

    def load_after_two_rebuilds(*args, **kwargs):  # the real load, after the writer moved on twice
        if not raced:
            raced.append(args[0])
            writer.rebuild([(2, "harbour crane repaired")])
            writer.rebuild([(3, "harbour crane inspected")])
        return load(*args, **kwargs)

    monkeypatch.setattr(bm25s.BM25, "load", staticmethod(load_after_two_rebuilds))
    assert [i for i, _ in reader.search("crane", 5)] == [3]
    assert raced and not (tmp_path / "bm25" / raced[0].rsplit("/", 1)[-1]).exists()  # the one it read: gone
