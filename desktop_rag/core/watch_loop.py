"""Keeping a library in line with its folders: the loop behind `desktop-rag watch`.

One thread does all the writing, in order: batches of changes as the watcher hands them over and, while the
folders are quiet, the LLM upgrade of rules contexts one document at a time. A batch arriving during an upgrade
stops it after the step in hand (a few chunks; what is finished is kept), and the upgrade resumes when quiet.
"""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path
from typing import Callable, Sequence

from desktop_rag.core.changes import ChangeBatch
from desktop_rag.core.control import RunControl
from desktop_rag.core.indexing import IndexSummary
from desktop_rag.core.upgrade import UpgradeSummary
from desktop_rag.core.watch import library_watcher

IDLE_SECONDS_BEFORE_UPGRADE = 5.0


class WatchLoop:
    def __init__(self, library, folders: Sequence[Path], upgrade_when_idle: bool,
                 on_batch: Callable[[ChangeBatch, IndexSummary], None] = lambda batch, summary: None,
                 on_upgrade: Callable[[UpgradeSummary], None] = lambda summary: None,
                 idle_seconds: float = IDLE_SECONDS_BEFORE_UPGRADE):
        self.library = library
        self.folders = list(folders)
        self.upgrade_when_idle = upgrade_when_idle
        self.on_batch, self.on_upgrade = on_batch, on_upgrade
        self.idle_seconds = idle_seconds
        self.stop_requested = threading.Event()
        self._upgrade: RunControl | None = None  # the upgrade in progress, if any

    def _arrived(self, batches: queue.Queue, batch: ChangeBatch) -> None:
        """On the watcher's thread: hand the batch over, and stop an upgrade so that the batch goes first."""
        batches.put(batch)
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
                elif not nothing_to_upgrade and time.monotonic() - last_change >= self.idle_seconds:
                    self._upgrade = RunControl()
                    if not batches.empty():  # arrived just before the upgrade could be told
                        self._upgrade.cancel()
                    try:
                        upgraded = self.library.upgrade_contexts(limit=1, control=self._upgrade)
                    finally:
                        self._upgrade = None
                    # No progress (nothing left, or no usable model): wait for the next change before trying again.
                    nothing_to_upgrade = upgraded.upgraded_chunks == 0 and not upgraded.cancelled
                    if upgraded.documents:
                        self.on_upgrade(upgraded)
        finally:
            watcher.stop()
