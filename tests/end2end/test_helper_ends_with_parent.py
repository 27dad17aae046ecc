"""A helper started with end_with_parent (platform/processes.py) ends with the process that started it: the model's
conversion went on for 20 s after the service had quit (issue 60). Real processes, a second."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

# A parent that starts a helper (end_with_parent, then a long sleep), prints its pid, and waits for it.
PARENT = """
import subprocess, sys
helper = subprocess.Popen([sys.executable, "-c", "from desktop_rag.platform import processes; "
                           "processes.end_with_parent(); import time; time.sleep(60)"])
print(helper.pid, flush=True)
helper.wait()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_helper_ends_when_the_process_that_started_it_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    helper = psutil.Process(int(parent.stdout.readline()))
    time.sleep(0.5)  # (the helper has asked for the signal)
    assert helper.is_running()
    parent.kill()
    parent.wait()
    gone, _ = psutil.wait_procs([helper], timeout=2)
    assert gone, "the helper outlived the process that started it"
