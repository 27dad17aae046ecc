from types import SimpleNamespace

import pytest

from desktop_rag.core.indexing import keyword_upkeep
from desktop_rag.core.indexing.keyword_upkeep import keywords_in_line, merge_due, merge_keywords
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.documents import Chunk, ContextResult, text_hash
from desktop_rag.storage.catalog import Catalog
from desktop_rag.storage.keyword_index import KeywordIndex, RebuildStopped


def save(catalog, path, texts):
    chunks = [Chunk(i, t, 0, len(t), None, ["H"], 3, text_hash(t)) for i, t in enumerate(texts)]
    return catalog.save_document(path=path, size=10, mtime_ns=1, content_hash="h", parser="text", title="T",
                                 text=" ".join(texts), page_count=None, chunks=chunks,
                                 contexts=[ContextResult("", "none") for _ in texts])


@pytest.fixture
def parts(tmp_path):
    parts = SimpleNamespace(catalog=Catalog(tmp_path / "c.sqlite3"), keywords=KeywordIndex(tmp_path / "bm25",
                                                                                            lexical_tokens))
    yield parts
    parts.catalog.close()


def found(parts, query: str) -> set[str]:
    hits = [chunk for chunk, _ in parts.keywords.search(query, 20)]
    return {record.text for record in parts.catalog.chunks_by_id(hits).values()}


def test_a_save_updates_only_the_changes_segment_and_a_merge_makes_one_again(parts):
    for n in range(20):
        save(parts.catalog, f"/notes/{n}.txt", [f"note {n} about the harbour", f"budget line {n}"])
    assert keywords_in_line(parts) == 40 and parts.keywords.segment_count == 1  # nothing to add to: built
    assert not parts.catalog.keyword_index_dirty
    save(parts.catalog, "/notes/lease.txt", ["the harbour office lease ends in March"])
    parts.catalog.remove_documents([parts.catalog.document("/notes/3.txt").id])
    assert keywords_in_line(parts) == 39 and parts.keywords.segment_count == 2
    assert found(parts, "lease") == {"the harbour office lease ends in March"}
    assert "note 3 about the harbour" not in found(parts, "harbour")
    before = parts.keywords.search("harbour", 50)
    assert merge_keywords(parts) == 39 and parts.keywords.segment_count == 1
    assert parts.catalog.keyword_changes.count() == 0 and not parts.catalog.keyword_index_dirty
    assert {c for c, _ in parts.keywords.search("harbour", 50)} == {c for c, _ in before}


def test_a_file_saved_during_a_merge_is_in_the_index_after_it(parts, monkeypatch):
    monkeypatch.setattr(keyword_upkeep, "MERGE_INLINE_CHANGES", 0)  # the save's sync would merge, but for this one
    save(parts.catalog, "/a.txt", ["heron estuary"])
    keywords_in_line(parts)
    save(parts.catalog, "/b.txt", ["kestrel meadow"])
    keywords_in_line(parts)
    saved = []

    def a_save_meanwhile() -> bool:  # as the lane applies a batch between the merge's blocks
        if not saved:
            saved.append(save(parts.catalog, "/c.txt", ["quince orchard"]))
            assert keywords_in_line(parts) == 3  # the changes' segment, not a merge within the merge
        return False

    merge_keywords(parts, a_save_meanwhile)
    assert saved and found(parts, "quince") == {"quince orchard"}
    assert found(parts, "kestrel") == {"kestrel meadow"} and found(parts, "heron") == {"heron estuary"}
    assert parts.keywords.chunk_ids() == parts.catalog.chunk_ids()
    assert parts.catalog.keyword_changes.count() == 1  # the save during the merge: in the changes' segment


def test_a_merge_given_up_leaves_the_index_as_it_was(parts):
    save(parts.catalog, "/a.txt", ["heron estuary"])
    keywords_in_line(parts)
    save(parts.catalog, "/b.txt", ["kestrel meadow"])
    keywords_in_line(parts)
    current = (parts.keywords.folder / "CURRENT").read_text()
    with pytest.raises(RebuildStopped):
        merge_keywords(parts, lambda: True)
    assert (parts.keywords.folder / "CURRENT").read_text() == current
    assert found(parts, "kestrel") == {"kestrel meadow"} and parts.catalog.keyword_changes.count() == 1


def test_many_changes_are_merged_by_the_sync_that_meets_them_and_fewer_wait_for_rest(parts, monkeypatch):
    monkeypatch.setattr(keyword_upkeep, "MERGE_INLINE_CHANGES", 5)
    monkeypatch.setattr(keyword_upkeep, "MERGE_AT_REST_CHANGES", 3)
    save(parts.catalog, "/a.txt", ["heron estuary"])
    keywords_in_line(parts)
    save(parts.catalog, "/b.txt", ["kestrel", "meadow", "orchard"])
    keywords_in_line(parts)
    assert parts.keywords.segment_count == 2 and merge_due(parts)
    save(parts.catalog, "/c.txt", ["quince", "plum", "pear"])
    keywords_in_line(parts)  # 6 changes: what the segments held merged, the 3 new ones the changes' segment
    assert parts.keywords.segment_count == 2 and parts.catalog.keyword_changes.count() == 3
    assert parts.keywords.chunk_ids() == parts.catalog.chunk_ids()
    assert found(parts, "orchard") == {"orchard"} and found(parts, "pear") == {"pear"}


def test_a_rebuild_asked_reads_every_text_again(parts):
    save(parts.catalog, "/a.txt", ["heron estuary"])
    keywords_in_line(parts)
    parts.catalog.mark_keyword_index_dirty()
    save(parts.catalog, "/b.txt", ["kestrel meadow"])
    assert keywords_in_line(parts) == 2 and parts.keywords.segment_count == 1
    assert not parts.catalog.keyword_index_dirty


def test_every_file_saved_at_any_of_a_merge_s_checkpoints_is_found_after_it(parts):
    save(parts.catalog, "/a.txt", ["heron estuary"])
    keywords_in_line(parts)
    save(parts.catalog, "/b.txt", ["kestrel meadow"])
    keywords_in_line(parts)
    words: list[str] = []

    def a_save_at_each_checkpoint() -> bool:
        words.append(f"quince{len(words)}")
        save(parts.catalog, f"/{words[-1]}.txt", [f"{words[-1]} orchard"])
        keywords_in_line(parts)
        return False

    merge_keywords(parts, a_save_at_each_checkpoint)
    assert words and all(found(parts, word) == {f"{word} orchard"} for word in words)
    assert parts.keywords.chunk_ids() == parts.catalog.chunk_ids()
