"""The background service (cli/through_service.py, issue 40) as a real process, started as the session starts it at login
(the autostart entry's command): it catches up with what changed while it was off, follows the folders indexed so
far, answers `desktop-rag search` for the data folder, and `desktop-rag stop` ends it with nothing lost."""

from __future__ import annotations

import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from cli_runner import cli, cli_json
from waiting import eventually

pytestmark = pytest.mark.slow


def start_service(command: list[str], log):
    with open(log, "w") as output:  # a file, not a pipe: a pipe nobody reads would stall it when full
        service = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while "Watching" not in log.read_text():  # caught up, and watching
        assert service.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)
    return service


def stop_and_wait(data_dir) -> None:
    """`desktop-rag stop`, then until the process is gone (it stops answering first, then closes its library)."""
    import psutil

    from desktop_rag.service.background_process import who_answers

    hello = who_answers(data_dir)
    cli(data_dir, "stop", timeout=60)
    if hello is not None:
        try:
            psutil.Process(hello["pid"]).wait(timeout=30)
        except psutil.NoSuchProcess:
            pass


def test_the_service_starts_as_at_login_catches_up_follows_answers_and_stops_on_request(docs, data_dir, tmp_path,
                                                                                          monkeypatch):
    from desktop_rag.platform import autostart_xdg as autostart

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the session's, for this test alone
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    cli(data_dir, "settings", "start_at_login", "true")
    entry = autostart.entry_path(data_dir)
    assert entry.is_file() and "NoDisplay=true" in entry.read_text()
    (docs / "hatch.md").write_text("# Hatch\n\nThe roof hatch sticks in frost.\n")  # saved while nobody watched
    service = start_service(autostart.command_of(entry), tmp_path / "service.log")
    try:
        found = cli_json(data_dir, "search", "roof hatch", "-k", "1", "--json")  # caught up at start
        assert found["results"][0]["path"].endswith("hatch.md")
        assert found["served_by"].startswith("desktop-rag service"), found["served_by"]

        (docs / "kayak.md").write_text("# Kayak\n\nThe sea kayak's rudder cable snapped near the skerries.\n")
        saved = time.monotonic()
        eventually(lambda: [h["path"] for h in cli_json(data_dir, "search", "rudder skerries", "-k", "1",
                                                        "--json", "--mode", "bm25")["results"]]
                   == [str(docs / "kayak.md")], timeout=60)
        print(f"a saved file searchable through the service after {time.monotonic() - saved:.1f} s")

        # `index` of a folder new to the library is the service's run, and the folder is watched from then on.
        boats = tmp_path / "boats"
        boats.mkdir()
        (boats / "dinghy.md").write_text("# Dinghy\n\nThe dinghy's centreboard needs new varnish.\n")
        through = cli(data_dir, "index", str(boats))
        assert "Indexing in desktop-rag service" in through.stderr and "Done: 1 files indexed" in through.stdout
        (boats / "ketch.md").write_text("# Ketch\n\nThe ketch's mizzen mast was stepped in April.\n")
        eventually(lambda: [h["path"] for h in cli_json(data_dir, "search", "mizzen mast", "-k", "1", "--json",
                                                        "--mode", "bm25")["results"]]
                   == [str(boats / "ketch.md")], timeout=60)

        again = cli(data_dir, "service", check=False, timeout=120)  # one service per data folder
        assert again.returncode != 0 and "already answers" in again.stderr

        asked = time.monotonic()
        stopped = cli(data_dir, "stop", timeout=60)
        assert service.wait(timeout=10) == 0 and "Stopped desktop-rag service" in stopped.stderr, stopped.stderr
        print(f"stopped in {time.monotonic() - asked:.1f} s (the command's start included)")
    finally:
        if service.poll() is None:
            service.kill()
    assert "nothing answers" in cli(data_dir, "stop").stderr.lower()
    cli(data_dir, "settings", "start_at_login", "false")
    assert not entry.exists()
    found = cli_json(data_dir, "search", "rudder skerries", "-k", "1", "--json", "--local")  # nothing lost
    assert found["results"][0]["path"].endswith("kayak.md")


def test_the_quick_popup_starts_the_service_finds_a_file_by_a_word_and_opens_it(qtbot, docs, data_dir, tmp_path,
                                                                              monkeypatch):
    from PySide6.QtCore import Qt

    from desktop_rag.ui.quick_search import QuickSearch, ServiceSearch

    (docs / "kayak.md").write_text("# Kayak\n\nThe sea kayak's rudder cable snapped near the skerries.\n")
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    bin_dir, asked = tmp_path / "bin", tmp_path / "asked.txt"  # a stand-in xdg-open recording what it was given
    bin_dir.mkdir()
    (bin_dir / "xdg-open").write_text(  # (and, as xdg-open does, 3 where no program takes the file: pump.md here)
        f'#!/bin/sh\necho "$1" >> {asked}\ncase "$1" in *pump.md) exit 3;; esac\n')
    (bin_dir / "xdg-open").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    search = ServiceSearch(data_dir)
    popup = QuickSearch(search)
    qtbot.addWidget(popup)
    popup.show()
    try:
        qtbot.keyClicks(popup.field, "skerries type:md")
        qtbot.waitUntil(lambda: bool(popup.hits), timeout=180_000)  # the service it started answers
        assert search.started_service and popup.hits[0].path == str(docs / "kayak.md")
        assert popup.results.currentRow() == 0
        qtbot.keyClick(popup.field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: asked.exists() and asked.read_text().strip() == str(docs / "kayak.md"), timeout=30_000)
        assert not popup.isVisible()  # it goes once the file is handed over

        # Where no program takes the file, the popup comes back and says so (issue 60, 7: it closed, silent).
        no_program = QuickSearch(search)
        qtbot.addWidget(no_program)
        no_program.show()
        qtbot.keyClicks(no_program.field, "prime the pump")
        qtbot.waitUntil(lambda: bool(no_program.hits), timeout=60_000)
        qtbot.keyClick(no_program.field, Qt.Key.Key_Return)
        # (hidden as it hands the file over, for the milliseconds the stand-in takes to refuse it: not waited for)
        qtbot.waitUntil(lambda: no_program.status.text().startswith("No program on this computer opened pump.md"),
                        timeout=30_000)
        assert no_program.isVisible()  # back, saying so
        asked.write_text(asked.read_text().replace(f"{docs / 'pump.md'}\n", ""))

        # A document inside a file opens as itself, taken out of its archive, not as the archive.
        with zipfile.ZipFile(docs / "boats.zip", "w") as archive:
            archive.writestr("rigging/shrouds.txt", "The shrouds of the yawl were tensioned with a Loos gauge.\n")
        cli(data_dir, "index", str(docs))  # through the service
        member_popup = QuickSearch(search)
        qtbot.addWidget(member_popup)
        member_popup.show()
        qtbot.keyClicks(member_popup.field, "yawl shrouds tensioned")
        qtbot.waitUntil(lambda: bool(member_popup.hits), timeout=60_000)
        assert member_popup.hits[0].path.endswith("shrouds.txt")
        qtbot.keyClick(member_popup.field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: len(asked.read_text().split()) == 2, timeout=30_000)
        opened = Path(asked.read_text().split()[1])
        assert opened.name == "shrouds.txt" and "Loos gauge" in opened.read_text(), opened
        assert not member_popup.isVisible()
    finally:
        stop_and_wait(data_dir)
