"""The app follows its folders: the watcher's batches are applied on the task runner's write lane, one at a
time, and batches that arrive meanwhile are merged into the next (a storm becomes a few runs, not thousands)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from desktop_rag.core.runs.control import RunControl
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.core.watching.watch import FolderWatcher, library_watcher


class FolderFollower(QObject):
    arrived = Signal()  # changes were seen (background work should make way)
    applied = Signal(object)  # the IndexSummary of a batch
    failed = Signal(str)
    folders_watched = Signal(int)  # how many folders are watched now
    _seen = Signal(object)  # emitted on the watcher's thread, delivered in the GUI thread

    def __init__(self, library, runner, parent: QObject | None = None):
        super().__init__(parent)
        self.library, self.runner = library, runner
        self._watcher: FolderWatcher | None = None
        self._pending = ChangeBatch()
        self._applying: RunControl | None = None  # the batch being applied
        self._seen.connect(self._queue)

    @property
    def watching(self) -> bool:
        return self._watcher is not None

    def start(self) -> None:
        """Watch the library's folders (those it has when this runs; set_folders follows later changes)."""
        if self._watcher is None:
            self._watcher = library_watcher(self.library, [Path(f) for f in self.library.folders()],
                                            self._seen.emit)
            self._watcher.start()
            self.folders_watched.emit(len(self._watcher.folders))

    def folders_changed(self) -> None:
        if self._watcher is not None:
            self._watcher.set_folders([Path(f) for f in self.library.folders()])
            self.folders_watched.emit(len(self._watcher.folders))

    def stop(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None

    def _queue(self, batch: ChangeBatch) -> None:
        self._pending.merge(batch)
        self.arrived.emit()
        self._apply_next()

    def cancel(self) -> None:
        """Quit: the batch in hand stops at its next checkpoint (what it finished is kept; the next start's
        catch-up scan finds the rest)."""
        if self._applying is not None:
            self._applying.cancel()

    def _apply_next(self) -> None:
        if self._applying or not self._pending:
            return
        batch, self._pending = self._pending, ChangeBatch()
        control = self._applying = RunControl()
        self.runner.write(lambda report: self.library.apply_changes(batch, control=control), on_done=self._done,
                          on_error=self._error)

    def _done(self, summary) -> None:
        self._applying = None
        if summary.busy and self._watcher is not None:
            self._watcher.retry_later(summary.busy)
        self.applied.emit(summary)
        self._apply_next()

    def _error(self, message: str) -> None:
        self._applying = None
        self.failed.emit(message)
        self._apply_next()
