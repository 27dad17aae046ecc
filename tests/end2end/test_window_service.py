"""The window is a client of the data folder's service, the library's one writer (issue 49): it joins a running
service instead of taking the library from it, closes without handing anything over, notices a killed service and
starts another, and after `desktop-rag stop` says so and waits for the person. Real processes, a real library, the
window offscreen."""

from __future__ import annotations

import itertools
import os
import signal
import time

import pytest

from cli_runner import cli, cli_json
from desktop_rag.config import Settings
from desktop_rag.platform.autostart import service_command
from desktop_rag.service.background_process import who_answers
from test_service import start_service
from test_ui import WAIT_MS, index_and_wait, search_and_wait
from waiting import eventually
from window_sessions import close_session, open_session, stop_the_service

pytestmark = pytest.mark.slow

RULES = Settings(contexts="rules", llm_upgrade_when_idle=False)  # keep_fresh_when_closed: on


def test_the_window_joins_the_running_service_and_closing_it_leaves_the_service_at_work(qtbot, docs, data_dir,
                                                                                          tmp_path):
    RULES.save(data_dir)
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs))
    service = start_service(service_command(data_dir), tmp_path / "service.log")
    try:
        pid = who_answers(data_dir)["pid"]
        session = open_session(qtbot, data_dir)
        win = session.window
        assert who_answers(data_dir)["pid"] == pid and service.poll() is None  # joined, not taken over
        boats = tmp_path / "boats"
        boats.mkdir()
        (boats / "dinghy.md").write_text("# Dinghy\n\nThe dinghy's centreboard needs new varnish.\n")
        index_and_wait(qtbot, win, boats)  # the service's run, followed in the window's panel

        started = time.monotonic()
        close_session(session)
        assert time.monotonic() - started <= 0.5
        assert who_answers(data_dir)["pid"] == pid  # nothing handed over: the same service goes on
        (boats / "ketch.md").write_text("# Ketch\n\nThe ketch's mizzen mast was stepped in April.\n")
        eventually(lambda: [h["path"] for h in cli_json(data_dir, "search", "mizzen mast", "-k", "1", "--json",
                                                        "--mode", "bm25")["results"]] == [str(boats / "ketch.md")],
                   timeout=60)
    finally:
        stop_the_service(data_dir)
        service.wait(30)
    assert who_answers(data_dir) is None


def test_a_killed_service_is_noticed_and_started_again_and_the_next_search_works(qtbot, docs, data_dir):
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    session = open_session(qtbot, data_dir, RULES)  # the window starts the service
    win = session.window
    try:
        index_and_wait(qtbot, win, docs)
        search_and_wait(qtbot, win, "prime pump")
        killed = who_answers(data_dir)["pid"]
        os.kill(killed, signal.SIGKILL)
        killed_at = time.monotonic()
        qtbot.waitUntil(lambda: "stopped unexpectedly" in win.service_label.text(), timeout=10_000)
        assert time.monotonic() - killed_at <= 2.5  # said within 2 s (and a poll)
        qtbot.waitUntil(lambda: (who_answers(data_dir) or {}).get("pid") not in (None, killed), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: win.service_label.text() == "", timeout=WAIT_MS)  # followed again
        search_and_wait(qtbot, win, "pump start")
        assert win.search.hits[0].path.endswith("pump.md")
    finally:
        close_session(session)
        stop_the_service(data_dir)


def test_stop_while_the_window_is_open_is_said_and_the_window_starts_the_service_again_when_asked(qtbot, docs,
                                                                                                   data_dir):
    session = open_session(qtbot, data_dir, RULES)
    win = session.window
    try:
        assert "Stopped" in cli(data_dir, "stop").stderr
        qtbot.waitUntil(lambda: "was stopped" in win.service_label.text(), timeout=10_000)
        assert win.start_again_button.isVisible()
        qtbot.wait(3000)
        assert who_answers(data_dir) is None  # not started again behind the person's back
        win.start_again_button.click()
        qtbot.waitUntil(lambda: who_answers(data_dir) is not None, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not win.start_again_button.isVisible(), timeout=WAIT_MS)
        (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
        index_and_wait(qtbot, win, docs)
    finally:
        close_session(session)
        stop_the_service(data_dir)


def test_stop_while_the_service_is_starting_stops_it(data_dir):
    """D3: a stop while a service holds its mark but does not answer yet (its first second: imports, the
    catalog) waits for it to answer and stops it, instead of saying that nothing runs."""
    import subprocess

    from desktop_rag.service.background_process import service_starting, stop_answering

    RULES.save(data_dir)
    starting = subprocess.Popen(service_command(data_dir), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        eventually(lambda: service_starting(data_dir), timeout=60, interval=0.01)
        assert who_answers(data_dir) is None  # caught in its first moments
        assert (stop_answering(data_dir) or "").startswith("desktop-rag service")
        assert starting.wait(timeout=30) is not None
    finally:
        if starting.poll() is None:
            starting.kill()


def test_a_setting_changed_in_a_terminal_shows_in_the_open_window_and_does_not_undo_the_window_s(qtbot, data_dir):
    """Both go to the service, the one writer of the settings; each is written key by key, and the window follows
    the Changes the service tells (issue 49: a process rewrote the whole file from its own copy)."""
    session = open_session(qtbot, data_dir, RULES)
    win = session.window
    try:
        assert win.library.settings.ocr and win.library.settings.llm_only_on_mains
        chosen = Settings(**{**vars(win.library.settings), "llm_only_on_mains": False})
        win.save_settings(chosen)  # the window's change, sent as the terminal's is
        assert "ocr = false" in cli(data_dir, "settings", "ocr", "false").stdout
        qtbot.waitUntil(lambda: not win.library.settings.ocr, timeout=10_000)  # the window heard of it
        qtbot.waitUntil(lambda: not win.library.settings.llm_only_on_mains, timeout=10_000)
        stored = Settings.load(data_dir)
        assert not stored.ocr and not stored.llm_only_on_mains  # neither undid the other
    finally:
        close_session(session)
        stop_the_service(data_dir)


def _holders(data_dir) -> dict[str, set[int]]:
    """The processes that have the writer's lock and the vector store's database open, as `lsof` would say."""
    import psutil

    wanted = {str(data_dir / "writer.lock"): "writer.lock", str(data_dir / "chroma" / "chroma.sqlite3"): "chroma"}
    found: dict[str, set[int]] = {name: set() for name in wanted.values()}
    for process in psutil.process_iter(["pid", "name"]):
        if "python" not in (process.info["name"] or ""):
            continue
        try:
            for opened in process.open_files():
                if opened.path in wanted:
                    found[wanted[opened.path]].add(process.info["pid"])
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return found


def test_windows_and_the_popup_opened_and_closed_during_a_first_index_leave_one_writer(qtbot, docs, data_dir,
                                                                                         tmp_path):
    """Issue 49's Done when: the window opened and closed 10 times during a first index of 300 files, a second window
    and the quick popup beside it; at every sample one process (the service) holds the writer's lock and the
    vector store; every file is found after, and doctor finds nothing. (Sampled every 0.1 s with psutil.)"""
    import threading

    from desktop_rag.service.endpoint import EndpointClient
    from desktop_rag.ui.quick_search import QuickSearch, ServiceSearch

    RULES.save(data_dir)
    for n in range(300):
        (docs / f"log{n:03}.md").write_text(f"# Log {n}\n\nThe keeper noted lamp {n} trimmed at dusk; "
                                            f"barometer {1000 + n} hPa.\n")
    service = start_service(service_command(data_dir), tmp_path / "service.log")
    samples: list[dict[str, set[int]]] = []
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.is_set():
            samples.append(_holders(data_dir))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    try:
        client = EndpointClient.for_library(data_dir)
        assert client is not None
        run_id = client.call("index", paths=[str(docs)])["run_id"]
        sampler.start()
        taken = [len(samples)]  # samples taken by the end of each cycle: every cycle must have some
        for _ in range(10):
            session = open_session(qtbot, data_dir)
            second = open_session(qtbot, data_dir)
            popup = QuickSearch(ServiceSearch(data_dir))
            qtbot.addWidget(popup)
            popup.show()
            qtbot.keyClicks(popup.field, "lamp trimmed")
            qtbot.wait(300)
            popup.close()
            close_session(second)
            close_session(session)
            taken.append(len(samples))
        state = client.call("progress", run_id=run_id)
        assert state["state"] in ("running", "finished")
        while client.call("progress", run_id=run_id)["state"] == "running":
            time.sleep(0.5)
        sampling.set()
        sampler.join(30)
        service_pid = who_answers(data_dir)["pid"]
        print(f"{len(samples)} samples while the windows came and went; the run {state['state']} when they were done")
        # Sampled through every cycle (a count of 50 was a proxy for it, and a quiet machine's faster cycles gave 49).
        assert all(after > before for before, after in itertools.pairwise(taken)), taken
        assert all(s["writer.lock"] == {service_pid} for s in samples), samples[:3]
        assert all(s["chroma"] <= {service_pid} for s in samples)  # (not open yet in the first samples)
        assert client.call("stats")["documents"]["indexed"] == 300
        assert client.call("doctor")["found"] == []
        assert len(client.call("search", query="barometer 1299 hPa", limit=1, mode="bm25")["results"]) == 1
        client.close()
    finally:
        sampling.set()
        stop_the_service(data_dir)
        service.wait(30)


def test_check_and_repair_in_the_window_is_a_run_of_the_service(qtbot, docs, data_dir):
    """File > Check and repair the indexes: doctor --repair carried out by the service, shown in the run panel."""
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    session = open_session(qtbot, data_dir, RULES)
    try:
        win = session.window
        index_and_wait(qtbot, win, docs)
        repair = next(a for a in win.actions() if a.text() == "Check and repair the indexes")
        repair.trigger()
        qtbot.waitUntil(lambda: win.progress.title.text().startswith("Nothing to repair"), timeout=WAIT_MS)
    finally:
        close_session(session)
        stop_the_service(data_dir)


def test_a_window_closed_before_its_service_answers_leaves_no_service_behind(qtbot, data_dir):
    """"Keep the index fresh" off, the window closed in the first second: the service it started was not there to be
    asked to stop (a window test left one running, 1 run in 4); the window ends it."""
    import psutil

    from desktop_rag.ui.app import AppSession

    Settings(contexts="rules", llm_upgrade_when_idle=False, keep_fresh_when_closed=False).save(data_dir)
    session = AppSession(data_dir)
    qtbot.waitUntil(lambda: session.window.link.started is not None, timeout=30_000)
    started = session.window.link.started
    session.window.close()
    session.close()
    assert started.wait(30) is not None  # ended, not left following the folders

    def services() -> list:
        return [p for p in psutil.process_iter(["cmdline"])
                if "service" in (p.info["cmdline"] or []) and str(data_dir) in " ".join(p.info["cmdline"] or [])]

    time.sleep(2)
    assert services() == [] and who_answers(data_dir) is None


def test_the_window_s_process_holds_no_catalog_connection_that_can_write(qtbot, docs, data_dir):
    """Issue 62: the service is the one writer; the window reads the catalog in its own process (Review's rows,
    previews, folder counts) on a connection that cannot write. The kernel's list of this process's open files
    says so, beside the service's one writable catalog."""
    from desktop_rag.storage.catalog_access import CATALOG_FILE
    from open_files import opened_for_writing

    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    session = open_session(qtbot, data_dir, RULES)
    win = session.window
    try:
        index_and_wait(qtbot, win, docs)
        search_and_wait(qtbot, win, "prime pump")
        win.library.note_opened(win.search.hits[0].chunk_id)  # a note the service writes, not the window
        assert win.library.reads.folders() == [str(docs)]  # the window's own reads, in this process
        catalog = data_dir / CATALOG_FILE
        assert opened_for_writing("self", catalog) == []
        assert opened_for_writing(who_answers(data_dir)["pid"], catalog) != []
    finally:
        close_session(session)
        stop_the_service(data_dir)
