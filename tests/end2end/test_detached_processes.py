"""A process started detached (platform/processes.py) is waited for as it ends: the tray, which starts a window
each time Open is chosen and lives on, kept each window that had closed as a <defunct> entry (issue 60, 7)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from desktop_rag.platform.processes import start_detached_process


def _state(pid: int) -> str | None:
    """The process's state letter from /proc ("Z": ended, not waited for), None once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_detached_process_that_ends_is_not_left_defunct():
    process = start_detached_process([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 20
    while _state(process.pid) not in (None, "Z") and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # (the waiting thread's turn)
    assert _state(process.pid) is None, "left defunct"
    assert process.poll() == 0  # its starter still hears how it ended
