"""The background service of a data folder as its front ends see it (issues 40, 49): who answers for the library,
starting the service when none does (the window, the quick popup, `index`, `mcp`: whichever needs it first) and
stopping it (`desktop-rag stop`, the tray's Quit, the window closed with "Keep the index fresh" off).

The service is the library's one writer and holds it for its whole life; every front end is its client and nothing
is ever handed over (docs/architecture.md). It catches up with what changed while it was off at every start.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from desktop_rag.platform import processes
from desktop_rag.platform.autostart import command_for
from desktop_rag.service import wire
from desktop_rag.service.endpoint import EndpointClient, EndpointGone
from desktop_rag.service.service_mark import service_starting, starting_pid
from desktop_rag.errors import UserError
from desktop_rag.core.library.access import library_writable

log = logging.getLogger(__name__)

SERVICE_ROLE = "service"
# How long a front end waits for the process it asked to stop: a stop promises 2 s (a model's call is cut short
# within one); past this something is wrong, and the front end says so.
STOP_WAIT_S = 5.0


def who_answers(data_dir: Path) -> wire.Hello | None:
    """The process answering for the data folder ({"served_by", "role", "pid"}), or None when nobody does — also
    when the one answering was asked to stop: it is waited for until it is gone (its 2 s), so that a front end
    launched meanwhile starts afresh instead of joining a service on its way out (issue 60: every window opened
    after the tray's Quit closed again at once, told to quit with it)."""
    deadline = time.monotonic() + STOP_WAIT_S
    while True:
        client = EndpointClient.for_library(data_dir)
        if client is None:
            return None
        try:
            hello = client.run(wire.SayHello())
        except (EndpointGone, UserError):
            return None
        finally:
            client.close()
        if not hello.get("stopping"):
            return hello
        if time.monotonic() >= deadline:  # still going: whoever starts the next waits for its hold to end
            return None
        time.sleep(0.1)


def start_detached(data_dir: Path, *arguments: str) -> subprocess.Popen:
    """A desktop-rag command on this data folder in a session of its own: it goes on when whoever started it
    ends. What it says goes to its log in the data folder (logs/service.log), not to a terminal nobody reads."""
    return processes.start_detached_process(command_for(data_dir, *arguments))


def start_service(data_dir: Path, rebuild_damaged: bool = False) -> subprocess.Popen:
    """The service of this data folder; `rebuild_damaged`: its damaged catalog made anew from the folders first."""
    log.info("starting the background service of %s", data_dir)
    return start_detached(data_dir, "service", *(["--rebuild-damaged-catalog"] if rebuild_damaged else []))


def start_tray(data_dir: Path) -> None:
    """The tray icon of this data folder (ui/tray.py); it ends at once if one runs."""
    start_detached(data_dir, "tray")


def stop_answering(data_dir: Path, wait_s: float = STOP_WAIT_S, only_role: str | None = None,
                   everything: bool = False) -> str | None:
    """Ask the process answering for the data folder to stop, and wait until it is gone. Returns what it was
    ("desktop-rag service (process 12)"), or None when nothing answered (or it is not of `only_role`). Raises
    UserError when it still answers after `wait_s`."""
    client = EndpointClient.for_library(data_dir)
    if client is None and only_role in (None, SERVICE_ROLE) and service_starting(data_dir):
        return _end_starting_service(data_dir, wait_s)
    if client is None:
        return None
    try:
        hello = client.run(wire.SayHello())
        if only_role is not None and hello.get("role") != only_role:
            return None
        answer = client.run(wire.Stop(everything=everything))
    except EndpointGone:  # it was stopping already
        return None
    finally:
        client.close()
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        still = EndpointClient.for_library(data_dir)
        if still is None:
            return answer["served_by"]
        still.close()
        time.sleep(0.05)
    raise UserError(f"{answer['served_by']} was asked to stop but still answers after {wait_s:g} s")


def _end_starting_service(data_dir: Path, wait_s: float) -> str | None:
    """A service that holds its mark and does not answer yet (its imports, its catalog: seconds under load) is
    ended by a signal rather than waited for: it has written nothing a signal could cut short, and once it has
    begun its work the signal is its Ctrl-C. Waiting for it to answer made `stop` take the service's whole start
    (issue 61: at load 16, "asked to stop but still answers after 5 s")."""
    pid = starting_pid(data_dir)
    deadline = time.monotonic() + wait_s
    while pid is None and service_starting(data_dir) and time.monotonic() < deadline:  # (its id, written next)
        time.sleep(0.02)
        pid = starting_pid(data_dir)
    if pid is None:
        return None
    processes.ask_to_end(pid)
    while time.monotonic() < deadline:
        if not service_starting(data_dir):
            return f"desktop-rag service (process {pid}, still starting)"
        time.sleep(0.05)
    raise UserError(f"desktop-rag service (process {pid}) was asked to stop as it started but still runs after "
                    f"{wait_s:g} s")


START_SERVICE_VARIABLE = "DESKTOP_RAG_START_SERVICE"  # "0": a front end with no service running starts none
# How long a front end waits for the service it started (its imports and catalog: ~3 s on 2 cores idle, 10-20 s
# under load, more when the folders' watches are many); one that ends first is given up on at once.
SERVICE_START_WAIT_S = 90.0


def may_start_service() -> bool:
    """Whether a CLI write or `mcp` may start the service (DESKTOP_RAG_START_SERVICE=0: scripts, CI, the tests)."""
    return os.environ.get(START_SERVICE_VARIABLE, "1") != "0"


def answering_or_started(data_dir: Path, on_start: Callable[[], None] = lambda: None,
                         on_started: Callable[[subprocess.Popen], None] = lambda process: None,
                         give_up: Callable[[], bool] = lambda: False,
                         rebuild_damaged: bool = False) -> wire.Hello | None:
    """The hello of the service answering for the data folder, started first when none answers nor is starting
    — the one way every front end (the window, the quick popup, the CLI's writes, `mcp`) starts it and waits.
    `on_start()` is told before it is started, `on_started(process)` after; None when it did not answer within
    SERVICE_START_WAIT_S, ended first, or `give_up()` (a window closing) said so — or at once, starting none,
    when the data folder cannot be written. `rebuild_damaged`: see start_service."""
    hello = who_answers(data_dir)
    if hello is not None:
        return hello
    if not library_writable(data_dir):  # it could not hold the library: searched where it is asked, read-only
        return None
    if service_starting(data_dir):  # another's service, starting: None as soon as it ends without answering (its
        # starter, which counts the services that end at once, starts the next: a waiter starting one too made
        # five starts where three were to be tried; the window's test)
        return wait_for_answer(data_dir, SERVICE_START_WAIT_S, give_up=give_up, while_starting=True)
    on_start()
    started = start_service(data_dir, rebuild_damaged)
    on_started(started)
    return wait_for_answer(data_dir, SERVICE_START_WAIT_S, started, give_up)


def wait_for_answer(data_dir: Path, timeout_s: float, started: subprocess.Popen | None = None,
                    give_up: Callable[[], bool] = lambda: False, while_starting: bool = False) -> wire.Hello | None:
    """The hello of the process answering for the data folder once one does, or None after `timeout_s` — or at once
    when `started`, the service this process started, has ended without answering (a damaged catalog, a data
    folder it may not write: its log says why), or when `give_up()`. `while_starting`: None at once too when no
    service holds its mark any more (one this process did not start, which ended: the window's calls waited the
    whole 90 s for a service that had met a damaged catalog, the window's event stream waiting behind them)."""
    deadline = time.monotonic() + timeout_s
    while True:
        hello = who_answers(data_dir)
        if hello is not None:
            return hello
        if time.monotonic() >= deadline or (started is not None and started.poll() is not None) or give_up():
            return None
        if while_starting and not service_starting(data_dir):
            return who_answers(data_dir)  # (it may have answered as it let go of its mark: asked once more)
        time.sleep(0.2)
