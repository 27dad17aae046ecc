"""A document's passages kept together and few in a result list (core/search/grouping.py)."""

from desktop_rag.core.search.grouping import group_by_document
from desktop_rag.core.search.searcher import Hit


def hit(chunk_id: int, path: str) -> Hit:
    return Hit(chunk_id=chunk_id, path=path, title=None, page=None, chunk_index=chunk_id, start_char=0, end_char=1,
               heading_path=[], context="", context_source="rules", quality=None, text="x")


def test_a_documents_first_two_passages_are_rows_where_its_best_ranks_and_the_rest_fold_under_the_second():
    ranked = [hit(1, "/a/book.pdf"), hit(2, "/a/book.pdf"), hit(3, "/a/note.md"), hit(4, "/a/book.pdf"),
              hit(5, "/a/mail.mbox › Lunch"), hit(6, "/a/book.pdf"), hit(7, "/a/note.md")]
    rows = group_by_document(ranked)
    assert [(row.hit.chunk_id, [h.chunk_id for h in row.folded]) for row in rows] == [
        (1, []), (2, [4, 6]), (3, []), (7, []), (5, [])]


def test_a_document_with_one_passage_folds_nothing_and_one_shown_folds_the_rest_under_the_first():
    assert [row.folded for row in group_by_document([hit(1, "/x"), hit(2, "/y")])] == [[], []]
    rows = group_by_document([hit(1, "/x"), hit(2, "/x"), hit(3, "/x")], shown=1)
    assert [row.hit.chunk_id for row in rows] == [1] and [h.chunk_id for h in rows[0].folded] == [2, 3]
    assert group_by_document([]) == []


def test_after_a_good_match_only_a_few_weak_ones_are_listed_and_a_weak_result_keeps_them_all():
    """Issue 60, 8: "radiator", in one file, listed that file and 29 unrelated weak hits under it."""
    from desktop_rag.core.search.grouping import without_weak_tail
    from desktop_rag.core.search.searcher import Scores

    def scored(chunk_id: int, strength: float) -> Hit:
        found = hit(chunk_id, f"/a/{chunk_id}.md")
        found.scores = Scores(strength=strength)
        return found

    ranked = [scored(1, 0.9), *(scored(n, 0.2) for n in range(2, 31))]
    kept, left_out = without_weak_tail(ranked)
    assert [h.chunk_id for h in kept] == [1, 2, 3, 4] and left_out == 26
    weak_only = [scored(n, 0.3) for n in range(1, 8)]
    assert without_weak_tail(weak_only) == (weak_only, 0)  # "No good match": the closest, all shown as weak
