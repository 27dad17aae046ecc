"""What the service did, in order, for every client that follows it (issue 49): the one stream a window, the tray
or a script reads instead of each asking the library what changed.

Each event has a number; a client asks for those after the last it saw (`events`, a long poll: answered at once
when some are new, else when one comes or `wait_s` passes). The log keeps the last KEPT_EVENTS; a client that fell
further behind, or that followed a service since restarted (another `instance`), is told `missed` and reads its
views again instead of trusting a partial story.

Kinds: "changes" (core/indexing/changes.py's Changes of every write, as a dict), "run" (a run's state: service/runs.py),
"error" (a sentence the lane or an operation reported), "stopping" (the service is ending because it was asked to:
a window waits to be asked before starting another; one ending on an error says nothing, and is started again).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque

from desktop_rag.core.indexing.changes import Changes

KEPT_EVENTS = 2_000  # at ~1 a second during a run, half an hour of a window's absence; past it, `missed`


class EventLog:
    def __init__(self, kept: int = KEPT_EVENTS):
        # Tells two lifetimes of the service apart: numbers start at 1 again when it restarts.
        self.instance = f"{os.getpid()}-{time.time_ns()}"
        self._events: deque[dict] = deque(maxlen=kept)
        self._last = 0
        self._arrived = threading.Condition()

    @property
    def last(self) -> int:
        return self._last

    def publish(self, kind: str, **data) -> int:
        with self._arrived:
            self._last += 1
            self._events.append({"seq": self._last, "kind": kind, "at": round(time.time(), 3), **data})
            self._arrived.notify_all()
            return self._last

    def changes(self, changes: Changes) -> None:
        """A write's Changes, when it changed anything."""
        if changes:
            self.publish("changes", changes=changes.to_dict())

    def wake(self) -> None:
        """Answer every waiting client now (the service stops, or its status changed)."""
        with self._arrived:
            self._arrived.notify_all()

    def since(self, after: int | None, instance: str | None, wait_s: float = 0.0,
              still_waiting=lambda: True) -> dict:
        """Events numbered after `after` of this `instance` ({"events", "last", "instance", "missed"}); None:
        none, only where the stream stands now (a client's first call). Waits up to `wait_s` for one while
        `still_waiting()` holds (it is asked every quarter second: a status change or a stop ends the wait)."""
        deadline = time.monotonic() + wait_s
        with self._arrived:
            while True:
                answer = self._answer(after, instance)
                remaining = deadline - time.monotonic()
                if answer["events"] or answer["missed"] or after is None or remaining <= 0 or not still_waiting():
                    return answer
                self._arrived.wait(min(remaining, 0.25))

    def _answer(self, after: int | None, instance: str | None) -> dict:
        if after is None:  # where the stream stands; and that the service is ending, which is a state, not news:
            # a window that joined between its hello and its first call here missed "stopping", took the stop for
            # a crash and started the service the person had just stopped
            stopping = [event for event in self._events if event["kind"] == "stopping"]
            return {"events": stopping, "last": self._last, "instance": self.instance, "missed": False}
        if instance != self.instance or after > self._last:
            return {"events": list(self._events), "last": self._last, "instance": self.instance, "missed": True}
        oldest = self._events[0]["seq"] if self._events else self._last + 1
        missed = after + 1 < oldest
        events = [e for e in self._events if e["seq"] > after]
        return {"events": events, "last": self._last, "instance": self.instance, "missed": missed}
