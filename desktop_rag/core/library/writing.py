"""One writer per data folder, and a person's edit that never waits: the write discipline of Library.

One write at a time per library (a lock between threads) and per data folder (writer_lock, between processes).
A person's edit is stored at once even while a run holds the library; the run indexes it before it lets go. The
first write checks the catalog and the indexes first (index_upkeep.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from desktop_rag.config import Settings
from desktop_rag.errors import DataFolderUnusable
from desktop_rag.storage import writer_lock
from desktop_rag.storage.catalog import Catalog

log = logging.getLogger(__name__)


class LibraryWriter:
    """Library's writer (`library.writer`): the locks and the writer claim, wired with the library's data folder,
    catalog and settings, what to check before its first write and how to index the edits a run let wait."""

    def __init__(self, data_dir: Path, catalog: Catalog, settings: Settings,
                 check_before_writing: Callable[[], None], sync_edits: Callable[[], object]):
        self.data_dir, self.catalog, self.settings = data_dir, catalog, settings
        self._check_before_writing, self._sync = check_before_writing, sync_edits
        self.lock = threading.Lock()  # held by the one write in progress (a run, a sync, an edit's index update)
        # The thread holding it: a write it starts inside the one in hand (the file changes a run applies between
        # two of its steps, issue 49) is part of it, not a second writer waiting for the first to end.
        self._holder: int | None = None
        # A person's edit does not wait for a run in progress: it is stored at once and marked here, and the run
        # indexes it before it lets go of the library. The guard makes "mark it" and "let go" one step each, so an
        # edit is never marked just after the run last looked.
        self._handover = threading.Lock()
        self._edits_unindexed = False
        self._claim: Path | None = None
        self.indexes_checked = False  # whether the indexes were built with this library's model and tokenizer

    def claim(self) -> None:
        """Become this data folder's one writer (before the first write; `serve` at once: others are told so)."""
        if self.catalog.read_only:
            raise DataFolderUnusable(f"the data folder {self.data_dir} cannot be written: searching works, but "
                                     "indexing and edits need a data folder you may write")
        if self._claim is None and not self.settings.chroma_server:  # a server serialises writes itself
            self._claim = writer_lock.acquire(self.data_dir)

    def release(self, wait: bool = True) -> None:
        """Let another process write to this data folder again (a short-lived writer, `mcp`, between its runs;
        `wait=False`: closing). What this process holds of the dense index may then grow stale: it should be
        reopened before use."""
        with self.lock if wait else nullcontext():
            if self._claim is not None:
                writer_lock.release(self._claim)
                self._claim = None

    @contextmanager
    def writing(self, wait: bool = True) -> Iterator[bool]:
        """One writer at a time: per library (threads), and per data folder (processes; see writer_lock). Yields
        True once the library is held. With `wait=False` (a person's edit), while another write holds it: yields
        False at once, and that write indexes the edit before it lets go."""
        self.claim()
        if wait and self._holder == threading.get_ident():
            yield True  # nested in this thread's write in hand: it lets go, and checks, for both
            return
        if wait:
            self.lock.acquire()
        else:
            with self._handover:
                held = self.lock.acquire(blocking=False)
                if not held:
                    self._edits_unindexed = True
            if not held:
                yield False
                return
        self._holder = threading.get_ident()
        try:
            if not self.indexes_checked:
                self._check_before_writing()
            yield True
        finally:
            self._holder = None
            self._let_go()

    def _let_go(self) -> None:
        """Release the library, first indexing the edits a person made while it was held."""
        while True:
            with self._handover:
                if not self._edits_unindexed:
                    self.lock.release()
                    return
                self._edits_unindexed = False
            try:
                self._sync()
            except Exception:  # the app quits, a child failed: the edits stay pending for the next sync
                log.warning("the edits made during a run were left for the next sync", exc_info=True)

    def index_edit(self) -> bool:
        """Bring the indexes in line with an edit stored in the catalog: now, and True, when nothing holds the
        library; else False, and the write in progress does it before it lets go (a person's edit never waits
        for a run of minutes)."""
        with self.writing(wait=False) as held:
            if held:
                self._sync()
        return held
