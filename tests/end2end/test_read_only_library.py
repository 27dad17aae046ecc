"""A library whose data folder cannot be written (issue 50, 2): a read-only disk, a copy, another user's. It is
searched — by words and by meaning, from the catalog's copy of the vectors, as Chroma cannot open a store it may
not write — by the CLI, by agents and in the window, each saying what cannot be done there; no service is started
for it (none could hold it), and writing commands say why they cannot.

Made read-only as root with the immutable flag (root passes every permission check), else with the modes."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from cli_runner import cli, cli_json
from desktop_rag.config import Settings
from desktop_rag.core.library.read_only import READ_ONLY_SEARCH
from desktop_rag.service.background_process import who_answers
from shown_words import clipped_cells, clipped_labels, faults_in, widget_texts
from window_sessions import WAIT_MS, close_session, open_session


def make_read_only(folder) -> None:
    if os.geteuid() == 0:
        made = subprocess.run(["chattr", "-R", "+i", str(folder)], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"the immutable flag is not available here: {made.stderr.strip()}")
    else:
        subprocess.run(["chmod", "-R", "a-w", str(folder)], check=True)


def make_writable(folder) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-R", "-i", str(folder)], capture_output=True)
    subprocess.run(["chmod", "-R", "u+w", str(folder)], capture_output=True)


@pytest.fixture
def read_only_library(docs, data_dir):
    (docs / "heron.md").write_text("# Herons\n\nThe grey heron stands still in the shallows and spears passing "
                                   "fish with its beak.\n")
    (docs / "router.md").write_text("# Router\n\nUpdate the router firmware every month from the admin page.\n")
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    cli(data_dir, "index", str(docs))
    make_read_only(data_dir)
    try:
        with pytest.raises(OSError):
            (data_dir / "probe").write_text("")
        yield data_dir, docs
    finally:
        make_writable(data_dir)


def services_allowed() -> dict[str, str]:
    return {**os.environ, "DESKTOP_RAG_START_SERVICE": "1"}  # as a person's CLI: it would start one if it could


def test_the_cli_searches_a_read_only_library_by_words_and_meaning_and_says_what_it_cannot_do(read_only_library):
    data_dir, docs = read_only_library
    words = cli(data_dir, "search", "router firmware", "--json", env=services_allowed())
    meaning = cli_json(data_dir, "search", "a bird that catches fish", "--mode", "dense", "--json")
    assert json.loads(words.stdout)["results"][0]["path"] == str(docs / "router.md")
    assert meaning["results"][0]["path"] == str(docs / "heron.md")
    assert READ_ONLY_SEARCH in meaning["notices"]
    assert "cannot be written" in cli(data_dir, "search", "heron", env=services_allowed()).stderr

    stats = cli_json(data_dir, "stats", "--json")
    assert stats["documents"]["indexed"] == 2 and stats["dense_index_vectors"] == 2
    assert cli(data_dir, "doctor").returncode == 0
    refused = cli(data_dir, "index", str(docs), check=False, env=services_allowed())
    assert refused.returncode == 1 and "cannot be written" in refused.stderr
    assert "internal error" not in refused.stderr + words.stderr
    assert who_answers(data_dir) is None  # no service was started for a library it could not hold


def test_the_window_searches_a_read_only_library_and_says_it_is_read_only(qtbot, read_only_library):
    data_dir, docs = read_only_library
    session = open_session(qtbot, data_dir)
    window = session.window
    try:
        window.search.query.setText("bird catching fish")
        window.search.search_now()
        qtbot.waitUntil(lambda: bool(window.search.hits), timeout=WAIT_MS)
        assert window.search.hits[0].path == str(docs / "heron.md")
        assert window.service_label.text().startswith("Read-only library")
        assert who_answers(data_dir) is None and window.link.started is None
        # What would write is not offered: no action, button, menu or editor that could only fail.
        assert not any(act.isEnabled() for act in window.write_actions)
        assert not window.folders.add_button.isEnabled() and not window.folders.list.acceptDrops()
        window.folders.list.setCurrentRow(0)
        assert window.folders.selected() and not window.folders.rescan_button.isEnabled()
        window.tabs.setCurrentWidget(window.review)
        qtbot.waitUntil(lambda: window.review.model.rowCount() == 2, timeout=WAIT_MS)
        window.review.table.selectRow(0)
        assert window.review.editor.toPlainText() and window.review.editor.isReadOnly()
        assert not window.review.save_button.isEnabled() and not window.review.regenerate_button.isEnabled()
        qtbot.waitUntil(lambda: window.background.waiting is not None, timeout=WAIT_MS)
        assert window.background.action is None
        assert window.background.waiting == 2 and "read-only" in window.background.status_text()
        # What it says in this state, in a person's words and whole (issue 60: the words test's read-only state)
        for tab in range(window.tabs.count()):
            window.tabs.setCurrentIndex(tab)
            qtbot.wait(1000)  # (a tab reads what it shows when it is opened)
            assert not (bad := faults_in(widget_texts(window))), "\n".join(bad)
            assert clipped_labels(window) + clipped_cells(window) == [], window.tabs.tabText(tab)
    finally:
        close_session(session)


def test_the_quick_search_searches_a_read_only_library_and_starts_no_service(qtbot, read_only_library):
    from desktop_rag.ui.quick_search import QuickSearch, ServiceSearch

    data_dir, docs = read_only_library
    popup = QuickSearch(ServiceSearch(data_dir))
    qtbot.addWidget(popup)
    popup.show()  # its preparation: a service would be started here for a library one may write
    popup.field.setText("router firmware")
    popup.search_now()
    qtbot.waitUntil(lambda: bool(popup.hits), timeout=WAIT_MS)
    assert popup.hits[0].path == str(docs / "router.md")
    assert "Starting the background index" not in popup.status.text()
    popup.close()
    assert who_answers(data_dir) is None and not popup._search.started_service
