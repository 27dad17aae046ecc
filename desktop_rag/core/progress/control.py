"""Pause, resume and cancel for long runs. The worker calls checkpoint() between units of work; whoever drives
it (the CLI's Ctrl-C handler, the app's buttons, a saved file that must go first) calls the other methods from
any thread.

A unit of work can be long — one step of LLM contexts takes 15-30 s on 2 cores — so pause() and cancel() also
tell the parts registered with on_stop(): the model's call in progress is cut short (core/llm/interrupt.py) and
the worker reaches its checkpoint within a second instead of after the step.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Cancelled(Exception):
    pass


class RunControl:
    def __init__(self):
        self._cancelled = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self._stop_hooks: list[Callable[[RunControl], None]] = []
        self._hooks_lock = threading.Lock()
        # Called on the worker's thread at each checkpoint, paused or not: the service's write lane serves a
        # person's edits there (core/runs/lane.py), so an edit waits for the step in hand, not for the whole run.
        self.between_steps: Callable[[], None] | None = None
        # Called too at the checkpoints between two documents (no document half stored, no transaction open):
        # the lane applies the file changes waiting there (issue 49). Paused, it is called as between_steps is.
        self.between_documents: Callable[[], None] | None = None
        # Called with True when the worker stops at a checkpoint because the run is paused (the step in hand over,
        # nothing moves until resume) and with False when it goes on: a pause is asked at once but is held only
        # there, after the step in hand (the first document of a run starts the reader process: seconds on a
        # loaded machine), and the service tells the two apart (RunState.held).
        self.on_held: Callable[[bool], None] | None = None

    def cancel(self) -> None:
        self._cancelled.set()
        self._running.set()  # a paused worker must wake up to notice
        self._tell_stop_hooks()

    def pause(self) -> None:
        self._running.clear()
        self._tell_stop_hooks()

    def resume(self) -> None:
        self._running.set()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    @property
    def stopping(self) -> bool:
        """Paused or cancelled: work in hand should stop at once."""
        return self.paused or self.cancelled

    def on_stop(self, hook: Callable[[RunControl], None]) -> None:
        """`hook(control)` runs (on the thread that pauses or cancels) each time the run is paused or cancelled,
        after the state has changed; registering the same hook twice keeps one."""
        with self._hooks_lock:
            if hook not in self._stop_hooks:
                self._stop_hooks.append(hook)

    def _tell_stop_hooks(self) -> None:
        with self._hooks_lock:
            hooks = list(self._stop_hooks)
        for hook in hooks:
            hook(self)

    def checkpoint(self, between_documents: bool = False) -> None:
        """`between_documents`: no document is half stored here (see between_documents)."""
        serve = [hook for hook in (self.between_steps, self.between_documents if between_documents else None)
                 if hook is not None]
        held = False
        while True:
            for hook in serve:
                hook()
            if self._running.is_set():
                break
            if not held:
                held = True
                if self.on_held is not None:
                    self.on_held(True)
            if self._running.wait(0.2 if serve else None):
                break
        if held and self.on_held is not None:
            self.on_held(False)
        if self._cancelled.is_set():
            raise Cancelled()
