"""A process that holds a library answers for it: the endpoint, the tools behind it, and the runs agents start.
`serve`, `watch` and `mcp` run them themselves on their write lane (core/runs/lane.py); the app gives them to its
window."""

from __future__ import annotations

import logging
from pathlib import Path
from collections.abc import Callable

from desktop_rag.core.runs.lane import WriteLane
from desktop_rag.errors import UserError
from desktop_rag.service.endpoint import EndpointServer
from desktop_rag.service.runs import RunQueue, RunRegistry
from desktop_rag.service.tools import LibraryTools, request_handler

log = logging.getLogger(__name__)


class LibraryHost:
    def __init__(self, library, served_by: str, start_run: Callable[[list[str], str], str] | None = None,
                 runs: RunRegistry | None = None, lane: WriteLane | None = None, upgrade: str = "never",
                 on_stop: Callable[[], None] | None = None, role: str = ""):
        """`start_run(paths, contexts) -> run id`: how this process runs an agent's re-indexing (default: on
        `lane`, or on a write lane of its own that upgrades contexts as `upgrade` says — see WriteLane);
        `on_stop()`: how `desktop-rag stop` ends this process (None: it is not stopped from outside); `role`: what
        it is ("service", "app", …), as `hello` tells a front end."""
        self.library = library
        self.runs = runs or RunRegistry()
        self.after_run: Callable[[], None] | None = None  # called when each of its own runs ends
        self._own_lane = None
        if start_run is None:
            if lane is None:
                lane = self._own_lane = WriteLane(library, upgrade=upgrade)
                lane.start()
            queue = RunQueue(self.runs, lane, self._run)
            start_run = lambda paths, contexts: queue.submit(paths, contexts).run_id  # noqa: E731
        self.tools = LibraryTools(library, self.runs, start_run, served_by)
        self.tools.on_stop = on_stop
        self.tools.role = role
        self.handle = request_handler(self.tools)  # the one door: arguments checked, then the operation
        try:
            self.endpoint: EndpointServer | None = EndpointServer(library.data_dir, self.handle)
        except UserError as exc:  # no private folder for the socket: everything works, only slower elsewhere
            log.warning("the local endpoint is off: %s", exc)
            self.endpoint = None

    def _run(self, paths: list[Path], contexts: str, report):
        try:
            return self.library.index(paths, contexts=contexts, on_progress=report)
        finally:
            if self.after_run is not None:
                self.after_run()

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

    def stop(self) -> None:
        self.tools.closing.set()  # a status waiting for a change answers now, not in up to 30 s
        if self.endpoint is not None:
            self.endpoint.stop()
        if self._own_lane is not None:
            self._own_lane.stop()  # an upgrade in hand is cut short (within a second)
            self._own_lane.join(timeout=5)
