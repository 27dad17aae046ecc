"""The window and the background service take turns holding a data folder (issue 40, service/background_process.py):
a window that opens asks the running service to stop and holds the library itself (it can write at once); as it
closes, the service starts again and keeps the index fresh — a file saved then is found by `desktop-rag search`,
answered by the service. Real processes, a real library, the window offscreen."""

from __future__ import annotations

import sys
import time

import pytest

from cli_runner import cli, cli_json
from desktop_rag.config import Settings
from desktop_rag.platform.autostart import service_command
from desktop_rag.service.background_process import service_starting, who_answers
from desktop_rag.service.endpoint import EndpointClient
from test_service import start_service, stop_and_wait
from test_ui import index_and_wait
from waiting import eventually

pytestmark = pytest.mark.slow


def found_by_the_service(data_dir, words: str) -> list[str]:
    client = EndpointClient.for_library(data_dir)
    if client is None:
        return []
    try:
        return [hit["path"] for hit in client.call("search", query=words, limit=1, mode="bm25")["results"]]
    finally:
        client.close()


def test_the_window_takes_the_library_from_the_service_and_hands_it_back_as_it_closes(qtbot, docs, data_dir,
                                                                                        tmp_path, monkeypatch):
    from desktop_rag.ui.app import AppSession

    monkeypatch.delenv("DESKTOP_RAG_DATA_DIR", raising=False)
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)  # keep_fresh_when_closed: on
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs))
    service = start_service(service_command(data_dir), tmp_path / "service.log")
    session = None
    try:
        assert who_answers(data_dir)["role"] == "service"
        session = AppSession(data_dir)  # asks the service to stop, and holds the library itself
        assert service.wait(timeout=10) == 0, (tmp_path / "service.log").read_text()[-2000:]
        assert who_answers(data_dir)["role"] == "app"
        win = session.window
        with qtbot.waitActive(win):
            win.show()
        boats = tmp_path / "boats"
        boats.mkdir()
        (boats / "dinghy.md").write_text("# Dinghy\n\nThe dinghy's centreboard needs new varnish.\n")
        index_and_wait(qtbot, win, boats)  # the window writes: the service let go of the data folder

        win.close()
        session.close()
        assert session.service_started
        eventually(lambda: (who_answers(data_dir) or {}).get("role") == "service", timeout=120)
        (boats / "ketch.md").write_text("# Ketch\n\nThe ketch's mizzen mast was stepped in April.\n")
        saved = time.monotonic()
        eventually(lambda: found_by_the_service(data_dir, "mizzen mast") == [str(boats / "ketch.md")], timeout=60)
        print(f"a file saved after the window closed: searchable in the service after "
              f"{time.monotonic() - saved:.1f} s")
        found = cli_json(data_dir, "search", "mizzen mast", "-k", "1", "--json")
        assert found["results"][0]["path"] == str(boats / "ketch.md")
        assert found["served_by"].startswith("desktop-rag service"), found["served_by"]
    finally:
        if session is not None and session.window.isVisible():
            session.window.close()
            session.close()
        if service.poll() is None:
            service.kill()
        stop_and_wait(data_dir)  # the one the window started as it closed
    assert who_answers(data_dir) is None


def test_a_window_opened_while_the_service_starts_waits_for_it_and_takes_over(qtbot, docs, data_dir, tmp_path,
                                                                              monkeypatch):
    """Closing and opening the window again at once: the service it started has not answered yet. The window
    waits for it and asks it to stop, instead of racing it for the data folder."""
    import subprocess

    from desktop_rag.ui.app import AppSession

    monkeypatch.delenv("DESKTOP_RAG_DATA_DIR", raising=False)
    Settings(contexts="rules", llm_upgrade_when_idle=False, keep_fresh_when_closed=False).save(data_dir)
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs))
    with open(tmp_path / "service.log", "w") as log:
        service = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "service"],
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        eventually(lambda: service_starting(data_dir), timeout=60)
        assert who_answers(data_dir) is None  # it is loading, and answers nobody yet
        session = AppSession(data_dir)
        try:
            assert service.wait(timeout=60) == 0, (tmp_path / "service.log").read_text()[-2000:]
            assert who_answers(data_dir)["role"] == "app"
            win = session.window
            with qtbot.waitActive(win):
                win.show()
            (docs / "hatch.md").write_text("# Hatch\n\nThe roof hatch sticks in frost.\n")
            index_and_wait(qtbot, win, docs)
        finally:
            session.window.close()
            session.close()
        assert not session.service_started  # the setting is off
    finally:
        if service.poll() is None:
            service.kill()
    assert who_answers(data_dir) is None
