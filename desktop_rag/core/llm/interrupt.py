"""Cutting a model call short when whoever asked for it is paused or cancelled.

One step of chunk contexts is one model call of 15-30 s (1.5B model, 2 cores). A saved file, a person's run,
Pause, Cancel or Quit must not wait for it, so the call itself stops: a one-byte flag, shared with the process
that runs the model, is checked by llama.cpp between the operations of its compute graph (its abort callback)
and by our decoding loop between tokens. What was finished before the call is kept; the step is asked again later.

Only the caller's own control cuts its call short: a thread names its control with `calls_controlled_by`, and a
pause of the background upgrade never aborts a person's "regenerate" that happens to be using the model.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from desktop_rag.child_process import CallAbandoned

_current = threading.local()


class Interrupted(Exception):
    """The model call was cut short: its caller was paused or cancelled. Nothing of the call is kept."""


class AbortFlag:
    """The in-process form of the shared flag (a `multiprocessing` RawValue has the same `.value`)."""

    def __init__(self):
        self.value = 0


@contextmanager
def calls_controlled_by(control):
    """Model calls made by this thread inside the block are cut short when `control` is paused or cancelled."""
    previous = getattr(_current, "control", None)
    _current.control = control
    try:
        yield
    finally:
        _current.control = previous


def current_control():
    """The control this thread's model calls answer to (None: none): a thread making a call for its caller takes it
    on with calls_controlled_by."""
    return getattr(_current, "control", None)


class CallGuard:
    """One model call at a time, on the side that asks; `flag` is what the side that computes looks at."""

    def __init__(self, flag):
        self.flag = flag
        self._one_call = threading.Lock()
        self._state = threading.Lock()  # the owner and the flag change together
        self._owner = None

    @contextmanager
    def call(self, settle=None):
        """`settle()`: run first, with the flag as an abandoned call left it (a child still finishing that call
        must see it raised until it has answered)."""
        control = getattr(_current, "control", None)
        with self._one_call:
            if settle is not None:
                settle()
            with self._state:
                # Checked under the same lock as the stop hook: a pause either comes before (seen here) or after
                # (the hook finds this call and raises the flag); never between, where it would be lost.
                if control is not None:
                    if control.stopping:
                        raise Interrupted("paused or cancelled")
                    control.on_stop(self._stop)
                self._owner = control
                self.flag.value = 0
            try:
                yield
            finally:
                with self._state:
                    self._owner = None  # the flag stays as it is until the next call: see `settle`

    def call_in_child(self, child, method: str, *args, lane: str | None = None, cut_short: str = "cut short"):
        """`child.call(method, *args)` (a ChildObject's) under this guard: its caller stops waiting as soon as the
        flag is raised (a child at low priority on a busy machine took seconds to notice it), and the answer owed
        is read and dropped before the lane's next call. Interrupted(`cut_short`) when cut short."""
        with self.call(settle=lambda: child.settle(lane)):
            try:
                return child.call(method, *args, lane=lane, abandon=lambda: bool(self.flag.value))
            except CallAbandoned:
                raise Interrupted(cut_short) from None

    def _stop(self, control) -> None:
        with self._state:
            if self._owner is control:
                self.flag.value = 1
