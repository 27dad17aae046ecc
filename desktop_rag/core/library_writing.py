"""One writer per data folder, and a person's edit that never waits: the write discipline of Library.

One write at a time per library (a lock between threads) and per data folder (writer_lock, between processes).
A person's edit is stored at once even while a run holds the library; the run indexes it before it lets go. The
first write checks the catalog and the indexes first (index_upkeep.py).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

from desktop_rag.errors import DataFolderUnusable
from desktop_rag.storage import writer_lock

log = logging.getLogger(__name__)


def name_this_process(role: str) -> None:
    """What this process is ("index", "watch"…), for the message another one shows when it finds the data folder
    held (the app is "app" unless told otherwise)."""
    writer_lock.process_role = role


class WritingDiscipline:
    """A part of Library (core/library.py), which holds the locks and the parts."""

    def claim_writer(self) -> None:
        """Become this data folder's one writer now, not at the first write (`serve`: others are told so)."""
        self._claim_writer()

    def release_writer(self) -> None:
        """Let another process write to this data folder again (a short-lived writer, `mcp`, between its runs).
        What this process holds of the dense index may then grow stale: it should be reopened before use."""
        with self._lock:
            if self._writer_claim is not None:
                writer_lock.release(self._writer_claim)
                self._writer_claim = None

    def _claim_writer(self) -> None:
        if self.catalog.read_only:
            raise DataFolderUnusable(f"the data folder {self.data_dir} cannot be written: searching works, but "
                                     "indexing and edits need a data folder you may write")
        if self._writer_claim is None and not self.settings.chroma_server:  # a server serialises writes itself
            self._writer_claim = writer_lock.acquire(self.data_dir)

    @contextmanager
    def _writing(self, wait: bool = True):
        """One writer at a time: per library (threads), and per data folder (processes; see writer_lock). Yields
        True once the library is held. With `wait=False` (a person's edit), while another write holds it: yields
        False at once, and that write indexes the edit before it lets go."""
        self._claim_writer()
        if wait:
            self._lock.acquire()
        else:
            with self._handover:
                held = self._lock.acquire(blocking=False)
                if not held:
                    self._edits_unindexed = True
            if not held:
                yield False
                return
        try:
            if not self._indexes_checked:
                self._check_before_writing()
            yield True
        finally:
            self._let_go()

    def _let_go(self) -> None:
        """Release the library, first indexing the edits a person made while it was held."""
        while True:
            with self._handover:
                if not self._edits_unindexed:
                    self._lock.release()
                    return
                self._edits_unindexed = False
            try:
                self._sync()
            except Exception:  # the app quits, a child failed: the edits stay pending for the next sync
                log.warning("the edits made during a run were left for the next sync", exc_info=True)

    def _index_edit(self) -> bool:
        """Bring the indexes in line with an edit stored in the catalog: now, and True, when nothing holds the
        library; else False, and the write in progress does it before it lets go (a person's edit never waits
        for a run of minutes)."""
        with self._writing(wait=False) as held:
            if held:
                self._sync()
        return held
