"""What a person searched and opened, written to the catalog off the caller's thread.

The LLM upgrade puts documents a person uses first (storage/catalog_upgrade_order.py), so every search notes its
hits and every opening its document. A search must not wait for that: an indexing run may hold SQLite's write
lock for a moment, and the note would wait with it. So notes go to one worker thread with its own connection; a
note that cannot be written (the catalog busy for long, a read-only folder) is dropped: it is a hint, not data.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_rag.storage.catalog import Catalog

log = logging.getLogger(__name__)


class UseNotes:
    def __init__(self, catalog_path: Path):
        self._path = catalog_path
        self._queue: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()  # searches note from several threads: one writer thread, not two

    def hits(self, chunk_ids: list[int]) -> None:
        if chunk_ids:
            self._submit(lambda catalog: catalog.upgrade_order.note_hits(chunk_ids))

    def opened(self, chunk_id: int) -> None:
        self._submit(lambda catalog: catalog.upgrade_order.note_opened(chunk_id))

    def _submit(self, note: Callable[[Catalog], None]) -> None:
        with self._starting:
            if self._thread is None:
                # A daemon: a note waiting for a busy catalog never holds up Quit (SQLite drops its open
                # transaction).
                self._thread = threading.Thread(target=self._write_notes, name="use-notes", daemon=True)
                self._thread.start()
            self._queue.put(note)

    def _write_notes(self) -> None:
        from desktop_rag.storage.catalog import Catalog

        catalog = None
        while (note := self._queue.get()) is not None:
            try:
                catalog = catalog or Catalog(self._path)
                note(catalog)
            except Exception:
                log.info("a note of what was searched or opened was dropped", exc_info=True)
        if catalog is not None:
            catalog.close()

    def close(self, wait: bool = True) -> None:
        """`wait`: the notes in the queue are written first (milliseconds each); else they may be dropped (Quit)."""
        with self._starting:
            thread, self._thread = self._thread, None
            if thread is not None:
                self._queue.put(None)
        if thread is not None and wait:
            thread.join()
