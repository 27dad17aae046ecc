"""The CLI's writes with no service running start it, as the window does, and hand it the work (issue 49): the
library has one writer, so a window opened during the run joins it instead of waiting for the terminal's process to
let go. A real `desktop-rag index` and the service it starts; the rest of the suite sets DESKTOP_RAG_START_SERVICE=0
(a script's way), which this test unsets."""

from __future__ import annotations

import json
import os

import pytest

from cli_runner import cli
from window_sessions import stop_the_service

from desktop_rag.service.background_process import who_answers

pytestmark = pytest.mark.slow


def test_index_with_no_service_running_starts_it_and_hands_it_the_run(docs, data_dir):
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    as_a_person = {k: v for k, v in os.environ.items() if k != "DESKTOP_RAG_START_SERVICE"}
    try:
        indexed = cli(data_dir, "index", str(docs), "--contexts", "rules", "--json", env=as_a_person)
        assert "Starting the background service" in indexed.stderr and "Indexing in desktop-rag service" in indexed.stderr
        summary = json.loads(indexed.stdout)  # the shape a run of the command's own prints
        assert summary["indexed"] == 1 and summary["failed"] == [] and summary["cancelled"] is False
        hello = who_answers(data_dir)
        assert hello is not None and hello["role"] == "service"  # it goes on, following the folder
        (docs / "valve.md").write_text("# Valve\n\nThe relief valve opens at three bar.\n")
        edited = cli(data_dir, "context", "1", "--set", "The pump's priming steps.", "--json", env=as_a_person)
        assert json.loads(edited.stdout)["source"] == "manual"  # written by the service: it holds the library
        assert who_answers(data_dir)["pid"] == hello["pid"]
        local = cli(data_dir, "rebuild", "--local", check=False)
        assert local.returncode == 1 and "is writing to this data folder" in local.stderr
    finally:
        stop_the_service(data_dir)
    assert who_answers(data_dir) is None


def test_a_service_killed_under_a_run_it_was_handed_is_named_as_the_service(docs, data_dir):
    """Issue 50 (7): the CLI said "The desktop-rag app stopped during the call" when it was the service."""
    import signal
    import subprocess
    import sys
    import time

    for i in range(300):
        (docs / f"note{i:03}.md").write_text(f"# Note {i}\n\nThe pump primes valve number {i} every morning.\n")
    as_a_person = {k: v for k, v in os.environ.items() if k != "DESKTOP_RAG_START_SERVICE"}
    index = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "index", str(docs),
                              "--contexts", "rules"], env=as_a_person, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        said = ""
        while "Indexing in desktop-rag service" not in said:
            line = index.stderr.readline()
            assert line, f"the index command ended first: {said}"
            said += line
        os.kill(who_answers(data_dir)["pid"], signal.SIGKILL)
        _out, rest = index.communicate(timeout=120)
    finally:
        index.kill()
        deadline = time.monotonic() + 30
        while who_answers(data_dir) is not None and time.monotonic() < deadline:
            time.sleep(0.2)
    assert index.returncode != 0
    assert "The service stopped before the run ended; what it finished is kept" in rest and " app " not in rest, rest
