"""When the background LLM upgrade may run, when it makes way, and when its model goes back: the rules of
core/runs/lane.py's third step, without threads (the lane asks it; so does the app's Qt timer)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
        self._people_using_the_model = 0  # a person's questions being answered (core/answering/asking.py)
        self._people_lock = threading.Lock()

    def make_way(self) -> None:
        """Something else needs the write lane (a change batch, a run, an edit): stop now, go on later."""
        self._made_way_at = self._clock()
        self.stop()

    @contextmanager
    def person_uses_the_model(self) -> Iterator[None]:
        """A person's question is answered (from any thread): the upgrade's call in hand is cut short at once (within
        a second: the model's abort flag), none starts meanwhile, and it waits MAKE_WAY_S after."""
        with self._people_lock:
            self._people_using_the_model += 1
            self.stop()
        try:
            yield
        finally:
            with self._people_lock:
                self._people_using_the_model -= 1
                self._made_way_at = self._clock()

    def forget_made_way(self) -> None:
        """The person asked for the upgrade now: no waiting after the last change."""
        self._made_way_at = -self.make_way_s

    def stop(self) -> None:
        if self.control is not None:
            self.control.cancel()  # the model's call in hand is cut short; finished steps are kept

    def decide(self, asked_now: bool = False) -> Decision:
        self.schedule.observe()
        return self.schedule.decide(asked_now)

    def rested(self) -> bool:
        """Nothing arrived for make_way_s, and no person's question is being answered."""
        return not self._people_using_the_model and self._clock() - self._made_way_at >= self.make_way_s

    def may_start(self, decision: Decision, writes_waiting: bool, something_waits: bool) -> bool:
        return (decision.may_run and self.control is None and not writes_waiting and something_waits
                and not self._people_using_the_model and self._clock() - self._made_way_at >= self.make_way_s)

    def started(self) -> RunControl:
        with self._people_lock:  # a question that came since may_start: the step starts cancelled
            self.control = RunControl()
            if self._people_using_the_model:
                self.control.cancel()
        self.schedule.running(True)
        return self.control

    def ended(self, control: RunControl) -> None:
        if self.control is control:
            self.control = None
        self.schedule.running(False)
