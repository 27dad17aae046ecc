"""A person's edits waiting for the write lane (core/runs/lane.py): each carried out on the lane's thread, before
anything else and between the steps of a run in hand, its result or failure handed back to whoever asked."""

from __future__ import annotations

import queue
from concurrent.futures import Future
from typing import Any, TypeVar
from collections.abc import Callable

T = TypeVar("T")


class EditQueue:
    def __init__(self):
        self._edits: queue.Queue[tuple[Callable[[], Any], Future]] = queue.Queue()
        self._serving = False  # (an edit's own checkpoint does not serve the next one inside it)

    def put(self, work: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        self._edits.put((work, future))
        return future

    def serve(self) -> None:
        """Carry out every edit waiting, on the calling thread (the lane's)."""
        if self._serving:
            return
        self._serving = True
        try:
            while True:
                try:
                    work, future = self._edits.get_nowait()
                except queue.Empty:
                    return
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    future.set_result(work())
                except Exception as exc:  # noqa: BLE001 — the edit's failure is its asker's to tell
                    future.set_exception(exc)
        finally:
            self._serving = False

    def cancel_all(self) -> None:
        """Edits not begun are not begun: their askers hear so at once."""
        while True:
            try:
                _, future = self._edits.get_nowait()
            except queue.Empty:
                return
            future.cancel()
