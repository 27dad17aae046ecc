"""Issue 60, 1: the tray's Quit did not stop the service for more than 3 minutes (it embedded every waiting passage
first). The README promises it gone within 2 s in every state: here the real service, with no fault injected, asked
to stop (as the tray's Quit asks it) while it reads a first run's files, while it embeds them with a queue of runs
behind, while a run is paused, and while it catches up at its start; `desktop-rag stop` (the CLI's own start on top)
once; killed while it catches up, its children end within a second (issue 61); and after all that a window opens
on the library and is answered. Nothing finished is lost."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

from cli_runner import cli, cli_json
from desktop_rag.config import Settings
from desktop_rag.service.endpoint import EndpointClient
from service_processes import services_under
from window_sessions import WAIT_MS, close_session, open_session, stop_the_service

pytestmark = pytest.mark.slow

PROMISE_S = 2.0  # README: Quit and stop end the service within 2 s, whatever it is doing
CLI_START_S = 2.0  # `desktop-rag stop`'s own start on a loaded 2-core machine, on top (test_stop_deadline.py)
CHILDREN_END_S = 1.0  # (see the last assertion)
FILES = 250  # enough for a first run's reading to last past its first seconds


def _start_service(data_dir) -> subprocess.Popen:
    service = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "service"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while True:
        try:
            client = EndpointClient.for_library(data_dir)
            if client is not None:
                client.call("hello")
                client.close()
                return service
        except Exception:  # (not answering yet)
            pass
        assert service.poll() is None and time.monotonic() < deadline, "the service did not start"
        time.sleep(0.2)


def _call(data_dir, method: str, **params):
    client = EndpointClient.for_library(data_dir)
    try:
        return client.call(method, **params)
    finally:
        client.close()


def _until_the_run_is(data_dir, reached, timeout_s: float = 180) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            state = _call(data_dir, "progress")
        except Exception:  # (no run yet)
            state = None
        if state is not None and reached(state):
            return state
        time.sleep(0.1)
    raise AssertionError(f"the run never reached the state asked for: {state}")


def _running(process: psutil.Process) -> bool:
    """Not gone, nor ended and waiting to be reaped by whichever process adopted it (seconds, in a container)."""
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _said(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline()[-3:])
    except psutil.Error:  # (gone, or ended and not yet reaped)
        return f"process {process.pid}, ending"


def _gone_after_quit(data_dir, service: subprocess.Popen, children_gone: dict, state: str) -> float:
    """Seconds from the tray's Quit (its call) until the service is gone; `children_gone[state]`: until its
    children (and theirs) are gone too, with what was left of them at PROMISE_S."""
    main = psutil.Process(service.pid)
    family = [main, *main.children(recursive=True)]
    asked = time.monotonic()
    _call(data_dir, "stop", everything=True)
    main.wait(30)
    service_gone = time.monotonic() - asked
    _, left = psutil.wait_procs(family, timeout=max(PROMISE_S - service_gone, 0.01))
    lingering = [_said(process) for process in left]
    psutil.wait_procs(family, timeout=30)
    children_gone[state] = time.monotonic() - asked
    print(f"  {state}: the service gone after {service_gone:.2f} s, its children after {children_gone[state]:.2f} s"
          f" (at {PROMISE_S} s: {lingering or 'none'})")
    return service_gone


def test_quit_ends_the_service_within_two_seconds_in_every_state_and_a_window_opens_after(qtbot, docs, data_dir):
    for n in range(FILES):
        (docs / f"log{n:03}.md").write_text(f"# Log {n}\n\n" + " ".join(
            f"The winch {n} was greased {m} times before its cable {m * n} was replaced." for m in range(30)) + "\n")
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    took: dict[str, float] = {}
    children: dict[str, float] = {}

    service = _start_service(data_dir)
    _call(data_dir, "index", paths=[str(docs)], contexts="rules")
    _until_the_run_is(data_dir, lambda s: s["phases"].get("parse", {}).get("done", 0) >= 20)
    took["reading a first run's files"] = _gone_after_quit(data_dir, service, children, "reading a first run's files")

    service = _start_service(data_dir)  # its catch-up reads the rest: stopped while it does
    _until_the_run_is(data_dir, lambda s: s["kind"] == "catch-up" and s["phases"].get("parse", {}).get("done", 0) > 0)
    took["catching up at its start"] = _gone_after_quit(data_dir, service, children, "catching up at its start")

    # Killed (kill -9, a crash) while it catches up: its children end within a second, whatever they are doing
    # (issue 61: the vector store wrote beside the next service for seconds, the language model for minutes).
    service = _start_service(data_dir)
    _until_the_run_is(data_dir, lambda s: s["kind"] == "catch-up" and s["phases"].get("parse", {}).get("done", 0) > 0)
    family = psutil.Process(service.pid).children(recursive=True)
    service.kill()
    service.wait()
    killed_at = time.monotonic()
    while any(_running(process) for process in family) and time.monotonic() - killed_at < 30:
        time.sleep(0.02)
    children["killed: its children"] = time.monotonic() - killed_at
    print(f"  killed while catching up: its {len(family)} children ended {children['killed: its children']:.2f} s"
          " after it")
    assert children["killed: its children"] < 1.0

    service = _start_service(data_dir)
    _until_the_run_is(data_dir, lambda s: s["kind"] == "catch-up" and s["phases"].get("embed", {}).get("done", 0) > 0)
    _call(data_dir, "index", paths=[str(docs)], contexts="rules")  # a run queued behind
    took["embedding, a run queued behind"] = _gone_after_quit(data_dir, service, children, "embedding, a run queued behind")

    service = _start_service(data_dir)
    state = _until_the_run_is(data_dir, lambda s: s["state"] == "running")
    _call(data_dir, "pause_background", paused=True)
    _until_the_run_is(data_dir, lambda s: s["run_id"] == state["run_id"] and s["held"])
    took["a run paused"] = _gone_after_quit(data_dir, service, children, "a run paused")
    settings = Settings.load(data_dir)  # (the LLM's pause is a setting, kept: let go for what follows)
    settings.llm_upgrade_paused = False
    settings.save(data_dir)

    service = _start_service(data_dir)
    _until_the_run_is(data_dir, lambda s: s["state"] in ("running", "finished"))  # (its catch-up may be done)
    asked = time.monotonic()
    stopped = cli(data_dir, "stop", check=False, timeout=60)
    psutil.wait_procs([psutil.Process(service.pid)] if service.poll() is None else [], timeout=30)
    took["`desktop-rag stop` (its own start too)"] = time.monotonic() - asked
    assert stopped.returncode == 0 and "Stopped" in stopped.stderr, stopped.stderr

    print("\n".join(f"{state}: gone {seconds:.2f} s after it was asked" for state, seconds in took.items()))
    assert not services_under(data_dir)
    over = {state: seconds for state, seconds in took.items()
            if seconds > PROMISE_S + (CLI_START_S if "desktop-rag stop" in state else 0)}
    assert over == {}
    # Its children end as it does (the model's conversion went on 20 s: platform.processes.end_with_parent); a
    # store's last write takes them to 1.2-1.8 s on an idle 2-core machine: a second more on a loaded one.
    assert {state: seconds for state, seconds in children.items() if seconds > PROMISE_S + CHILDREN_END_S} == {}

    session = open_session(qtbot, data_dir)  # the next window opens, is answered, and finishes the work
    try:
        qtbot.waitUntil(lambda: _call(data_dir, "stats")["chunks_pending_embedding"] == 0 and (
            _call(data_dir, "status")["doing"] == "idle"), timeout=WAIT_MS)
    finally:
        close_session(session)
        stop_the_service(data_dir)
    stats = cli_json(data_dir, "stats", "--json")
    assert stats["documents"]["indexed"] == FILES
    assert cli_json(data_dir, "doctor", "--json")["found"] == []
