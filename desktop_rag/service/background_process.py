"""The background service of a data folder as its front ends see it (issue 40): who answers for the library now,
starting the service when none does (the quick popup, the tray, the window as it closes), handing the library over
from it (the window as it opens) and stopping it (`desktop-rag stop`, the tray's Quit).

One process writes a data folder at a time (storage/writer_lock.py). The window holds the library while it is
open: it asks a running service to stop, and starts one as it closes when "Keep the index fresh when the window is
closed" is on; the service catches up with what changed in between, as at every start.
"""

from __future__ import annotations

import logging
import subprocess
import time
from pathlib import Path

from desktop_rag.platform.autostart import command_for
from desktop_rag.platform.file_locks import lock, unlock
from desktop_rag.service.endpoint import EndpointClient, EndpointGone, endpoint_path
from desktop_rag.errors import UserError

log = logging.getLogger(__name__)

SERVICE_ROLE = "service"
APP_ROLE = "app"  # the window's process, holding the library while it is open
# How long a front end waits for the process it asked to stop: a stop promises 2 s (a model's call is cut short
# within one); past this something is wrong, and the front end says so.
STOP_WAIT_S = 5.0
# A service that has begun but does not answer yet (its first seconds: imports, the catalog) is waited for this
# long before the window takes the library anyway.
STARTING_WAIT_S = 30.0
# How long the window waits for the service it asked to stop: past the 2 s a stop promises, a service caught in its
# first seconds on a busy machine (loading, setting up the folders' watches) still hands over.
HANDOVER_WAIT_S = 15.0


def hold_the_service_mark(data_dir: Path):
    """Mark this process as the data folder's service from its first moment, before it answers: a window
    opening meanwhile waits for it to answer and asks it to stop, instead of racing it for the library. Returns
    the open mark (held until the process ends), or None when another service holds it."""
    handle = open(_mark_path(data_dir), "a+", encoding="utf-8")  # noqa: SIM115 — held open: it is the mark
    try:
        lock(handle)
    except OSError:
        handle.close()
        return None
    note_the_end(data_dir, orderly=False)
    return handle


def service_starting(data_dir: Path) -> bool:
    """A service of the data folder holds its mark (it may not answer yet)."""
    try:
        handle = open(_mark_path(data_dir), "a+", encoding="utf-8")  # noqa: SIM115 — closed below
    except OSError:
        return False
    with handle:
        try:
            lock(handle)
        except OSError:
            return True
        unlock(handle)
        return False


def _mark_path(data_dir: Path) -> Path:
    return endpoint_path(data_dir).with_suffix(".service")


def note_the_end(data_dir: Path, orderly: bool) -> None:
    """The process holding the library (the service, or the window) says how it ended: in order (`desktop-rag
    stop`, Quit, Ctrl-C, a plain kill, the session's end, the window closed) or not yet (it has just begun). One
    gone without an orderly end was killed or crashed: the tray starts the service (again)."""
    path = endpoint_path(data_dir).with_suffix(".ended")
    try:
        if orderly:
            path.touch()
        else:
            path.unlink(missing_ok=True)
    except OSError as exc:  # the runtime folder gone (the session ends): nobody is left to ask
        log.info("the service's end not noted: %s", exc)


def ended_in_order(data_dir: Path) -> bool:
    try:
        return endpoint_path(data_dir).with_suffix(".ended").exists()
    except UserError:
        return True  # no runtime folder: nothing to restart into either


def who_answers(data_dir: Path) -> dict | None:
    """The process answering for the data folder ({"served_by", "role", "pid"}), or None when nobody does."""
    client = EndpointClient.for_library(data_dir)
    if client is None:
        return None
    try:
        return client.call("hello")
    except (EndpointGone, UserError):
        return None
    finally:
        client.close()


def start_detached(data_dir: Path, *arguments: str) -> subprocess.Popen:
    """A desktop-rag command on this data folder in a session of its own: it goes on when whoever started it
    ends. What it says goes to its log in the data folder (logs/service.log), not to a terminal nobody reads."""
    return subprocess.Popen(command_for(data_dir, *arguments), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def start_service(data_dir: Path) -> subprocess.Popen:
    """The service of this data folder."""
    log.info("starting the background service of %s", data_dir)
    return start_detached(data_dir, "service")


def start_tray(data_dir: Path) -> None:
    """The tray icon of this data folder (ui/tray.py); it ends at once if one runs."""
    start_detached(data_dir, "tray")


def stop_answering(data_dir: Path, wait_s: float = STOP_WAIT_S, only_role: str | None = None) -> str | None:
    """Ask the process answering for the data folder to stop, and wait until it is gone. Returns what it was
    ("desktop-rag service (process 12)"), or None when nothing answered (or it is not of `only_role`). Raises
    UserError when it still answers after `wait_s`."""
    client = EndpointClient.for_library(data_dir)
    if client is None:
        return None
    try:
        hello = client.call("hello")
        if only_role is not None and hello.get("role") != only_role:
            return None
        answer = client.call("stop")
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


def take_over_from_the_service(data_dir: Path) -> str | None:
    """Stop the data folder's service (waiting for one that is starting to answer first): the window holds the
    library while it is open. Returns what was stopped, or None; raises UserError when it does not stop."""
    if who_answers(data_dir) is None and service_starting(data_dir):
        wait_for_answer(data_dir, STARTING_WAIT_S)
    return stop_answering(data_dir, HANDOVER_WAIT_S, only_role=SERVICE_ROLE)


def wait_for_answer(data_dir: Path, timeout_s: float) -> dict | None:
    """The hello of the process answering for the data folder once one does, or None after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        hello = who_answers(data_dir)
        if hello is not None:
            return hello
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.2)
