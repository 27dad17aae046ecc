"""What a person searched and opened, noted for the LLM upgrade's order and written by the library's one writer.

The LLM upgrade puts documents a person uses first (storage/catalog_upgrade_order.py), so every search notes its
hits and every opening its document. A search must not wait for a write (an indexing run may hold SQLite's write
lock): the notes wait here, in memory, and the writer's own connection writes them — the write lane between its
steps (core/runs/lane.py), the upgrade before it picks its next document, the library as it closes. No second
connection writes the catalog (issue 62). A note that cannot be written (a read-only folder, an error) is dropped,
and at most NOTES_KEPT wait: they are hints, not data.
"""

from __future__ import annotations

import collections
import logging
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_rag.storage.catalog import Catalog

log = logging.getLogger(__name__)

NOTES_KEPT = 1_000  # notes waiting at most (the oldest dropped first): a step of minutes sees a few dozen searches


class UseNotes:
    def __init__(self) -> None:
        # (chunk ids hit, or None; the chunk opened, or None; when). A deque's append and popleft are atomic: the
        # searches' threads note while the lane's thread writes.
        self._waiting: collections.deque[tuple[list[int] | None, int | None, float]] = collections.deque(
            maxlen=NOTES_KEPT)

    def hits(self, chunk_ids: list[int]) -> None:
        if chunk_ids:
            self._waiting.append((list(chunk_ids), None, time.time()))

    def opened(self, chunk_id: int) -> None:
        self._waiting.append((None, chunk_id, time.time()))

    def write_waiting(self, catalog: Catalog) -> int:
        """Write the notes waiting with `catalog` (the writer's connection, on the writer's thread): how many."""
        written = 0
        while self._waiting:
            hits, opened, at = self._waiting.popleft()
            try:
                if hits is not None:
                    catalog.upgrade_order.note_hits(hits, at=at)
                if opened is not None:
                    catalog.upgrade_order.note_opened(opened, at=at)
                written += 1
            except Exception:
                log.info("a note of what was searched or opened was dropped", exc_info=True)
        return written
