"""The keyword index brought in line with the catalog (issue 64): made anew from every text only when that is asked
(lost, damaged, another tokenizer, a re-index) or there is nothing to add to; otherwise only its changes' segment is
made anew from what changed since the last merge (a saved file: its passages, in well under a second at any size of
library), and the segments are merged when the changes have grown past MERGE_INLINE_CHANGES, or at rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from desktop_rag.storage.catalog import Catalog
from desktop_rag.storage.keyword_index import KeywordIndex

# Changes past which the sync that meets them merges first: a changes' segment is made anew by every save, and at
# this size that costs ~1 s and ~20 MB written (bench/million.py). Below it a merge waits for rest.
MERGE_INLINE_CHANGES = 20_000
# Changes from which a merge is worth making at rest: fewer cost a save ~0.1 s and < 1 MB (bench/million.py).
MERGE_AT_REST_CHANGES = 1_000


class KeywordParts(Protocol):
    @property
    def catalog(self) -> Catalog: ...

    @property
    def keywords(self) -> KeywordIndex: ...


def keywords_in_line(library: KeywordParts, stopped: Callable[[], bool] = lambda: False) -> int:
    """The passages the keyword index holds once it is in line with the catalog; RebuildStopped when `stopped()`."""
    catalog, keywords = library.catalog, library.keywords
    changes = catalog.keyword_changes
    if whole_build_due(library):
        seq = changes.latest()  # a change after this one is taken by the next update, whether read here or not
        texts = catalog.iter_keyword_texts()
        try:
            count = keywords.rebuild(texts, stopped=stopped)
        finally:
            texts.close()  # (given up: the catalog's cursor let go now, not when collected)
        changes.rebuilt_up_to(seq)
        return count
    if changes.count() > MERGE_INLINE_CHANGES and keywords.segment_count > 1 and not keywords.merging:
        return merge_keywords(library, stopped)
    seq, texts_changed, changed = changes.changed()
    keywords.update(texts_changed, changed, stopped=stopped)
    changes.held_up_to(seq)
    return len(keywords)


def whole_build_due(library: KeywordParts) -> bool:
    """The next update builds the index anew from every text: asked, or nothing to add to."""
    return library.catalog.keyword_changes.rebuild_asked or library.keywords.segment_count == 0


def merge_keywords(library: KeywordParts, stopped: Callable[[], bool] = lambda: False) -> int:
    """The keyword index's segments merged into one, and what changed since they were made its changes' segment;
    RebuildStopped when `stopped()` (nothing changed)."""
    changes = library.catalog.keyword_changes
    held = changes.indexed()  # what the segments hold: the changes after it are the next changes' segment
    taken: list[int] = []

    def changes_since() -> tuple[list[tuple[int, str]], list[int]]:
        seq, texts_changed, changed = changes.changed(after=held)
        taken.append(seq)
        return texts_changed, changed

    count = library.keywords.merge(changes_since, stopped=stopped)
    changes.merged_up_to(held)
    if taken:
        changes.held_up_to(max(taken[0], held))
    return count


def merge_due(library: KeywordParts) -> bool:
    return library.keywords.segment_count > 1 and library.catalog.keyword_changes.count() >= MERGE_AT_REST_CHANGES
