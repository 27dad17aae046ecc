"""One task runner for all heavy work (the Anki way): indexing, upgrades, edits and searches run on worker
threads; their results and progress come back to the GUI thread as queued signals.

Four lanes, each one task at a time in submission order: runs (index, LLM upgrade, folder removal) share the
library's one writer; edits of single contexts are short and have their own lane, so a person's edit never
waits behind a long run; reads (searches, stats, review rows) have theirs, so a search never does either; and
loading a model at start has its own, so searches typed meanwhile are not queued behind seconds of loading.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from desktop_rag.ui.errors import readable

log = logging.getLogger(__name__)


class _Relay(QObject):
    """Lives in the GUI thread; a worker emits on it and the connected slots run in the GUI thread."""

    progress = Signal(object)
    done = Signal(object)
    failed = Signal(str)


class _Job(QRunnable):
    def __init__(self, work: Callable[[Callable[[Any], None]], Any], relay: _Relay):
        super().__init__()
        self.setAutoDelete(True)
        self._work = work
        self._relay = relay

    def run(self) -> None:
        try:
            result = self._work(self._relay.progress.emit)
        except Exception as exc:  # reaches the user as a sentence, and the log keeps the traceback
            log.exception("task failed")
            self._relay.failed.emit(readable(exc))
        else:
            self._relay.done.emit(result)


class TaskRunner(QObject):
    error = Signal(str)  # a task without its own error handler failed: the window shows this

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._lanes = {lane: QThreadPool(self) for lane in ("write", "edit", "read", "load")}
        for pool in self._lanes.values():
            pool.setMaxThreadCount(1)
        self._relays: set[_Relay] = set()  # kept alive until their job reports back
        self._writes_pending = 0

    def write(self, work, on_done=None, on_error=None, on_progress=None) -> None:
        """`work(report)` runs on the write lane; `report(x)` delivers x to on_progress in the GUI thread."""
        self._writes_pending += 1
        self._submit("write", work, on_done, on_error, on_progress)

    def edit(self, work, on_done=None, on_error=None) -> None:
        self._submit("edit", lambda report: work(), on_done, on_error, None)

    def read(self, work, on_done=None, on_error=None) -> None:
        self._submit("read", lambda report: work(), on_done, on_error, None)

    def load(self, work, on_done=None, on_error=None) -> None:
        self._submit("load", lambda report: work(), on_done, on_error, None)

    @property
    def busy(self) -> bool:
        return self._writes_pending > 0

    def wait(self, milliseconds: int = -1) -> bool:
        """Block until every lane is idle (shutdown, tests). Pending signals are delivered afterwards."""
        return all(pool.waitForDone(milliseconds) for pool in self._lanes.values())

    def _submit(self, lane, work, on_done, on_error, on_progress) -> None:
        relay = _Relay(self)
        self._relays.add(relay)
        if on_progress:
            relay.progress.connect(on_progress)
        relay.done.connect(lambda result: self._finish(relay, lane, on_done, result))
        relay.failed.connect(lambda message: self._finish(relay, lane, on_error or self.error.emit, message))
        self._lanes[lane].start(_Job(work, relay))

    def _finish(self, relay: _Relay, lane: str, callback, value) -> None:
        self._relays.discard(relay)
        relay.deleteLater()
        if lane == "write":
            self._writes_pending -= 1
        if callback:
            callback(value)
