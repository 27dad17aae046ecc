"""The LLM upgrade's count, told for the whole stretch of it rather than for each step (issue 60: the bar full
during "Writing LLM contexts (you asked for them now)" while 10,168 passages waited). The upgrade goes a document
at a time on the write lane (core/runs/lane.py), each step a run of its own whose count ended "done of done"; the
service adds the steps up: the contexts written since the stretch began, of those waiting when it began. A pause or
a run in between does not end the stretch (its bar goes on where it was); work added does (new files' contexts):
the count starts again from what waits then."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from desktop_rag.core.indexing.report import Progress


class UpgradeStretch:
    def __init__(self, count_waiting: Callable[[], int]):
        """`count_waiting()`: the contexts waiting for the model now (the catalog's count; asked once a step)."""
        self._count_waiting = count_waiting
        self._done_before = 0  # contexts the stretch's earlier steps wrote or kept
        self._total: int | None = None

    def step_started(self) -> None:
        waiting = self._count_waiting()
        if self._total is None or waiting > self._total - self._done_before:  # none yet, or work added
            self._done_before, self._total = 0, waiting

    def told(self, progress: Progress) -> Progress:
        """A step's progress, counted for the stretch: never "done of done" while contexts wait."""
        if self._total is None:
            return progress
        done = self._done_before + progress.done
        return dataclasses.replace(progress, done=done, total=max(self._total, done))

    def step_ended(self, written: int) -> None:
        """`written`: the contexts the step wrote or kept on rules (the model's answer too poor)."""
        self._done_before += written
