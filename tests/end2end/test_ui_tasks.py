"""The window's task runner (ui/tasks.py) in a real process. Its lanes are Python threads: with QThreadPools, the
end-to-end suite once hung for good in a pool's C++ destructor (QThreadPool::waitForDone under a window's deferred
delete) while the job it waited for, an upgrade's embedding that a closed window had cut short, and a read both
waited for the GIL. Here: a runner deleted with its window while a job runs returns, and the job's thread ends
once the runner is closed (no thread left behind per window)."""

import os
import subprocess
import sys

SCRIPT = """
import threading, time
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication, QWidget
from desktop_rag.ui.tasks import TaskRunner

app = QApplication([])
window = QWidget()
runner = TaskRunner(window)
started = threading.Event()

def work(report):
    started.set()
    time.sleep(0.5)  # in C without the GIL, as ONNX Runtime embeds
    return sum(range(1000))  # then Python again, which needs the GIL

runner.write(work)
started.wait()
print("lane threads:", sorted(t.name for t in threading.enumerate() if t.name.startswith("desktop-rag")))
runner.close()
window.deleteLater()  # the window closes, and its runner with it: deleted by the event loop
QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
time.sleep(1.0)
print("left:", sorted(t.name for t in threading.enumerate() if t.name.startswith("desktop-rag")), flush=True)
"""


def test_a_runner_deleted_while_its_job_runs_returns_and_leaves_no_thread():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    try:
        result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=30, env=env)
    except subprocess.TimeoutExpired:
        raise AssertionError("deleting the runner waited for its job while holding the GIL: a deadlock") from None
    assert "lane threads: ['desktop-rag write']" in result.stdout, result.stdout + result.stderr
    assert "left: []" in result.stdout, result.stdout + result.stderr


def test_a_search_is_answered_while_the_windows_own_reads_are_in_hand(qtbot):
    """A window opening on a 110k-chunk library reads the folders' states and the upgrade's backlog (0.8 s); a
    search typed meanwhile waited behind them on the read lane. It has a lane of its own."""
    import threading

    from desktop_rag.ui.tasks import TaskRunner

    runner = TaskRunner()
    read_may_end = threading.Event()
    answered: list[str] = []
    runner.read(lambda: read_may_end.wait(10), on_done=lambda _: answered.append("read"))
    runner.search(lambda: "hits", on_done=answered.append)
    qtbot.waitUntil(lambda: answered == ["hits"], timeout=5000)
    read_may_end.set()
    qtbot.waitUntil(lambda: answered == ["hits", "read"], timeout=5000)
    runner.close()
