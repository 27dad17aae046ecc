"""The app follows its folders: the watcher's batches go to the window's WriteLane (core/runs/lane.py), as they do
in `watch` and the service — applied before the runs waiting, batches arriving meanwhile merged into the next (a
storm becomes a few runs, not thousands), a batch that fails kept and tried again after RETRY_FIRST_S, doubling up
to RETRY_MAX_S. What the lane did comes back here as signals, in the window's thread."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from desktop_rag.core.watching.watch import FolderWatcher, watching_for


class FolderFollower(QObject):
    applied = Signal(object)  # the IndexSummary of a batch
    failed = Signal(str)  # what failed in the lane, and when it is tried again
    folders_watched = Signal(int)  # how many folders are watched now
    # Emitted on the lane's thread, delivered in the window's (queued connections).
    _applied = Signal(object)
    _failed = Signal(str)

    def __init__(self, library, lane, parent: QObject | None = None):
        super().__init__(parent)
        self.library, self.lane = library, lane
        self._watcher: FolderWatcher | None = None
        self._adding: set[str] = set()  # folders whose first run is in hand: watched before the library has them
        lane.on_batch = lambda batch, summary: self._applied.emit(summary)
        lane.on_error = self._failed.emit
        self._applied.connect(self.applied)
        self._failed.connect(self.failed)

    @property
    def watching(self) -> bool:
        return self._watcher is not None

    def start(self) -> None:
        """Watch the library's folders (those it has when this runs; folders_changed follows later changes)."""
        if self._watcher is None:
            # Its batches go straight to the lane (from its thread), which makes the upgrade make way.
            self._watcher = watching_for(self.lane, self._folders())
            self.folders_watched.emit(len(self._watcher.folders))

    def folders_changed(self, adding: Sequence[str] = (), added: Sequence[str] = ()) -> None:
        """The library's folders changed. `adding`: folders whose run starts now, watched from its start, so a
        file saved while it runs is applied after it (issue 37: it was lost until the next start); `added`:
        those whose run ended (the library has them now, or the run stopped before it took them)."""
        self._adding.update(adding)
        self._adding.difference_update(added)
        if self._watcher is not None:
            self._watcher.set_folders(self._folders())
            self.folders_watched.emit(len(self._watcher.folders))

    def _folders(self) -> list[Path]:
        return [Path(f) for f in {*self.library.reads.folders(), *self._adding}]

    def stop(self) -> None:
        """No more batches (the window closes; the lane, stopped with it, cuts the batch in hand short: the next
        start's catch-up scan finds what was not applied)."""
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
