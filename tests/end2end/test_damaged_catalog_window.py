"""A damaged catalog in the window (issue 50, 6): the advice the CLI and the service give — the files untouched, a
new catalog made from the folders — never "an internal error occurred"; the services it starts, each ending at
once, are not started again and again (one a second before); and "Rebuild from my folders" makes the new catalog
(through the service, the one writer), after which the folders are read again and searched."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.exceptions import TimeoutError as QtTimeout

from cli_runner import cli
from damaged_catalogs import overwrite_pages_of
from desktop_rag.config import Settings
from desktop_rag.errors import CatalogDamaged
from shown_words import clipped_cells, clipped_labels, faults_in, widget_texts
from window_sessions import WAIT_MS, close_session, stop_the_service


def test_the_window_on_a_damaged_catalog_gives_the_advice_and_rebuilds_from_the_folders(qtbot, docs, data_dir,
                                                                                        monkeypatch):
    for i in range(40):
        (docs / f"note{i:02}.md").write_text(f"# Note {i}\n\n" + " ".join(f"word{i}x{j}" for j in range(400)) + "\n")
    Settings(contexts="rules", llm_upgrade_when_idle=False, keep_fresh_when_closed=False).save(data_dir)
    cli(data_dir, "index", str(docs))
    # Pages overwritten, as a failing disk leaves them: those of a table the service reads after it answers, so
    # each service answers the window before it meets the damage (the window's reads, its warm-up search and its
    # event stream all see a service go; 8 KB in the file's middle, its first form here, hit pages by chance).
    assert overwrite_pages_of(data_dir / "catalog.sqlite3", "contexts_by_content") >= 1

    shown: list[str] = []  # every message of the status line, as the window opens and reads
    from desktop_rag.ui.app import AppSession

    session = AppSession(data_dir)  # (not open_session: the window never has a service answering here)
    session.window.statusBar().messageChanged.connect(shown.append)
    window = session.window
    qtbot.addWidget(window)
    window.show()
    try:
        def said() -> str:
            return " ".join((window.progress.title.text(), *shown, window.search.message.text()))

        qtbot.waitUntil(lambda: "is damaged" in said(), timeout=WAIT_MS)
        qtbot.wait(3000)  # the views' reads of the catalog meanwhile
        assert "“Rebuild from my folders” makes a new catalog" in said() and "Your files are untouched" in said()
        assert "internal error" not in said().lower() and "desktop-rag doctor" not in said()

        def starts() -> int:
            return (data_dir / "logs" / "window.log").read_text().count("starting the background service")

        qtbot.waitUntil(window.rebuild_button.isVisible, timeout=WAIT_MS)  # it stopped trying, and says what to do
        assert not window.start_again_button.isVisible()  # (starting it again would end the same way)
        assert not (bad := faults_in(widget_texts(window))), "\n".join(bad)  # (the words test's damaged state)
        assert clipped_labels(window) + clipped_cells(window) == []
        started = starts()
        qtbot.wait(5000)
        assert starts() == started <= 4  # not started again and again (3 ending early; one before, by the popup)

        # The person rebuilds (the confirmation answered Yes by a stand-in for the dialog).
        monkeypatch.setattr(QMessageBox, "question", lambda *args: QMessageBox.StandardButton.Yes)
        window.rebuild_button.click()
        try:
            qtbot.waitUntil(lambda: window.progress.title.text().startswith("Done"), timeout=WAIT_MS)
        except QtTimeout:  # (CI failed here once: what the services said is the story)
            service_log = data_dir / "logs" / "service.log"
            raise AssertionError(f"no “Done”: {window.progress.title.text()!r}; {window.service_label.text()!r}\n"
                                 f"{service_log.read_text()[-6000:] if service_log.exists() else ''}") from None
        assert list((data_dir / "damaged").glob("*/catalog.sqlite3"))
        window.search.query.setText("word7x123")
        window.search.search_now()
        qtbot.waitUntil(lambda: bool(window.search.hits), timeout=WAIT_MS)
        assert window.search.hits[0].path == str(docs / "note07.md")
    finally:
        close_session(session)
        stop_the_service(data_dir)


def test_a_service_that_ends_on_a_damaged_catalog_does_not_say_it_was_stopped(docs, data_dir, monkeypatch):
    """The window's rebuild offer above came only when it counted services ending early; one of them, which
    answered before it met the damage, said "stopping" as it went, and the window took it as stopped on purpose
    and waited (CI, 1 run in 2). Damage that opening the catalog does not read lets a service answer first; the
    events it published are recorded (a spy on the event log; `watch` here, the same loop as the service's, so
    that this process's priority is not lowered)."""
    from desktop_rag.service.events import EventLog
    from desktop_rag.service.follow_loop import FollowReports
    from desktop_rag.service.writer_process import follow_folders

    (docs / "heron.md").write_text("# Herons\n\nThe grey heron stands still in the shallows.\n")
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    cli(data_dir, "index", str(docs))
    assert overwrite_pages_of(data_dir / "catalog.sqlite3", "contexts_by_content") >= 1
    published: list[str] = []
    publish = EventLog.publish
    monkeypatch.setattr(EventLog, "publish", lambda log, kind, **data: (published.append(kind),
                                                                         publish(log, kind, **data))[1])

    with pytest.raises(CatalogDamaged):
        follow_folders(data_dir, [docs], None, "watch", FollowReports())
    assert "run" in published  # it answered, and its catch-up began
    assert "stopping" not in published
