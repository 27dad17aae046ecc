"""The tray icon (ui/tray.py) as a client of a real background service: it says what the service does and hears
of a change made elsewhere as it happens (the status long poll), its Pause and Resume reach the service (and are
remembered in the data folder's settings), and Quit stops the service within its limit and ends the tray. The
window offscreen has no tray to show the icon in; the menu's actions are what is tested."""

from __future__ import annotations

import time

import pytest

from cli_runner import cli
from desktop_rag.config import Settings
from desktop_rag.platform.autostart import service_command
from desktop_rag.service.background_process import who_answers
from desktop_rag.service.endpoint import EndpointClient
from test_service import start_service, stop_and_wait

# Offscreen has no tray: Qt says so as the icon is made, and the suite fails on Qt's warnings otherwise.
pytestmark = [pytest.mark.slow,
              pytest.mark.qt_log_ignore("No such signal QPlatformNativeInterface::systemTrayWindowChanged")]


def test_the_tray_follows_the_service_pauses_it_and_quits_it(qtbot, docs, data_dir, tmp_path):
    from desktop_rag.ui.tray import ServiceTray

    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs))
    service = start_service(service_command(data_dir), tmp_path / "service.log")
    tray = ServiceTray(data_dir)
    try:
        tray.start()
        qtbot.waitUntil(lambda: tray.state_line.text() == "Idle: the index is up to date (in the background)",
                        timeout=10_000)
        assert tray.icon.toolTip() == f"desktop-rag: {tray.state_line.text()}"

        tray.toggle_pause()  # the menu's Pause
        qtbot.waitUntil(lambda: tray.state_line.text().startswith("Background work paused"), timeout=5000)
        assert tray.pause_action.text() == "Resume background work"
        assert Settings.load(data_dir).llm_upgrade_paused  # remembered, as the window's Pause is

        elsewhere = EndpointClient.for_library(data_dir)  # resumed by another client: the tray hears of it
        try:
            asked = time.monotonic()
            elsewhere.call("pause_background", paused=False)
            qtbot.waitUntil(lambda: tray.state_line.text().startswith("Idle"), timeout=5000)
            print(f"a change made elsewhere reached the tray in {time.monotonic() - asked:.2f} s")
        finally:
            elsewhere.close()
        assert tray.pause_action.text() == "Pause background work" and not Settings.load(data_dir).llm_upgrade_paused

        asked = time.monotonic()
        with qtbot.waitSignal(tray.quit_requested, timeout=10_000):
            tray.quit_everything()  # the menu's Quit
        assert service.wait(timeout=10) == 0
        print(f"Quit in the tray: the service gone after {time.monotonic() - asked:.1f} s")
        assert who_answers(data_dir) is None
    finally:
        tray.close()
        if service.poll() is None:
            service.kill()


def test_open_in_the_tray_takes_the_library_into_a_window_and_quit_ends_both(qtbot, docs, data_dir, tmp_path):
    """Open starts the window (a real `desktop-rag gui` process, offscreen), which takes the library from the
    service; the tray then says what the window does; Quit closes the window, and no service follows it."""
    import psutil

    from desktop_rag.service.background_process import service_starting
    from desktop_rag.ui.tray import ServiceTray

    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)  # keep_fresh_when_closed: on
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs))
    service = start_service(service_command(data_dir), tmp_path / "service.log")
    tray = ServiceTray(data_dir)
    window_pid = None
    try:
        tray.start()
        qtbot.waitUntil(lambda: tray.state_line.text().endswith("(in the background)"), timeout=10_000)
        tray.open_window()  # the menu's Open
        assert service.wait(timeout=120) == 0  # it handed the library to the window
        qtbot.waitUntil(lambda: tray.state_line.text().endswith("(in the window)"), timeout=120_000)
        window_pid = who_answers(data_dir)["pid"]

        with qtbot.waitSignal(tray.quit_requested, timeout=20_000):
            tray.quit_everything()  # the menu's Quit: the window closes, and starts no service
        psutil.Process(window_pid).wait(timeout=10)
        time.sleep(3)  # a service started by the closing window would hold its mark by now
        assert who_answers(data_dir) is None and not service_starting(data_dir)
    finally:
        tray.close()
        if service.poll() is None:
            service.kill()
        if window_pid is not None and psutil.pid_exists(window_pid):
            psutil.Process(window_pid).kill()


def test_a_killed_window_s_folders_are_kept_fresh_by_the_service_the_tray_starts(qtbot, docs, data_dir, tmp_path):
    """The window holds the library while it is open; killed (it noted no orderly end, and never started the
    service it would have started on closing), the tray starts the service, which catches up and answers."""
    import psutil

    from desktop_rag.ui.quick_search import ServiceSearch
    from desktop_rag.ui.tray import ServiceTray

    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)  # keep_fresh_when_closed: on
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs))
    tray = ServiceTray(data_dir)
    window_pid = None
    try:
        tray.start()
        tray.open_window()  # the menu's Open: a real `desktop-rag gui` process, offscreen
        qtbot.waitUntil(lambda: tray.state_line.text().endswith("(in the window)"), timeout=120_000)
        window_pid = who_answers(data_dir)["pid"]
        psutil.Process(window_pid).kill()
        psutil.Process(window_pid).wait(timeout=10)
        (docs / "kayak.md").write_text("# Kayak\n\nThe rudder cable snapped near the skerries.\n")  # meanwhile
        qtbot.waitUntil(lambda: (who_answers(data_dir) or {}).get("role") == "service", timeout=120_000)
        qtbot.waitUntil(lambda: tray.state_line.text().endswith("(in the background)"), timeout=30_000)

        search = ServiceSearch(data_dir)  # the next action: the quick popup's search
        try:
            qtbot.waitUntil(lambda: bool(hits := search("rudder skerries").hits)
                            and hits[0].path == str(docs / "kayak.md"), timeout=60_000)
        finally:
            search.close()
    finally:
        tray.close()
        if window_pid is not None and psutil.pid_exists(window_pid):
            psutil.Process(window_pid).kill()
        if who_answers(data_dir) is not None:
            stop_and_wait(data_dir)


def test_a_killed_service_is_started_again_by_the_tray_and_a_stopped_one_is_not(qtbot, docs, data_dir, tmp_path):
    """Killed (as the OOM killer or a crash would end it), the service noted no orderly end: the tray starts it
    again, and the next search works. Stopped on request, it stays stopped and the tray ends."""
    from desktop_rag.ui.quick_search import ServiceSearch
    from desktop_rag.ui.tray import ServiceTray

    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs))
    service = start_service(service_command(data_dir), tmp_path / "service.log")
    tray = ServiceTray(data_dir)
    tray.gone_after_s = 3.0
    try:
        tray.start()
        qtbot.waitUntil(lambda: tray.state_line.text().endswith("(in the background)"), timeout=10_000)
        killed_pid = service.pid
        service.kill()
        service.wait(timeout=10)
        qtbot.waitUntil(lambda: (who_answers(data_dir) or {}).get("pid") not in (None, killed_pid),
                        timeout=120_000)
        qtbot.waitUntil(lambda: tray.state_line.text().endswith("(in the background)"), timeout=30_000)

        search = ServiceSearch(data_dir)  # the next action: the quick popup's search
        try:
            assert search("prime the pump").hits[0].path == str(docs / "pump.md")
        finally:
            search.close()

        with qtbot.waitSignal(tray.quit_requested, timeout=30_000):
            stop_and_wait(data_dir)
        assert who_answers(data_dir) is None
    finally:
        tray.close()
        if service.poll() is None:
            service.kill()
        if who_answers(data_dir) is not None:
            stop_and_wait(data_dir)
