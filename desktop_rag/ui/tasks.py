"""One task runner for the window's calls and reads (the Anki way): each runs on a worker thread, never on the
window's; its result comes back to the GUI thread as a queued signal.

Lanes, each one task at a time: calls that start work in the service (index a folder, pause, settings of the
background); edits a person makes (a context, a setting, a folder's mark), which the service carries out before
anything else (issue 49); searches; reads (stats, review rows), so a search never waits behind either; the first
load of the service's model, so searches typed meanwhile are not queued behind seconds of loading; and a question
being answered (seconds of the model's writing), which no search waits behind.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from desktop_rag.ui.errors import readable

log = logging.getLogger(__name__)


class _Relay(QObject):
    """Lives in the GUI thread; a worker emits on it and the connected slots run in the GUI thread."""

    progress = Signal(object)
    done = Signal(object)
    failed = Signal(str)


class _Job:
    def __init__(self, work: Callable[[Callable[[Any], None]], Any], relay: _Relay, closing: threading.Event):
        self._work = work
        self._relay = relay
        self._closing = closing

    def run(self) -> None:
        try:
            result = self._work(self._relay.progress.emit)
        except Exception as exc:  # reaches the user as a sentence, and the log keeps the traceback
            if self._closing.is_set():  # the app quits and ended the children this task was waiting on
                log.info("a task was cut short by quitting (%s); its unit of work is redone next time", exc)
                return
            log.exception("task failed")
            self._report(self._relay.failed, readable(exc))
        else:
            self._report(self._relay.done, result)

    def _report(self, signal, value) -> None:
        # A task that ends after its window closed (a model loaded in 2 s, the window closed in 1) has nobody to
        # tell, and its relay may be deleted with the window: emitting then raised in the worker thread.
        if self._closing.is_set():
            return
        try:
            signal.emit(value)
        except RuntimeError:  # "Signal source has been deleted": the window went without closing its runner
            log.info("a task ended after its window was gone; its result is dropped")


class _Counted:
    """Jobs queued or running, counted: waited for (shutdown, tests) and asked whether any is left."""

    def __init__(self):
        self._pending = 0
        self._changed = threading.Condition()

    def wait(self, milliseconds: int = -1) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._pending == 0,
                                          None if milliseconds < 0 else milliseconds / 1000)

    @property
    def idle(self) -> bool:
        return self._pending == 0


class _Lane(_Counted):
    """One worker thread running its jobs in submission order. A Python thread, not a QThreadPool: a pool deleted
    with its window waits for its running job in its C++ destructor while holding the GIL, which that job (an
    upgrade's embedding, cut short by Quit) needs to end — the suite hung there for good."""

    def __init__(self, name: str):
        super().__init__()
        self._name = name
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def start(self, job: _Job) -> None:
        with self._changed:
            self._pending += 1
        self._jobs.put(job)
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"desktop-rag {self._name}", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """The thread ends after the jobs queued before this."""
        self._jobs.put(None)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job.run()
            finally:
                with self._changed:
                    self._pending -= 1
                    self._changed.notify_all()


class TaskRunner(QObject):
    error = Signal(str)  # a task without its own error handler failed: the window shows this

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._lanes = {lane: _Lane(lane) for lane in ("write", "edit", "search", "read", "load", "ask")}
        self._relays: set[_Relay] = set()  # kept alive until their job reports back
        self._writes_pending = 0
        self._closing = threading.Event()

    def close(self) -> None:
        """The window closes: nothing new starts, results no longer reach it, failures from here on are the
        quit's doing (logged as such, not as errors)."""
        self._closing.set()
        for lane in self._lanes.values():
            lane.stop()

    @property
    def closing(self) -> bool:
        return self._closing.is_set()

    def write(self, work, on_done=None, on_error=None, on_progress=None) -> None:
        """`work(report)` runs on the thread for writes (a call to the service); `report(x)` delivers x to
        on_progress in the GUI thread."""
        self._writes_pending += 1
        self._submit("write", work, on_done, on_error, on_progress)

    def edit(self, work, on_done=None, on_error=None) -> None:
        self._submit("edit", lambda report: work(), on_done, on_error, None)

    def search(self, work, on_done=None, on_error=None) -> None:
        """A search the person asked for: a lane of its own, never behind the window's own reads (at 110k chunks
        the folders' states and the upgrade's backlog, read as the window opens, held the first search 0.8 s)."""
        self._submit("search", lambda report: work(), on_done, on_error, None)

    def read(self, work, on_done=None, on_error=None) -> None:
        self._submit("read", lambda report: work(), on_done, on_error, None)

    def load(self, work, on_done=None, on_error=None) -> None:
        self._submit("load", lambda report: work(), on_done, on_error, None)

    def ask(self, work, on_done=None, on_error=None) -> None:
        self._submit("ask", lambda report: work(), on_done, on_error, None)

    @property
    def busy(self) -> bool:
        return self._writes_pending > 0

    def wait(self, milliseconds: int = -1) -> bool:
        """Block until every lane is idle (shutdown, tests). Pending signals are delivered afterwards."""
        return all(lane.wait(milliseconds) for lane in self._lanes.values())

    def _submit(self, lane, work, on_done, on_error, on_progress) -> None:
        if self._closing.is_set():
            if lane == "write":
                self._writes_pending -= 1
            return
        relay = _Relay(self)
        self._relays.add(relay)
        if on_progress:
            relay.progress.connect(on_progress)
        relay.done.connect(lambda result: self._finish(relay, lane, on_done, result))
        relay.failed.connect(lambda message: self._finish(relay, lane, on_error or self.error.emit, message))
        self._lanes[lane].start(_Job(work, relay, self._closing))

    def _finish(self, relay: _Relay, lane: str, callback, value) -> None:
        self._relays.discard(relay)
        relay.deleteLater()
        if lane == "write":
            self._writes_pending -= 1
        if callback and not self._closing.is_set():
            callback(value)

    @property
    def idle(self) -> bool:
        """No task runs on any lane (a closing window's library may then be closed under nobody)."""
        return all(lane.idle for lane in self._lanes.values())
