"""Issue 60, 5 and 6: what a person is shown says "passage", never the engine's words (chunk, vector, embedding,
token, bm25, chroma, dense, cross-encoder, "made way"), has no doubled bracket, puts separators in large counts,
and cuts no label short without a tooltip holding the whole — in the CLI's human output and across the window's
tabs, menus, tooltips and dialogs (tests/shown_words.py says what is checked)."""

from __future__ import annotations

import pytest

from cli_runner import cli
from shown_words import clipped_cells, clipped_labels, faults, faults_in, widget_texts

pytestmark = pytest.mark.slow


def _folder(docs):
    (docs / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap every two weeks.\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7 this is not really a PDF")
    for n in range(1, 1201):  # over a thousand passages: counts that need their separators (none in the text)
        name = "".join(chr(ord("a") + int(digit)) for digit in str(n))
        (docs / f"note{n:04}.md").write_text(f"# Harbour note {name}\n\nThe harbour crane {name} was serviced.\n")
    return docs


def test_the_cli_says_what_it_did_in_a_persons_words(docs, data_dir):
    folder = _folder(docs)
    said = {"index": cli(data_dir, "index", str(folder), "--contexts", "rules"),
            "stats": cli(data_dir, "stats"), "doctor": cli(data_dir, "doctor"),
            "search": cli(data_dir, "search", "compost heap"), "rebuild": cli(data_dir, "rebuild")}
    found = [f"{command}: {line!r}: {', '.join(fault)}" for command, result in said.items()
             for line in (result.stdout + result.stderr).splitlines() if (fault := faults(line))]
    assert not found, "\n".join(found)
    assert "1,201 files indexed" in said["index"].stdout and "Passages:" in said["stats"].stdout


def test_the_window_says_what_it_shows_in_a_persons_words_and_cuts_nothing_short(qtbot, docs, data_dir):
    from test_ui import index_and_wait, search_and_wait
    from window_sessions import close_session, open_session, stop_the_service

    from desktop_rag.config import Settings
    from desktop_rag.ui.settings_dialog import SettingsDialog

    session = open_session(qtbot, data_dir, Settings(contexts="rules", llm_upgrade_when_idle=False))
    win = session.window
    try:
        seen = list(widget_texts(win))  # the first run's window: nothing indexed yet
        index_and_wait(qtbot, win, _folder(docs))
        search_and_wait(qtbot, win, "compost heap")
        shown_in = {}
        for size in ((1200, 800), (1000, 700)):  # as it opens, and on a smaller screen
            win.resize(*size)
            for index in range(win.tabs.count()):  # each tab as a person opens it: search, review, stats
                win.tabs.setCurrentIndex(index)
                qtbot.wait(1500)  # (a tab reads what it shows when it is opened)
                seen += widget_texts(win)
                shown_in[f"{win.tabs.tabText(index)} at {size}"] = clipped_labels(win) + clipped_cells(win)
        dialog = SettingsDialog(win.library.settings, str(data_dir), win)  # the settings, as the menu opens them
        qtbot.addWidget(dialog)
        dialog.show()
        seen += widget_texts(dialog)
        shown_in["Settings"] = clipped_labels(dialog) + clipped_cells(dialog)  # (its key hint was "…bindsym line")
        dialog.close()
        assert not (bad := faults_in(seen)), "\n".join(bad)
        assert {tab: clipped for tab, clipped in shown_in.items() if clipped} == {}
    finally:
        close_session(session)
        stop_the_service(data_dir)
