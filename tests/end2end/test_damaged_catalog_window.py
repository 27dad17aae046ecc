"""A damaged catalog in the window (issue 50, 6): the advice the CLI and the service give — the files untouched, a
new catalog made from the folders — never "an internal error occurred"; the services it starts, each ending at
once, are not started again and again (one a second before); and "Rebuild from my folders" makes the new catalog
(through the service, the one writer), after which the folders are read again and searched."""

from __future__ import annotations

import os


from PySide6.QtWidgets import QMessageBox

from cli_runner import cli
from desktop_rag.config import Settings
from window_sessions import WAIT_MS, close_session, stop_the_service


def test_the_window_on_a_damaged_catalog_gives_the_advice_and_rebuilds_from_the_folders(qtbot, docs, data_dir,
                                                                                        monkeypatch):
    for i in range(40):
        (docs / f"note{i:02}.md").write_text(f"# Note {i}\n\n" + " ".join(f"word{i}x{j}" for j in range(400)) + "\n")
    Settings(contexts="rules", llm_upgrade_when_idle=False, keep_fresh_when_closed=False).save(data_dir)
    cli(data_dir, "index", str(docs))
    catalog = data_dir / "catalog.sqlite3"
    with open(catalog, "r+b") as damaged:  # pages in the middle overwritten, as a failing disk leaves them
        damaged.seek(os.path.getsize(catalog) // 2)
        damaged.write(b"\xde\xad" * 4096)

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
        started = starts()
        qtbot.wait(5000)
        assert starts() == started <= 4  # not started again and again (3 ending early; one before, by the popup)

        # The person rebuilds (the confirmation answered Yes by a stand-in for the dialog).
        monkeypatch.setattr(QMessageBox, "question", lambda *args: QMessageBox.StandardButton.Yes)
        window.rebuild_button.click()
        qtbot.waitUntil(lambda: window.progress.title.text().startswith("Done"), timeout=WAIT_MS)
        assert list((data_dir / "damaged").glob("*/catalog.sqlite3"))
        window.search.query.setText("word7x123")
        window.search.search_now()
        qtbot.waitUntil(lambda: bool(window.search.hits), timeout=WAIT_MS)
        assert window.search.hits[0].path == str(docs / "note07.md")
    finally:
        close_session(session)
        stop_the_service(data_dir)
