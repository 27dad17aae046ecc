"""When background LLM work may run: the person's settings against what the computer is doing.

The laptop is the person's. LLM contexts are an upgrade that can wait, so by default (config.py, and why there)
they are written only when nobody has touched the keyboard or mouse and other programs have left the CPU alone for
a few minutes, and only on mains power; an hourly cap can hold them further. The app and `desktop-rag watch` ask
`decide()` about once a second, start the upgrade when it says yes and stop it (within a second: the model's call
is cut short) when it says no.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from collections.abc import Callable

from desktop_rag.core.progress.pacing import BUSY_SHARE
from desktop_rag.platform import machine

HOUR_S = 3600.0


@dataclass(frozen=True)
class Decision:
    may_run: bool
    reason: str = ""  # why not, in words for the progress panel
    wait_s: float | None = None  # when known, how long until it may


class BackgroundSchedule:
    def __init__(self, settings, clock: Callable[[], float] = time.monotonic,
                 input_idle: Callable[[], float | None] = machine.seconds_since_input,
                 load: Callable[[], float | None] | None = None,
                 battery: Callable[[], bool | None] = machine.on_battery):
        """The probes are parameters so that a test can play the machine (and says so); the defaults read it."""
        self.settings = settings
        self._clock = clock
        self._input_idle = input_idle
        self._load = load or machine.OtherProgramsLoad().sample
        self._battery = battery
        self._last_input: float | None = None  # input to the app itself (the window reports it)
        self._last_busy = clock()  # the load before the start is unknown: counted from now
        self._runs: list[tuple[float, float | None]] = []  # (start, end) of the upgrade's runs in the last hour

    # -- what happened --------------------------------------------------------------------------------------

    def note_input(self) -> None:
        self._last_input = self._clock()

    def observe(self) -> None:
        """Sample the CPU load of other programs; call every second or few."""
        share = self._load()
        if share is not None and share >= BUSY_SHARE:
            self._last_busy = self._clock()

    def running(self, yes: bool) -> None:
        """The upgrade started or stopped: what the hourly cap counts."""
        now = self._clock()
        if yes and not (self._runs and self._runs[-1][1] is None):
            self._runs.append((now, None))
        elif not yes and self._runs and self._runs[-1][1] is None:
            self._runs[-1] = (self._runs[-1][0], now)

    # -- the decision ---------------------------------------------------------------------------------------

    def quiet_seconds(self) -> float:
        """Since the last input (the desktop's where it can be read, the app's own) or the last busy moment."""
        now = self._clock()
        quiet = now - self._last_busy
        if self._last_input is not None:
            quiet = min(quiet, now - self._last_input)
        system = self._input_idle()
        if system is not None:
            quiet = min(quiet, system)
        return max(quiet, 0.0)

    def used_seconds(self, at: float | None = None) -> float:
        """Seconds the upgrade ran in the hour before `at` (default now; a later `at` assumes it stops now)."""
        now = self._clock()
        at = now if at is None else at
        self._runs = [r for r in self._runs if r[1] is None or r[1] > now - HOUR_S]
        return sum((max(0.0, min(now if end is None else end, at) - max(start, at - HOUR_S))
                    for start, end in self._runs), 0.0)

    def decide(self, asked_now: bool = False) -> Decision:
        """May the upgrade run now? `asked_now`: the person asked for it ("Write LLM contexts now"), which
        overrides the machine's conditions, not Off or Pause."""
        s = self.settings
        if s.llm_upgrade_paused:  # even a request now: it is kept, and goes on at Resume (core/runs/lane.py)
            return Decision(False, "paused")
        if s.contexts != "auto" and not asked_now:
            # `rules` and `none` say the person wants no model at work; `llm` writes LLM contexts while indexing.
            return Decision(False, f"contexts are set to {s.contexts}")
        if not s.llm_upgrade_when_idle and not asked_now:
            return Decision(False, "off")
        if asked_now:
            return Decision(True)
        if s.llm_only_on_mains and self._battery():
            return Decision(False, "waiting for mains power (on battery)")
        if s.llm_only_when_idle:
            wanted = s.llm_idle_minutes * 60
            quiet = self.quiet_seconds()
            if quiet < wanted:
                return Decision(False, f"waiting until the computer has been idle for {_minutes(wanted)}",
                                wanted - quiet)
        cap = s.llm_cap_minutes_per_hour * 60
        if cap > 0 and self.used_seconds() >= cap:
            wait = self._cap_frees_in(cap)
            return Decision(False, f"this hour's {_minutes(cap)} are used; goes on in {_minutes(wait)}", wait)
        return Decision(True)

    def _cap_frees_in(self, cap: float) -> float:
        now = self._clock()
        for wait in range(30, int(HOUR_S) + 30, 30):  # half-minute steps: the panel shows minutes
            if self.used_seconds(at=now + wait) < cap:
                return float(wait)
        return HOUR_S


def _minutes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return f"{minutes} min"
