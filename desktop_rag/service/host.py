"""A process that holds a library answers for it: the endpoint, the tools behind it, and the runs agents start.
The service, `serve`, `watch` and `mcp` (on a library of its own) run them on their one write lane
(core/runs/lane.py)."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import time
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from desktop_rag.core.runs.lane import WriteLane
from desktop_rag.errors import UserError
from desktop_rag.service.answers import RunProgress
from desktop_rag.service.endpoint import EndpointServer
from desktop_rag.service.events import EventLog
from desktop_rag.service.runs import RunQueue, RunRegistry
from desktop_rag.service.door import request_handler
from desktop_rag.service.tools import LibraryTools
from desktop_rag.service.upgrade_stretch import UpgradeStretch

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library

log = logging.getLogger(__name__)

T = TypeVar("T")

# How long an edit asked through the endpoint waits for its turn on the write lane: one step of a run or of the
# upgrade (the upgrade's is cut short within a second; a run's embedding batch takes seconds on 2 cores).
EDIT_WAIT_S = 120.0


class LibraryHost:
    def __init__(self, library: Library, served_by: str, runs: RunRegistry | None = None,
                 lane: WriteLane | None = None, upgrade: str = "never", on_stop: Callable[[], None] | None = None,
                 role: str = ""):
        """Every write is carried out on `lane`, or on a write lane of its own that upgrades contexts as `upgrade`
        says (see WriteLane); `on_stop()`: how `desktop-rag stop` ends this process (None: it is not stopped from
        outside); `role`: what it is ("service", "serve", …), as `hello` tells a front end."""
        self.library = library
        self.runs = runs or RunRegistry()
        self.events = EventLog()
        self.after_run: Callable[[], None] | None = None  # called when each of its own runs ends
        # Called as each of its runs begins, with its paths: a folder new to the library is watched from the start
        # of its first run, so a file saved while it is read is not missed (issue 49).
        self.before_run: Callable[[list[Path]], None] | None = None
        self._own_lane = None
        if lane is None:
            lane = self._own_lane = WriteLane(library, upgrade=upgrade)
            lane.start()
        self.lane = lane
        self.queue = queue = RunQueue(self.runs, lane, self._run, on_state=self._run_state)
        lane.on_changes = self.events.changes
        lane.on_failure = self._failed
        lane.on_applied = self._applied
        self.tools = LibraryTools(library, self.runs, lambda paths, contexts: queue.submit(paths, contexts).run_id,
                                  served_by, events=self.events, write=self._write)
        writes = self.tools.writes
        writes.on_folders_changed = self._folders_changed
        writes.lane = lane
        writes.on_settings_changed = lambda changes: lane.settings_changed()
        self._follow_the_upgrade(lane)
        writes.cancel_runs = queue.cancel
        writes.pause_runs = queue.pause
        writes.submit_work = queue.submit_work
        writes.pause_runs_of_kind = queue.pause_kind
        self.tools.on_stop = on_stop
        self.tools.role = role
        self.handle = request_handler(self.tools)  # the one door: arguments checked, then the operation
        try:
            self.endpoint: EndpointServer | None = EndpointServer(library.data_dir, self.handle)
        except UserError as exc:  # no private folder for the socket: everything works, only slower elsewhere
            log.warning("the local endpoint is off: %s", exc)
            self.endpoint = None

    def _run(self, paths: list[Path], contexts: str, report, control=None):
        if self.before_run is not None:
            self.before_run(paths)
        try:
            return self.library.index(paths, contexts=contexts, on_progress=report, control=control)
        finally:
            self._folders_changed()

    def _folders_changed(self) -> None:
        if self.after_run is not None:
            self.after_run()

    def _run_state(self, state: RunProgress, changes) -> None:
        """A run's state changed (service/runs.py): every client following the events hears it."""
        self.events.publish("run", run=state)
        if changes is not None:
            self.events.changes(changes)

    def _applied(self, summary) -> None:
        """A batch of file changes applied: in a few words for a client's status line, with what failed."""
        words = summary.change_words() + ([f"{len(summary.busy)} still being written"] if summary.busy else [])
        self.events.publish("batch", words=words, failed=[{"path": f.path, "reason": f.reason}
                                                          for f in summary.failed])

    def _failed(self, sentence: str) -> None:
        self.events.publish("error", message=sentence)

    def _follow_the_upgrade(self, lane: WriteLane) -> None:
        """Each step of the LLM upgrade (one document) on the event stream: its start, its progress (at most twice
        a second), its end with what it wrote; a client's panel shows it as the window's did."""
        told_at = 0.0
        stretch = UpgradeStretch(self.library.reads.contexts_awaiting_upgrade)

        def progress(p) -> None:
            nonlocal told_at
            now = time.monotonic()
            if now - told_at >= 0.5:
                told_at = now
                self.events.publish("upgrade", state="running", progress=_progress_dict(stretch.told(p)),
                                    asked_now=lane.asked_now)

        def started(control) -> None:
            stretch.step_started()
            self.events.publish("upgrade", state="started", asked_now=lane.asked_now)

        def ended(summary) -> None:  # None: it failed (the lane's error event says why)
            stretch.step_ended(0 if summary is None else summary.upgraded_chunks + summary.kept_rules)
            self.events.publish("upgrade", state="ended",
                                summary=None if summary is None else dataclasses.asdict(summary))

        lane.on_upgrade_started, lane.upgrade_progress, lane.on_upgrade_step = started, progress, ended

    def _write(self, work: Callable[[], T], wait_s: float | None = EDIT_WAIT_S) -> T:
        """An edit asked through the door, on the write lane (core/runs/lane.py: before batches and runs, and at a
        run's checkpoints). `wait_s` None: as long as it takes (a regeneration, which its own cancel takes
        back)."""
        future = self.lane.edit(work)
        try:
            return future.result(timeout=wait_s)
        except concurrent.futures.CancelledError:
            raise UserError("the service stopped before carrying this out; nothing of it was written") from None
        except concurrent.futures.TimeoutError:
            raise UserError(f"the service is busy with a step that has not ended in {EDIT_WAIT_S:.0f} s; "
                            "the change is still queued and will be made") from None

    def start(self) -> bool:
        """Listen; False when another process already answers for this data folder (it keeps doing so)."""
        if self.endpoint is None:
            return False
        try:
            started = self.endpoint.start()
        except (OSError, UserError) as exc:  # UserError: the socket came out readable by others
            log.warning("the local endpoint is off: cannot listen at %s (%s)", self.endpoint.path, exc)
            return False
        if not started:
            log.info("another process answers for %s; this one does not listen", self.library.data_dir)
        return started

    def warm_up(self) -> None:
        """Load what a first search needs (the embedding model, the indexes), so it is answered at once."""
        try:
            self.library.search("warm up", k=1)
        except UserError:
            pass  # nothing indexed yet: the first index run loads them

    def stop_answering(self) -> None:
        """The endpoint closes: clients see this process gone (a stop past its deadline, service/stop_deadline.py)."""
        if self.endpoint is not None:
            self.endpoint.stop()

    def stop(self, failed: bool = False) -> None:
        """`failed`: the process ends on an error (a damaged catalog, the data folder busy): its clients are not
        told "stopping", which means stopped on purpose (a window waits to be asked before starting another);
        they see it go, and count a service that ends early."""
        self.tools.closing.set()  # a status waiting for a change answers now, not in up to 30 s
        if not failed:
            self.events.publish("stopping")
        self.stop_answering()
        if self._own_lane is not None:
            self._own_lane.stop()  # an upgrade in hand is cut short (within a second)
            self._own_lane.join(timeout=5)


def _progress_dict(progress) -> dict:
    """A step's Progress as JSON carries it (its Changes travel as their own event)."""
    return {k: v for k, v in dataclasses.asdict(progress).items() if k != "changes"}
