"""What the process answering for a library is doing, in the words a tray icon shows (issue 40): catching up,
indexing N%, applying changes, writing LLM contexts, paused, idle. The `status` operation (service/tools.py) answers
it, and waits for the next change when asked to (a long poll: the tray hears of a change within a quarter second
and asks nothing while nothing changes).

The service (and `watch`) read it from their write lane (core/runs/lane.py), their runs and their catch-up
(`LaneActivity`); the window shows the same through the event stream's status (service/events.py).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from typing import Protocol, TYPE_CHECKING

from desktop_rag.documents import duration_words, share_told, share_words
from desktop_rag.service.runs import SHARE_RUNNING_AT_MOST, RunRegistry, RunState

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library
    from desktop_rag.core.runs.lane import WriteLane

WORK_IN_PROGRESS = ("catching up", "indexing", "applying changes")  # what the LLM upgrade waits behind
WRITING = "writing LLM contexts"
DOINGS = (*WORK_IN_PROGRESS, WRITING, "paused", "idle")
# A run's time left is told once the run has measured its rates for this long (the window's panel waits as long):
# its first seconds list and read the small files, and an estimate from them swung between 38 min and 3.1 h.
ESTIMATE_AFTER_S = 5.0


@dataclass(frozen=True)
class Activity:
    """The one state of the process answering for a library: every front end (the tray, `desktop-rag status`,
    the window's line) shows it as it is, in the words `sentence()` gives (issue 60: the tray said "Catching up
    7%" while the window said "Paused", and each told a pause its own way)."""

    doing: str  # one of DOINGS
    share_done: float | None = None  # of the catch-up or the run, when it is one
    seconds_left: float | None = None  # the run's own estimate, once worth telling (ESTIMATE_AFTER_S)
    run_id: str | None = None  # the run in hand, for a front end's Pause and Cancel of it
    run_paused: bool = False  # the run in hand was asked to pause (held: it stopped after the step in hand)
    held: bool = False
    llm_paused: bool = False  # the background LLM work is paused (a setting, kept across restarts)

    @property
    def paused(self) -> bool:
        """Anything the person paused: what the tray's Resume lets go."""
        return self.run_paused or self.llm_paused

    def as_dict(self) -> dict:
        values = asdict(self)
        if self.share_done is not None:
            values["share_done"] = share_told(self.share_done)  # a change of a percent is news; less is not
        values["seconds_left"] = self._told_seconds_left()
        values["paused"] = self.paused
        values["words"] = self.sentence()
        return values

    def _told_seconds_left(self) -> float | None:
        """The time left as it is told: a second less of an estimate is no news, minutes are what is read. (Told
        to the second, the words changed every second, and the window and the tray said "33 s" and "32 s".)"""
        if self.seconds_left is None:
            return None
        return round(self.seconds_left, -1 if self.seconds_left < 600 else -2)

    def sentence(self) -> str:
        """The state in one line, as every front end says it."""
        share = f" {share_words(self.share_done)}" if self.share_done is not None else ""
        if self.doing in ("catching up", "indexing"):
            what = "Catching up with changes made while nothing watched" if self.doing == "catching up" \
                else "Indexing"
            if self.run_paused:
                return (f"Paused: {what.lower()}, {share.strip() or 'begun'} done; nothing moves until you resume"
                        if self.held else f"Pausing: {what.lower()}{share}, after the step in hand")
            told = self._told_seconds_left()
            left = f", about {duration_words(told)} left" if told else ""
            return f"{what}{share}{left}"
        if self.doing == "applying changes":
            return "Applying file changes"
        if self.doing == WRITING:
            return "Writing LLM contexts"
        if self.doing == "paused":
            return "Background work paused"
        return "Idle: the index is up to date"


def version_of(state: dict) -> str:
    """A short digest of a status: a client passes back the one it has, and is answered when it differs."""
    return hashlib.sha1(json.dumps(state, sort_keys=True).encode()).hexdigest()[:12]


class ActivitySource(Protocol):
    def now(self) -> Activity: ...


class LaneActivity:
    """The service's activity, read from its write lane, its runs and its catch-up."""

    def __init__(self, lane: WriteLane, runs: RunRegistry, library: Library):
        self._lane = lane
        self._runs = runs
        self._library = library
        self.catch_up_share: float | None = None  # while the start's catch-up runs: how far it got

    def catching_up(self, progress=None) -> None:
        """The catch-up's on_progress (None: it begins)."""
        known = progress.overall if progress is not None else None
        self.catch_up_share = (min(known, SHARE_RUNNING_AT_MOST) if known is not None
                               else self.catch_up_share or 0.0)

    def caught_up(self) -> None:
        self.catch_up_share = None

    def now(self) -> Activity:
        llm_paused = bool(self._library.settings.llm_upgrade_paused)
        run = self._runs.get()
        if run is not None and run.state != "running":
            run = None
        if self.catch_up_share is not None or (run is not None and self._lane.doing == "run"):
            doing = "catching up" if self.catch_up_share is not None else "indexing"
            share = run.share_done if run is not None else self.catch_up_share
            return Activity(doing, share, _estimate(run), run.run_id if run else None,
                            bool(run and run.paused), bool(run and run.held), llm_paused)
        if self._lane.doing == "changes":
            return Activity("applying changes", llm_paused=llm_paused)
        if self._lane.doing == "upgrade":
            return Activity(WRITING, llm_paused=llm_paused)
        return at_rest(llm_paused)


def at_rest(llm_paused: bool) -> Activity:
    """A process with nothing in hand: idle, or paused (`serve`, with no lane, said "Idle" while paused)."""
    return Activity("paused" if llm_paused else "idle", llm_paused=llm_paused)


def _estimate(run: RunState | None) -> float | None:
    """The run's time left, counted down since the run said it: a run says it at its steps, seconds apart while
    it embeds, and a time left held still for them was told as if no time had passed (issue 60)."""
    if run is None or run.seconds_left is None or run.started_at is None:
        return None
    now = time.time()
    if now - run.started_at < ESTIMATE_AFTER_S:
        return None
    if run.paused:  # (held: no time passes for it)
        return run.seconds_left
    return max(run.seconds_left - (now - (run.left_told_at or now)), 1.0)
