"""`desktop-rag stop` 0–3 s after `desktop-rag service &`, four busy processes beside them on the CI's 2 cores
(issue 61: at load 11–16, 3 of 10 stopped; a stop in the first 0.2 s said "no service is running" and the service
ran on; later ones "still answers after 5 s"). Real processes: the service, the `stop` command, the load."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from cli_runner import cli
from desktop_rag.config import Settings
from desktop_rag.platform.autostart import service_command

pytestmark = pytest.mark.slow

BUSY = 4
TRIALS = 10
STOPPED_WITHIN_S = 2.0  # the README's promise for Quit and stop


@pytest.fixture
def busy_machine():
    """Processes that keep every core busy (at the user's priority, above the service's background one)."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(BUSY)]
    yield
    for loop in loops:
        loop.kill()
        loop.wait()


def test_stop_soon_after_a_service_starts_stops_it_within_two_seconds_beside_four_busy_processes(tmp_path,
                                                                                                 busy_machine):
    late = []
    for trial in range(TRIALS):
        data_dir = tmp_path / f"data{trial}"
        data_dir.mkdir(mode=0o700)
        Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
        service = subprocess.Popen(service_command(data_dir), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(trial * 3 / (TRIALS - 1))  # 0 s (its imports), ..., 3 s (answering)
            asked = time.monotonic()
            said = cli(data_dir, "stop", timeout=60).stderr
            service.wait(timeout=30)
            took = time.monotonic() - asked
        finally:
            if service.poll() is None:
                service.kill()
        assert "Stopped desktop-rag service" in said, said
        if took > STOPPED_WITHIN_S:
            late.append(f"trial {trial}: {took:.1f} s ({said.strip()})")
    assert not late, late
