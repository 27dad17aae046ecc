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
from dataclasses import asdict, dataclass
from typing import Protocol, TYPE_CHECKING

from desktop_rag.service.runs import RunRegistry

if TYPE_CHECKING:
    from desktop_rag.core.library import Library
    from desktop_rag.core.runs.lane import WriteLane

DOINGS = ("catching up", "indexing", "applying changes", "writing LLM contexts", "paused", "idle")


@dataclass(frozen=True)
class Activity:
    doing: str  # one of DOINGS
    share_done: float | None = None  # of the catch-up or the run, when it is one

    def as_dict(self) -> dict:
        values = asdict(self)
        if self.share_done is not None:
            values["share_done"] = round(self.share_done, 2)  # a change of a percent is news; less is not
        return values


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
        self.catch_up_share = known if known is not None else self.catch_up_share or 0.0

    def caught_up(self) -> None:
        self.catch_up_share = None

    def now(self) -> Activity:
        if self.catch_up_share is not None:
            return Activity("catching up", self.catch_up_share)
        doing = self._lane.doing
        if doing == "run":
            run = self._runs.get()
            return Activity("indexing", run.share_done if run is not None else None)
        if doing == "changes":
            return Activity("applying changes")
        if doing == "upgrade":
            return Activity("writing LLM contexts")
        if self._library.settings.llm_upgrade_paused:
            return Activity("paused")
        return Activity("idle")
