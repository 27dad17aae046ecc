"""One window per data folder (issue 37: a second launch opened a second full window on the same library, which
could not write and yet said "Watching 1 folder"): a second launch, a real process, brings the open window
forward with its query and ends; a launch on another data folder is not handed over."""

import os
import subprocess
import sys
import time

from desktop_rag.config import Settings
from window_sessions import stop_the_service
from desktop_rag.ui.single_instance import hand_to_running_window, instance_name
from test_ui import WAIT_MS


def launch(data, *arguments):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data), "gui", *arguments],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_second_launch_brings_the_open_window_forward_with_its_query_and_ends(qtbot, tmp_path, monkeypatch):
    from desktop_rag.ui.app import AppSession

    monkeypatch.delenv("DESKTOP_RAG_DATA_DIR", raising=False)
    data = tmp_path / "data"
    Settings(contexts="rules", llm_upgrade_when_idle=False, keep_fresh_when_closed=False).save(data)
    session = AppSession(data)
    win = session.window
    try:
        with qtbot.waitActive(win):
            win.show()
        win.showMinimized()
        second = launch(data, "--search", "heron")
        started = time.monotonic()
        qtbot.waitUntil(lambda: second.poll() is not None, timeout=WAIT_MS)  # the window answers meanwhile
        _out, err = second.communicate()
        assert second.returncode == 0, err
        assert time.monotonic() - started < 30  # it ended instead of opening a window (which never ends here)
        qtbot.waitUntil(lambda: win.search.query.text() == "heron", timeout=5000)
        assert not win.isMinimized() and win.tabs.currentWidget() is win.search
        assert "Watching" not in err
    finally:
        win.close()
        session.close()
        stop_the_service(data)  # (asked to stop as the window closed: "keep the index fresh" is off here)
    assert not hand_to_running_window(data)  # the window closed: a launch now opens its own


def test_each_data_folder_and_user_has_its_own_window(tmp_path):
    assert instance_name(tmp_path / "a") != instance_name(tmp_path / "b")
    assert instance_name(tmp_path / "a") == instance_name(tmp_path / "x" / ".." / "a")


def test_two_launches_at_the_same_instant_open_one_window(qtbot, tmp_path, monkeypatch):
    """Issue 49, D2: two `gui` launched together both found no window to hand to, and 8 times in 10 both opened
    one. The window's mark makes one of them the window; the other hands its request to it once it listens."""
    monkeypatch.delenv("DESKTOP_RAG_DATA_DIR", raising=False)
    data = tmp_path / "data"
    Settings(contexts="rules", llm_upgrade_when_idle=False, keep_fresh_when_closed=False).save(data)
    launches = [launch(data), launch(data)]
    try:
        deadline = time.monotonic() + 120
        while all(process.poll() is None for process in launches):
            assert time.monotonic() < deadline, "neither launch ended: two windows"
            time.sleep(0.2)
        ended = next(process for process in launches if process.poll() is not None)
        window = next(process for process in launches if process is not ended)
        _out, err = ended.communicate()
        assert ended.returncode == 0, err
        time.sleep(3)
        assert window.poll() is None, window.communicate()[1]  # the one window stays open
        assert hand_to_running_window(data)  # and answers the next launch
    finally:
        for process in launches:
            if process.poll() is None:
                process.terminate()
                process.wait(30)
        stop_the_service(data)
