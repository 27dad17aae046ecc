"""Pause, resume and cancel for long runs. The worker calls checkpoint() between units of work; whoever drives
it (the CLI's Ctrl-C handler, the app's buttons) calls the other methods from any thread."""

from __future__ import annotations

import threading


class Cancelled(Exception):
    pass


class RunControl:
    def __init__(self):
        self._cancelled = threading.Event()
        self._running = threading.Event()
        self._running.set()

    def cancel(self) -> None:
        self._cancelled.set()
        self._running.set()  # a paused worker must wake up to notice

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def checkpoint(self) -> None:
        self._running.wait()
        if self._cancelled.is_set():
            raise Cancelled()
