"""The app follows its folders: the watcher's batches are applied on the task runner's write lane, one at a
time, and batches that arrive meanwhile are merged into the next (a storm becomes a few runs, not thousands). A
batch that fails is said, kept and tried again as the write lane of `watch` and `serve` does (core/runs/lane.py:
after RETRY_FIRST_S, doubling up to RETRY_MAX_S), not dropped until the next event."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.runs.lane import RETRY_FIRST_S, RETRY_MAX_S
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
        self._in_hand = ChangeBatch()  # ...and what it holds, kept when it fails
        self._failed = ChangeBatch()  # waiting for its retry
        self._retry_after_s = RETRY_FIRST_S
        self._retry = QTimer(self, singleShot=True)
        self._retry.timeout.connect(self._try_failed_again)
        self._adding: set[str] = set()  # folders whose first run is in hand: watched before the library has them
        self._seen.connect(self._queue)

    @property
    def watching(self) -> bool:
        return self._watcher is not None

    def start(self) -> None:
        """Watch the library's folders (those it has when this runs; folders_changed follows later changes)."""
        if self._watcher is None:
            self._watcher = library_watcher(self.library, self._folders(), self._seen.emit)
            self._watcher.start()
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
        self._retry.stop()  # the next start's catch-up scan finds what failed
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
        self._in_hand = batch
        control = self._applying = RunControl()
        self.runner.write(lambda report: self.library.apply_changes(batch, control=control), on_done=self._done,
                          on_error=self._error)

    def _done(self, summary) -> None:
        self._applying = None
        if not self._failed:
            self._retry_after_s = RETRY_FIRST_S  # what failed before went through
        if summary.busy and self._watcher is not None:
            self._watcher.retry_later(summary.busy)
        self.applied.emit(summary)
        self._apply_next()

    def _error(self, message: str) -> None:
        self._applying = None
        self._failed.merge(self._in_hand)
        if not self._retry.isActive():
            self._retry.start(int(self._retry_after_s * 1000))
        self.failed.emit(f"{message} (the changes are tried again in {self._retry_after_s:.0f} s)")
        self._retry_after_s = min(self._retry_after_s * 2, RETRY_MAX_S)
        self._apply_next()

    def _try_failed_again(self) -> None:
        failed, self._failed = self._failed, ChangeBatch()
        self._pending.merge(failed)
        self._apply_next()
