"""Keeping a library in line with its folders: the loop behind `desktop-rag watch`.

One thread does all the writing, in order: batches of changes as the watcher hands them over and, while the
folders are quiet and the schedule allows (core/runs/schedule.py: idle computer, mains power, the hourly cap), the LLM
upgrade of rules contexts one document at a time. A batch arriving during an upgrade, or the schedule turning to
no, cuts the model's call in hand short (what is finished is kept); the upgrade resumes when allowed. The model's
memory is given back when there is nothing left to upgrade or the schedule has held it back for a while.
"""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path
from typing import Callable, Sequence

from desktop_rag.core.contexts.upgrade import UpgradeSummary
from desktop_rag.core.indexing import IndexSummary
from desktop_rag.core.runs.control import RunControl
from desktop_rag.core.runs.schedule import BackgroundSchedule
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.core.watching.watch import library_watcher

IDLE_SECONDS_BEFORE_UPGRADE = 5.0
SCHEDULE_CHECK_S = 1.0  # how often a running upgrade asks whether it may go on
RELEASE_MODEL_AFTER_S = 60.0


class WatchLoop:
    def __init__(self, library, folders: Sequence[Path], upgrade_when_idle: bool,
                 on_batch: Callable[[ChangeBatch, IndexSummary], None] = lambda batch, summary: None,
                 on_upgrade: Callable[[UpgradeSummary], None] = lambda summary: None,
                 idle_seconds: float = IDLE_SECONDS_BEFORE_UPGRADE, schedule: BackgroundSchedule | None = None):
        """`schedule`: when the upgrade may run (the CLI passes the library's); None: whenever the folders are
        quiet."""
        self.library = library
        self.folders = list(folders)
        self.upgrade_when_idle = upgrade_when_idle
        self.on_batch, self.on_upgrade = on_batch, on_upgrade
        self.idle_seconds = idle_seconds
        self.schedule = schedule
        self.stop_requested = threading.Event()
        self._upgrade: RunControl | None = None  # the upgrade in progress, if any
        self._model_used_at: float | None = None

    def _arrived(self, batches: queue.Queue, batch: ChangeBatch) -> None:
        """On the watcher's thread: hand the batch over, and stop an upgrade so that the batch goes first."""
        batches.put(batch)
        upgrade = self._upgrade
        if upgrade is not None:
            upgrade.cancel()

    def stop(self) -> None:
        """From any thread (Ctrl-C): the loop ends, an upgrade in hand is cut short."""
        self.stop_requested.set()
        upgrade = self._upgrade
        if upgrade is not None:
            upgrade.cancel()

    def run(self, on_started: Callable[[], None] = lambda: None) -> None:
        """Until stop_requested is set (or KeyboardInterrupt). `on_started`: changes from now on are seen."""
        batches: queue.Queue[ChangeBatch] = queue.Queue()
        watcher = library_watcher(self.library, self.folders, lambda batch: self._arrived(batches, batch))
        watcher.start()
        on_started()
        last_change = time.monotonic()
        nothing_to_upgrade = not self.upgrade_when_idle
        try:
            while not self.stop_requested.is_set():
                try:
                    batch = batches.get(timeout=0.2)
                except queue.Empty:
                    batch = None
                if batch is not None:
                    while not batches.empty():  # what piled up while the last batch was applied: one batch
                        batch.merge(batches.get_nowait())
                    summary = self.library.apply_changes(batch)
                    if summary.busy:
                        watcher.retry_later(summary.busy)
                    self.on_batch(batch, summary)
                    last_change, nothing_to_upgrade = time.monotonic(), not self.upgrade_when_idle
                elif (not nothing_to_upgrade and time.monotonic() - last_change >= self.idle_seconds
                      and self._allowed()):
                    upgraded = self._upgrade_one(batches)
                    # No progress (nothing left, or no usable model): wait for the next change before trying again.
                    nothing_to_upgrade = upgraded.upgraded_chunks == 0 and not upgraded.cancelled
                    if nothing_to_upgrade:
                        self._release_model()
                    if upgraded.documents:
                        self.on_upgrade(upgraded)
                elif self._model_used_at and time.monotonic() - self._model_used_at > RELEASE_MODEL_AFTER_S:
                    self._release_model()
        finally:
            watcher.stop()

    def _allowed(self) -> bool:
        if self.schedule is None:
            return True
        self.schedule.observe()
        return self.schedule.decide().may_run

    def _upgrade_one(self, batches: queue.Queue) -> UpgradeSummary:
        control = self._upgrade = RunControl()
        if not batches.empty() or self.stop_requested.is_set():  # arrived just before the upgrade could be told
            control.cancel()
        done = threading.Event()
        watching = threading.Thread(target=self._hold_to_schedule, args=(control, done), daemon=True)
        if self.schedule is not None:
            self.schedule.running(True)
            watching.start()
        try:
            return self.library.upgrade_contexts(limit=1, control=control)
        finally:
            self._upgrade = None
            self._model_used_at = time.monotonic()
            if self.schedule is not None:
                self.schedule.running(False)
                done.set()
                watching.join()

    def _hold_to_schedule(self, control: RunControl, done: threading.Event) -> None:
        """While the upgrade runs: the person comes back, the laptop goes on battery, the cap is reached → stop."""
        while not done.wait(SCHEDULE_CHECK_S):
            if not self._allowed():
                control.cancel()
                return

    def _release_model(self) -> None:
        if self._model_used_at is not None:
            self.library.release_llm_model()
            self._model_used_at = None
