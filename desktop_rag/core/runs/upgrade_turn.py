"""When the background LLM upgrade may run, when it makes way, and when its model goes back: the rules of
core/runs/lane.py's third step, without threads (the lane asks it; so does the app's Qt timer)."""

from __future__ import annotations

import time
from collections.abc import Callable

from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.progress.pacing import MAKE_WAY_S
from desktop_rag.core.runs.schedule import BackgroundSchedule, Decision



class UpgradeTurn:
    """When the background upgrade may run, when it must make way, and when its model goes back."""

    def __init__(self, schedule: BackgroundSchedule, clock: Callable[[], float] = time.monotonic,
                 make_way_s: float = MAKE_WAY_S):
        self.schedule = schedule
        self._clock = clock
        self.make_way_s = make_way_s
        self.control: RunControl | None = None  # the upgrade while it runs
        self._made_way_at = -make_way_s

    def make_way(self) -> None:
        """Something else needs the write lane (a change batch, a run, an edit): stop now, go on later."""
        self._made_way_at = self._clock()
        self.stop()

    def forget_made_way(self) -> None:
        """The person asked for the upgrade now: no waiting after the last change."""
        self._made_way_at = -self.make_way_s

    def stop(self) -> None:
        if self.control is not None:
            self.control.cancel()  # the model's call in hand is cut short; finished steps are kept

    def decide(self, asked_now: bool = False) -> Decision:
        self.schedule.observe()
        return self.schedule.decide(asked_now)

    def may_start(self, decision: Decision, writes_waiting: bool, something_waits: bool) -> bool:
        return (decision.may_run and self.control is None and not writes_waiting and something_waits
                and self._clock() - self._made_way_at >= self.make_way_s)

    def started(self) -> RunControl:
        self.control = RunControl()
        self.schedule.running(True)
        return self.control

    def ended(self, control: RunControl) -> None:
        if self.control is control:
            self.control = None
        self.schedule.running(False)
