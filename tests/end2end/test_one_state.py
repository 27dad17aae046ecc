"""Issue 60, 3: one state, told the same way everywhere. After a Pause from the tray and a Resume from the window, the
run stayed paused while the window offered "Pause" above "Paused: nothing moves until you resume" and the tray said
"Catching up 7%": each front end kept its own idea of a pause. Now the service keeps the state (service/activity.py)
and the tray, the window and `desktop-rag status` show it: here a real service indexing 120 files, the window
(offscreen), the tray's menu actions and the CLI, sampled at once after each step."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from desktop_rag.config import Settings
from shown_words import clipped_cells, clipped_labels, faults_in, widget_texts
from desktop_rag.service.endpoint import EndpointClient
from window_sessions import WAIT_MS, close_session, open_session, stop_the_service

pytestmark = [pytest.mark.slow,
              pytest.mark.qt_log_ignore("No such signal QPlatformNativeInterface::systemTrayWindowChanged")]


def _status(data_dir) -> dict:
    said = subprocess.run([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "status", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert said.returncode == 0, said.stderr
    return json.loads(said.stdout)


def test_a_pause_from_the_tray_and_a_resume_from_the_window_are_one_state_everywhere(qtbot, docs, data_dir):
    from desktop_rag.ui.quick_search import QuickSearch, ServiceSearch
    from desktop_rag.ui.tray import ServiceTray

    for n in range(120):
        (docs / f"log{n:03}.md").write_text(f"# Log {n}\n\n" + " ".join(
            f"The pump {n} ran {m} hours before its seal {m * n} was changed." for m in range(20)) + "\n")
    session = open_session(qtbot, data_dir, Settings(contexts="rules", llm_upgrade_when_idle=False))
    window = session.window
    tray = ServiceTray(data_dir)
    try:
        tray.start()
        client = EndpointClient.for_library(data_dir)
        try:
            run_id = client.call("index", paths=[str(docs)], contexts="rules")["run_id"]
        finally:
            client.close()
        qtbot.waitUntil(lambda: window.progress.control is not None, timeout=WAIT_MS)

        tray.toggle_pause()  # the tray's "Pause background work": the run in hand too
        qtbot.waitUntil(lambda: tray.state_line.text().startswith("Paused: indexing"), timeout=WAIT_MS)
        status = _status(data_dir)
        assert status["run_paused"] and status["held"] and status["run_id"] == run_id and status["paused"]
        assert status["words"].startswith("Paused: indexing")
        qtbot.waitUntil(lambda: window.state_label.text() == status["words"], timeout=2000)
        assert tray.state_line.text() == f"{status['words']} (in the background)"
        assert window.progress.pause_button.text() == "Resume"  # the window offers what the run is not
        assert window.progress.current.text() == "Paused: nothing moves until you resume."
        assert tray.pause_action.text() == "Resume background work"
        # What each shows while paused, in a person's words and whole (tests/shown_words.py)
        assert not (bad := faults_in([*widget_texts(window), *widget_texts(tray.menu)])), "\n".join(bad)
        assert clipped_labels(window) + clipped_cells(window) == []

        window.progress.toggle_pause()  # Resume, in the window: the run goes on (the LLM's pause stays)
        qtbot.waitUntil(lambda: window.state_label.text().startswith("Indexing"), timeout=WAIT_MS)
        status = _status(data_dir)
        assert not status["run_paused"] and status["llm_paused"] and status["words"].startswith("Indexing")
        qtbot.waitUntil(lambda: tray.state_line.text().startswith("Indexing"), timeout=2000)
        assert window.progress.pause_button.text() == "Pause"

        # Sampled every half second to the end of the run, as a person glancing at each: the whole bar never goes
        # back, and the window and the tray never say two things for longer than it takes to hear of a change.
        samples: list[tuple[int, str, str]] = []
        deadline = time.monotonic() + WAIT_MS / 1000
        while not window.progress.title.text().startswith("Done") and time.monotonic() < deadline:
            samples.append((window.progress.overall.value(), window.state_label.text(), tray.state_line.text()))
            qtbot.wait(500)
        assert window.progress.title.text().startswith("Done"), window.progress.title.text()
        print(f"{len(samples)} samples of the window and the tray")
        bars = [bar for bar, _, _ in samples]
        assert bars == sorted(bars), bars
        apart = [f"{window_says!r} / {tray_says!r}" for _, window_says, tray_says in samples
                 if window_says and tray_says != f"{window_says} (in the background)"]
        print(f"they said different things in {len(apart)}")
        assert len(apart) <= max(2, len(samples) // 10), apart  # (each change reaches the two apart by < 1 s)
        stats = EndpointClient.for_library(data_dir)
        try:  # "Done": nothing of the run waits
            assert stats.call("stats")["chunks_pending_embedding"] == 0
        finally:
            stats.close()
        qtbot.waitUntil(lambda: window.state_label.text() == "Background work paused", timeout=5000)
        assert _status(data_dir)["words"] == "Background work paused"  # the LLM's pause, remembered
        popup = QuickSearch(ServiceSearch(data_dir))  # the quick popup, answered by the same service
        qtbot.addWidget(popup)
        popup.show()
        qtbot.keyClicks(popup.field, "pump seal changed")
        qtbot.waitUntil(lambda: bool(popup.hits), timeout=WAIT_MS)
        assert not (bad := faults_in(widget_texts(popup))), "\n".join(bad)
        assert clipped_labels(popup) == []
        popup.close()
        tray.toggle_pause()  # Resume in the tray: nothing is paused anywhere
        qtbot.waitUntil(lambda: window.state_label.text() == "Idle: the index is up to date", timeout=5000)
        assert not _status(data_dir)["paused"]
        qtbot.waitUntil(lambda: tray.pause_action.text() == "Pause background work", timeout=2000)
    finally:
        tray.close()
        close_session(session)
        stop_the_service(data_dir)
