"""The window's line to the data folder's service, the library's one writer (issue 49): calls, and the one event
stream it follows.

`call(method, **params)` is blocking and made on the task runner's threads, each with a connection of its own.
A thread follows the service's events (service/events.py, a long poll) and hands each to the window's thread as a
signal: what every write changed, each run's state, each step of the LLM upgrade, what failed, the status.

The service is started when none answers (the window opening is one of the front ends that need it). When it goes
away, it is either stopped on purpose — `desktop-rag stop`, the tray's Quit: it said "stopping" first — and the
window says so and waits for the person to start it again (`start_again`), or it died, and the link starts it
again at once and follows the new one (`lost`, then `back`; the views read everything anew: `missed`).
"""

from __future__ import annotations

import logging
import subprocess
import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from desktop_rag.core.indexing.changes import Changes
from desktop_rag.errors import UserError
from desktop_rag.logs import why_it_ended
from desktop_rag.service.background_process import answering_or_started, who_answers
from desktop_rag.service.client import LibraryClient
from desktop_rag.service.endpoint import EndpointClient, EndpointGone
from desktop_rag.service import wire
from desktop_rag.service.wire import A, Request, run_through
from desktop_rag.core.library.access import library_writable

log = logging.getLogger(__name__)

EVENTS_WAIT_S = 20.0  # a long poll's longest wait: under the endpoint's idle timeout (60 s)
# Services started in a row that ended early before the window stops starting them (each says why in
# logs/service.log; the window says so and offers to start it again, or to rebuild a damaged catalog).
STARTS_BEFORE_GIVING_UP = 3
# A service this window started that ends sooner than this ended early, whether it answered first or not: one on a
# catalog damaged inside answers, then ends at its first write's check (measured: 9 started in a row, each
# answering, before this counted them).
ENDED_EARLY_S = 60.0
ENDING_WAIT_S = 3.0
CALL_ATTEMPTS = 2  # a call that met a service gone is asked once more of the one started in its place


class ServiceUnavailable(UserError):
    what = "The background service is not running: "


class ServiceLink(QObject):
    changed = Signal(object)  # Changes
    run_state = Signal(dict)  # a run's state (service/runs.py RunState.as_dict)
    upgrade = Signal(dict)  # a step of the LLM upgrade: {"state": started|running|ended, …}
    failed = Signal(str)  # a sentence: what failed in the service, and what it does about it
    applied = Signal(dict)  # a batch of file changes applied: {"words": ["1 indexed", …], "failed": [...]}
    status = Signal(dict)  # what the service is doing (service/activity.py), when it changes
    lost = Signal()  # it went away unasked: being started again
    back = Signal(str)  # it answers (again): what it is ("desktop-rag service (process 12)")
    stopped = Signal()  # stopped on purpose: not started again until start_again()
    read_only = Signal()  # the library cannot be written: no service holds it; searched in this process
    cannot_start = Signal(str)  # services started in a row ended without answering (why, from its log): not again
    missed = Signal()  # events were missed (a new service, or far behind): every view reads anew
    quit_all = Signal()  # the tray's Quit: the service stops, and the window with it
    answer = Signal(dict)  # a step of a question being answered: {"ask_id", "state": evidence|sentence|ended, …}

    def __init__(self, data_dir: Path, parent: QObject | None = None):
        super().__init__(parent)
        self.data_dir = data_dir
        self._closing = threading.Event()
        self._restart = threading.Event()  # the person asked to start a stopped service again
        self._local = threading.local()  # a connection per calling thread
        self._clients: list[EndpointClient] = []
        self._clients_lock = threading.Lock()
        self._starting = threading.Lock()
        self._stopped_on_purpose = False
        self._rebuild_damaged = False  # the person asked for a damaged catalog to be made anew by the next start
        self.served_by = ""
        self.started: subprocess.Popen | None = None  # the service this window started, if it did
        self._ended_early = 0  # services started in a row that ended within ENDED_EARLY_S
        self._started_at = 0.0
        # A library this process may not write (a read-only disk, a copy, another user's): no service could hold
        # it, so none is started; the window's calls are answered in its own process, which only reads (issue 50).
        self.library_read_only = not library_writable(data_dir)
        self._answered_here: LibraryClient | None = None
        self._follower = threading.Thread(target=self._follow, name="desktop-rag service events", daemon=True)

    # -- calls (on worker threads) ------------------------------------------------------------------------------

    def run(self, request: Request[A]) -> A:
        """A declared operation (service/wire.py), its answer typed as declared."""
        return run_through(self.call, request)

    def call(self, method: str, **params):
        if self.library_read_only:
            return self._here().call(method, **params)
        for attempt in range(CALL_ATTEMPTS):
            client = self._client()
            try:
                return client.call(method, **params)
            except EndpointGone:
                self._drop_client()
                if attempt + 1 == CALL_ATTEMPTS or method not in _ASKED_AGAIN:
                    raise
        raise AssertionError("unreachable")

    def _here(self) -> LibraryClient:
        with self._starting:
            if self._answered_here is None:
                self._answered_here = LibraryClient(self.data_dir, local_only=True, read_only=True,
                                                    served_by="this window (the library is read-only)")
            return self._answered_here

    def _client(self) -> EndpointClient:
        client = getattr(self._local, "client", None)
        if client is None:
            client = self._connect()
            self._local.client = client
            with self._clients_lock:
                self._clients.append(client)
        return client

    def _drop_client(self) -> None:
        client = getattr(self._local, "client", None)
        self._local.client = None
        if client is not None:
            with self._clients_lock:
                if client in self._clients:
                    self._clients.remove(client)
            client.close()

    def _connect(self) -> EndpointClient:
        """A connection to the service; started if none answers, unless it was stopped on purpose."""
        client = EndpointClient.for_library(self.data_dir)
        if client is not None:
            return client
        if self._stopped_on_purpose or self._closing.is_set():
            raise ServiceUnavailable("it was stopped; start it again from the window's status line")
        self.ensure_running()
        client = EndpointClient.for_library(self.data_dir)
        if client is None:
            raise ServiceUnavailable("it did not start: logs/service.log in the data folder says why")
        return client

    def stop_the_service_started(self) -> bool:
        """The service this window started, ended if it does not answer yet (a window closed in its first second,
        with "Keep the index fresh" off: asked to stop through the endpoint, it was not there yet and went on, left
        running). True when there was one to end."""
        started = self.started
        if started is None or started.poll() is not None:
            return False
        started.terminate()  # (SIGTERM: as Ctrl-C, before it holds anything)
        return True

    def ensure_running(self) -> wire.Hello:
        """The service's hello, starting it when none answers (and none is starting); ServiceUnavailable when it
        does not answer within SERVICE_START_WAIT_S or ended first."""
        with self._starting:
            hello = answering_or_started(self.data_dir, on_start=lambda: log.info(
                "no service answers for %s: starting one", self.data_dir), on_started=self._note_started,
                                         give_up=self._closing.is_set, rebuild_damaged=self._rebuild_damaged)
            self._rebuild_damaged = False
        if hello is None:
            raise ServiceUnavailable("it did not answer: logs/service.log in the data folder says why")
        return hello

    def _note_started(self, process: subprocess.Popen) -> None:
        self.started = process
        self._started_at = time.monotonic()

    # -- the event stream (its own thread) ----------------------------------------------------------------------

    def start(self) -> None:
        self._follower.start()

    def start_again(self, rebuild_damaged: bool = False) -> None:
        """The person asked to start a service that was stopped on purpose (or could not start); `rebuild_damaged`:
        asked for a damaged catalog to be made anew from the folders, by the service before it opens it."""
        self._rebuild_damaged = rebuild_damaged
        self._stopped_on_purpose = False
        self._restart.set()

    def _follow(self) -> None:
        if self.library_read_only:
            self.served_by = "this window (the library is read-only)"
            self.back.emit(self.served_by)  # the views read the catalog; then the window says what it cannot do
            self.read_only.emit()
            self._closing.wait()
            return
        after: int | None = None
        instance: str | None = None
        status_version: str | None = None
        client: EndpointClient | None = None
        known_pid: int | None = None  # the service this window has followed
        while not self._closing.is_set():
            try:
                if client is None:
                    client = self._connect()
                    hello = client.run(wire.SayHello())
                    if hello.get("stopping") and hello["pid"] != known_pid:
                        # On its way out before this window knew it: its stop is not ours to obey (issue 60: a
                        # window opened after the tray's Quit closed at once). One this window followed tells its
                        # stream "stopping", which the window does obey.
                        client.close()
                        client = None
                        who_answers(self.data_dir)  # (waits for it to be gone; the next connection starts one)
                        continue
                    known_pid = hello["pid"]
                    self.served_by = hello["served_by"]
                    self.back.emit(self.served_by)
                answer = client.run(wire.Events(after=after, instance=instance, wait_s=EVENTS_WAIT_S,
                                                status=status_version))
            except (EndpointGone, OSError, UserError) as exc:
                if client is not None:
                    client.close()
                client = None
                if self._closing.is_set():
                    return
                self._went_away(exc)
                continue
            if answer["missed"] and after is not None:
                self.missed.emit()
            for run in answer.get("runs", ()):  # joining: the runs in hand, as they stand
                self.run_state.emit(run)
            for event in answer["events"]:
                self._tell(event)
            after, instance = answer["last"], answer["instance"]
            if answer["status"]["version"] != status_version:
                status_version = answer["status"]["version"]
                self.status.emit(answer["status"])
        if client is not None:
            client.close()

    def _tell(self, event: dict) -> None:
        kind = event["kind"]
        if kind == "changes":
            self.changed.emit(Changes.from_dict(event["changes"]))
        elif kind == "run":
            self.run_state.emit(event["run"])
        elif kind == "upgrade":
            self.upgrade.emit(event)
        elif kind == "batch":
            self.applied.emit(event)
        elif kind == "error":
            self.failed.emit(event["message"])
        elif kind == "answer":
            self.answer.emit(event)
        elif kind == "stopping":
            self._stopped_on_purpose = True
            if event.get("everything"):
                self.quit_all.emit()

    def _went_away(self, exc: Exception) -> None:
        started = self.started
        if started is not None and started.poll() is None:
            try:  # a service whose connection closed as it ended is given a moment to be gone
                started.wait(timeout=ENDING_WAIT_S)
            except subprocess.TimeoutExpired:
                pass  # alive: only its connection went
        if started is not None and started.poll() is not None:
            ended_early = time.monotonic() - self._started_at < ENDED_EARLY_S
            self._ended_early = self._ended_early + 1 if ended_early else 0
        if self._ended_early >= STARTS_BEFORE_GIVING_UP:
            log.warning("%d services ended within a minute of their start: not started again until the person asks",
                        self._ended_early)
            self._ended_early = 0
            self._stopped_on_purpose = True
            self.cannot_start.emit(why_it_ended(self.data_dir, "service") or "")
            self._wait_to_be_asked()
            return
        if self._stopped_on_purpose:
            log.info("the service was stopped: waiting for the person to start it again")
            self.stopped.emit()
            self._wait_to_be_asked()
            return
        log.warning("the service went away (%s): starting it again", exc)
        self.lost.emit()
        self._closing.wait(0.5)  # a service that dies at once is not started again and again in a tight loop

    def _wait_to_be_asked(self) -> None:
        self._restart.clear()
        while not self._restart.wait(0.5):
            if self._closing.is_set():
                return

    # -- the end --------------------------------------------------------------------------------------------

    def close(self) -> None:
        """The window closes: within a long poll's answer at most; the service goes on."""
        self._closing.set()
        if self._answered_here is not None:
            self._answered_here.close()
        with self._clients_lock:
            clients, self._clients = self._clients, []
        for client in clients:
            try:
                client.close()
            except OSError:
                pass


# A call asked again of a new service when the first one died under it: reads, whose answer would be the same.
_ASKED_AGAIN = {"search", "stats", "hello", "open_hit", "prepare_search", "events"}
