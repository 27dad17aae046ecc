"""What a person searched and opened, written to the catalog off the caller's thread.

The LLM upgrade puts documents a person uses first (storage/catalog_upgrade_order.py), so every search notes its
hits and every opening its document. A search must not wait for that: an indexing run may hold SQLite's write
lock for a moment, and the note would wait with it. So notes go to one worker thread with its own connection; a
note that cannot be written (the catalog busy for long, a read-only folder) is dropped: it is a hint, not data.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)


class UseNotes:
    def __init__(self, catalog_path: Path):
        self._path = catalog_path
        self._worker: ThreadPoolExecutor | None = None
        self._catalog = None  # opened on the worker, on its first note

    def hits(self, chunk_ids: list[int]) -> None:
        if chunk_ids:
            self._submit(lambda catalog: catalog.note_hits(chunk_ids))

    def opened(self, chunk_id: int) -> None:
        self._submit(lambda catalog: catalog.note_opened(chunk_id))

    def _submit(self, note: Callable) -> None:
        if self._worker is None:
            self._worker = ThreadPoolExecutor(1, thread_name_prefix="use-notes")
        self._worker.submit(self._write, note)

    def _write(self, note: Callable) -> None:
        from desktop_rag.storage.catalog import Catalog

        try:
            if self._catalog is None:
                self._catalog = Catalog(self._path)
            note(self._catalog)
        except Exception:
            log.info("a note of what was searched or opened was dropped", exc_info=True)

    def close(self) -> None:
        """Notes in the queue are written first (milliseconds each)."""
        if self._worker is not None:
            self._worker.shutdown(wait=True)
            self._worker = None
        if self._catalog is not None:
            self._catalog.close()
            self._catalog = None
