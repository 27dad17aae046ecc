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


def test_open_in_the_tray_opens_a_window_on_the_service_and_quit_ends_the_service_and_the_window(qtbot, docs,
                                                                                              data_dir, tmp_path):
    """Open starts the window (a real `desktop-rag gui` process, offscreen), a client of the running service (issue
    49: nothing is handed over); Quit stops the service, and the window, told on its event stream, closes too."""
    import psutil

    from desktop_rag.service.background_process import service_starting
    from desktop_rag.ui.tray import ServiceTray

    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)  # keep_fresh_when_closed: on
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs))
    service = start_service(service_command(data_dir), tmp_path / "service.log")
    tray = ServiceTray(data_dir)
    windows: list = []
    try:
        tray.start()
        qtbot.waitUntil(lambda: tray.state_line.text().endswith("(in the background)"), timeout=10_000)
        tray.open_window()  # the menu's Open
        qtbot.waitUntil(lambda: bool(windows.extend(_windows_of(data_dir)) or windows), timeout=120_000)
        time.sleep(2)
        assert service.poll() is None and who_answers(data_dir)["pid"] == service.pid  # joined, not taken

        with qtbot.waitSignal(tray.quit_requested, timeout=20_000):
            tray.quit_everything()  # the menu's Quit
        assert service.wait(timeout=10) == 0
        psutil.wait_procs(windows, timeout=20)
        assert not any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in windows)
        time.sleep(2)
        assert who_answers(data_dir) is None and not service_starting(data_dir)  # nothing started it again
    finally:
        tray.close()
        if service.poll() is None:
            service.kill()
        for window in windows:
            if window.is_running():
                window.kill()


def _windows_of(data_dir) -> list:
    """The `desktop-rag gui` processes of this data folder."""
    import psutil

    found = []
    for process in psutil.process_iter(["cmdline"]):
        line = process.info["cmdline"] or []
        if "gui" in line and str(data_dir) in " ".join(line):
            found.append(process)
    return found


def test_a_killed_service_is_started_by_the_next_front_end_that_needs_it_not_by_the_tray(qtbot, docs, data_dir,
                                                                                        tmp_path):
    """No supervisor (issue 49): killed, the service stays down until a front end needs it — here the quick
    popup's search, which starts it and is answered. Stopped on request, it stays stopped and the tray ends."""
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
        service.kill()
        service.wait(timeout=10)
        qtbot.waitUntil(lambda: tray.state_line.text() == "Not running", timeout=30_000)
        qtbot.wait(2000)
        assert who_answers(data_dir) is None  # the tray started nothing

        search = ServiceSearch(data_dir)  # the next front end that needs it: the quick popup's search
        try:
            assert search("prime the pump").hits[0].path == str(docs / "pump.md")
        finally:
            search.close()
        qtbot.waitUntil(lambda: tray.state_line.text().endswith("(in the background)"), timeout=30_000)

        with qtbot.waitSignal(tray.quit_requested, timeout=30_000):
            stop_and_wait(data_dir)
        assert who_answers(data_dir) is None
    finally:
        tray.close()
        if service.poll() is None:
            service.kill()
        if who_answers(data_dir) is not None:
            stop_and_wait(data_dir)
