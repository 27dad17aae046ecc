"""Hits of one document kept together and few: a long document matching a query everywhere filled the list with
its passages and pushed every other file out of sight (issue 37). As in Recoll's and the web engines' result
lists, a document shows its best passages where its best one ranks, and the rest are folded under them, one
click away. Pure: a list of hits in, rows out."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_rag.core.search.tuning import GOOD_MATCH, WEAK_AFTER_GOOD
from desktop_rag.core.search.searcher import Hit
from desktop_rag.documents import how_many

PASSAGES_SHOWN_PER_DOCUMENT = 2


@dataclass
class HitRow:
    hit: Hit
    folded: list[Hit] = field(default_factory=list)  # the document's further hits, shown when asked for


def group_by_document(hits: list[Hit], shown: int = PASSAGES_SHOWN_PER_DOCUMENT) -> list[HitRow]:
    """One group per document (its path: an attachment or a mailbox's message is a document of its own), in the
    order of each document's first hit; its first `shown` hits as rows, the others folded under the last row."""
    groups: dict[str, list[Hit]] = {}
    for hit in hits:
        groups.setdefault(hit.path, []).append(hit)
    rows: list[HitRow] = []
    for group in groups.values():
        rows.extend(HitRow(hit) for hit in group[:shown])
        rows[-1].folded = group[shown:]
    return rows


def without_weak_tail(hits: list[Hit], weak_kept: int = WEAK_AFTER_GOOD) -> tuple[list[Hit], int]:
    """The hits a person is shown, and how many weak ones were left out: when any hit is a good match, every good
    one and the first `weak_kept` weak ones; otherwise all (a result of weak matches says so as a whole)."""
    if not any(hit.scores.strength >= GOOD_MATCH for hit in hits):
        return hits, 0
    kept: list[Hit] = []
    weak = 0
    for hit in hits:
        if hit.scores.strength < GOOD_MATCH:
            if weak >= weak_kept:
                continue
            weak += 1
        kept.append(hit)
    return kept, len(hits) - len(kept)


def no_good_match_words(passages: int) -> str:
    """What the window and the quick popup say of a result of weak matches alone."""
    return f"No good match: only {how_many(passages, 'weak match', 'weak matches')}."


def not_listed_words(left_out: int) -> str:
    """What they say of the weak matches without_weak_tail left out."""
    return f"{how_many(left_out, 'weaker match', 'weaker matches')} not listed"
