"""The desktop app, driven through its real window (offscreen) over a real library: real documents, real
embedding model, Chroma and BM25. A Qt warning fails the test (qt_log_level_fail in pyproject.toml)."""

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop_rag.config import Settings
from documents import write_pdf
from office_documents import message, write_zip
from window_sessions import stop_the_service

WAIT_MS = 180_000


def heron_folder(docs: Path) -> Path:
    write_pdf(docs / "birds.pdf", ["Herons\n\nThe grey heron hunts fish in shallow water at dawn.",
                                   "Swallows\n\nSwallows migrate south in autumn, crossing the Sahara."])
    (docs / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap every two weeks.\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7 this is not really a PDF")
    return docs


def index_and_wait(qtbot, window, folder: Path) -> None:
    window.folders.add_requested.emit(str(folder))

    def done():  # on a timeout, the line the panel shows instead is in the failure
        title = window.progress.title.text()
        assert title.startswith("Done") and "files indexed" in title, title

    qtbot.waitUntil(done, timeout=WAIT_MS)


def search_and_wait(qtbot, window, text: str, model_loaded: bool = True) -> None:
    # Typed while the embedding model loads, a query is answered by keywords first and asked again once it has
    # loaded: the hits would change under the test's feet (1 run in 4 failed so). `model_loaded=False`: typed at
    # once, as the test of that keywords-first answer wants.
    if model_loaded:
        qtbot.waitUntil(lambda: not window.search.meaning_model_loading, timeout=WAIT_MS)
    window.search.query.clear()
    qtbot.keyClicks(window.search.query, text)
    qtbot.waitUntil(lambda: bool(window.search.hits) and window.search._shown_query == text, timeout=WAIT_MS)


def test_adding_a_folder_indexes_it_shows_progress_and_the_corrupt_file_with_its_reason(qtbot, window, docs):
    win = window()
    qtbot.waitUntil(lambda: "add a folder" in win.progress.title.text())
    assert win.search.query.hasFocus()  # the query box has the focus on start
    index_and_wait(qtbot, win, heron_folder(docs))
    assert "2 files indexed" in win.progress.title.text() and "1 failed" in win.progress.title.text()
    assert win.progress.bars["embed"].value() == win.progress.bars["embed"].maximum() > 0
    for phase, count in win.progress.counts.items():  # "Done" above a phase's "0 / 33" was a number that cannot be
        assert not count.text() or len(set(count.text().split(" · ")[0].split(" / "))) == 1, (phase, count.text())
    errors = win.progress.errors.topLevelItem(0)
    assert win.progress.errors.isVisibleTo(win) and errors.text(0) == "1 file could not be read (found by name only)"
    assert errors.child(0).text(0).endswith("broken.pdf") and errors.child(0).text(1)  # with its reason
    qtbot.waitUntil(lambda: win.folders.list.count() == 1 and "2 files" in win.folders.list.item(0).text())


def test_a_folder_added_before_the_state_at_start_comes_back_keeps_its_done_line(qtbot, window, docs, monkeypatch):
    # The state read at start (read lane) and a folder added at once run side by side; when the state came back
    # last it replaced "Done…" with "2 files indexed…" — the intermittent 180 s waits of index_and_wait. The state
    # read is held here until the run is done (injected).
    from desktop_rag.core.library.reads import ClientReads

    released, counts = threading.Event(), ClientReads.counts
    monkeypatch.setattr(ClientReads, "counts", lambda self: (released.wait(WAIT_MS / 1000), counts(self))[1])
    win = window()
    index_and_wait(qtbot, win, heron_folder(docs))
    released.set()
    qtbot.waitUntil(lambda: win.runner.idle)
    qtbot.wait(300)  # the state's answer, and anything it started, reach the window
    qtbot.waitUntil(lambda: win.runner.idle)
    assert win.progress.title.text().startswith("Done") and "2 files indexed" in win.progress.title.text()


def test_search_shows_the_hit_with_its_context_set_apart_and_query_words_marked(qtbot, window, docs):
    win = window()
    index_and_wait(qtbot, win, heron_folder(docs))
    search_and_wait(qtbot, win, "heron fish")
    first = win.search.hits[0]
    assert Path(first.path).name == "birds.pdf" and first.page == 1
    label = win.search.results.itemWidget(win.search.results.item(0))
    html = label.text()
    # The context prefix: its own background, a CONTEXT label naming its source, before the original text.
    assert "bgcolor='#" in html and "<b>CONTEXT</b> · automatic" in html
    assert html.index("CONTEXT") < html.index("shallow water")
    assert "heron</span>" in html and "fish</span>" in html  # query words on a highlight background
    assert "page 1" in html
    assert "combined score" in label.toolTip() and "meaning similarity" in label.toolTip()
    assert "shallow water" in win.search.preview.toPlainText()  # the passage at once, its document read meanwhile
    qtbot.waitUntil(lambda: win.search._colors.mark_background in win.search.preview.toHtml(),  # read off-thread,
                    timeout=WAIT_MS)  # and its words marked
    assert "Herons" in win.search.preview.toHtml() and "shallow water" in win.search.preview.toHtml()

    opened = []
    win.search.open_file = lambda path, page: opened.append((Path(path).name, page))
    win.search.results.setFocus()
    qtbot.keyClick(win.search.results, Qt.Key.Key_Return)
    assert opened == [("birds.pdf", 1)]

    qtbot.keyClick(win.search.results, Qt.Key.Key_Escape)  # back to the field; a second Esc clears it
    assert win.search.query.hasFocus() and win.search.query.text() == "heron fish"
    qtbot.keyClick(win.search.query, Qt.Key.Key_Escape)
    assert win.search.query.text() == "" and win.search.results.count() == 0


def test_a_document_matching_everywhere_shows_two_passages_and_folds_the_rest_under_a_link(qtbot, window, docs,
                                                                                          monkeypatch):
    """Issue 37: a long document's passages crowded every other file out of the list."""
    from desktop_rag.ui import hit_list

    sections = "\n\n".join(f"## Pond {i}\n\n" + f"The heron of pond {i} waits for fish among the reeds. " * 30
                           for i in range(12))
    (docs / "herons-book.md").write_text(f"# A book of herons\n\n{sections}\n")
    (docs / "walk.md").write_text("# Walk\n\nA heron stood by the canal on our walk.\n")
    win = window()
    index_and_wait(qtbot, win, docs)
    search_and_wait(qtbot, win, "heron")
    names = [Path(hit.path).name for hit in win.search.hits]
    assert names.count("herons-book.md") == 2 and "walk.md" in names, names
    second = names.index("herons-book.md") + 1  # the book's second passage sits right under its first
    assert names[second] == "herons-book.md"
    label = win.search.results.itemWidget(win.search.results.item(second))
    folded = len(win.search._folded[win.search.hits[second].chunk_id])
    assert folded >= 3 and f"{folded} more passages in this file" in label.text()
    assert f"{folded + len(names)} results in 2 files" in win.search.message.text()

    # A busy machine draws one row per turn of the event loop: the first unfolded passage is selected once it is
    # drawn (it was not there yet when selected, and the selection was lost: 1 run in 4 failed so).
    monkeypatch.setattr(hit_list, "RENDER_BUDGET_S", 0.0)
    label.linkActivated.emit("show-folded")  # the link, as a click on it sends it
    names_after = [Path(hit.path).name for hit in win.search.hits]
    assert names_after.count("herons-book.md") == 2 + folded
    qtbot.waitUntil(lambda: win.search.results.currentRow() == second + 1, timeout=WAIT_MS)
    assert names_after[second:second + folded + 1] == ["herons-book.md"] * (folded + 1)
    assert "more passages" not in win.search.results.itemWidget(win.search.results.item(second)).text()


def test_a_mail_hit_shows_its_sender_and_an_archive_member_opens_as_a_copy(qtbot, window, docs):
    (docs / "ferry.eml").write_bytes(message("Ferry times", "The ferry to the island leaves at seven.",
                                             sender="Carl Holm <carl@example.org>"))
    write_zip(docs / "receipts.zip", {"tax/plumber.txt": b"Receipt for the plumber who fixed the leaking radiator."})
    win = window()
    index_and_wait(qtbot, win, docs)
    search_and_wait(qtbot, win, "ferry island")
    assert win.search.hits[0].path.endswith("ferry.eml")
    html = win.search.results.itemWidget(win.search.results.item(0)).text()
    assert "from Carl Holm &lt;carl@example.org&gt;" in html and "2025-03-14 09:30" in html

    search_and_wait(qtbot, win, "leaking radiator")
    assert win.search.hits[0].path == f"{docs}/receipts.zip › tax/plumber.txt"
    html = win.search.results.itemWidget(win.search.results.item(0)).text()
    assert "<b>receipts.zip › tax/plumber.txt</b>" in html  # named from the archive on, not from its last slash
    opened = []
    win.search.open_file = lambda path, page: opened.append(Path(path))
    win.search.results.setCurrentRow(0)
    win.search.results.setFocus()
    qtbot.keyClick(win.search.results, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(opened), timeout=WAIT_MS)  # taken out on the read lane, then opened
    assert opened[0].name == "plumber.txt" and b"leaking radiator" in opened[0].read_bytes()

    # What was opened gets its LLM contexts first, then a folder marked so in its menu comes before it.
    catalog = win.library.reads.reader  # the window's own read connection
    qtbot.waitUntil(lambda: catalog.upgrade_order.next_upgrades(limit=1)[0][1] == "opened from a search result",
                    timeout=WAIT_MS)  # the service notes it (on its own thread)
    first = catalog.upgrade_order.next_upgrades(limit=1)[0]
    assert win.library.reads.document_for_contexts(first[0])[0]["path"].endswith("plumber.txt")
    win.folders.upgrade_first_toggled.emit(str(docs), True)  # "Write LLM contexts here first", ticked
    qtbot.waitUntil(lambda: "LLM contexts first" in win.folders.list.item(0).text(), timeout=WAIT_MS)
    assert catalog.upgrade_order.upgrade_first_folders() == [str(docs)]
    assert catalog.upgrade_order.next_upgrades(limit=1)[0][1] == "in a folder marked upgrade first"


def test_editing_a_context_in_review_changes_what_search_finds(qtbot, window, docs):
    win = window()
    index_and_wait(qtbot, win, heron_folder(docs))
    win.tabs.setCurrentWidget(win.review)
    qtbot.waitUntil(lambda: win.review.model.rowCount() >= 3, timeout=WAIT_MS)
    rows = win.review.model.rows
    target = next(i for i, r in enumerate(rows) if "Compost" in r.context or "garden" in r.path)
    win.review.table.selectRow(win.review.proxy.mapFromSource(win.review.model.index(target, 0)).row())
    assert win.review.current.chunk_id == rows[target].chunk_id
    qtbot.waitUntil(lambda: "Turn the compost heap" in win.review.document.toPlainText(), timeout=WAIT_MS)
    assert not win.review.revert_button.isEnabled()  # nothing to revert before an edit

    win.review.editor.setPlainText("Zanzibar gardening routine for the allotment.")
    win.review.questions.setPlainText("How often is the quokka pile turned?\n\n  ")  # blank lines are dropped
    qtbot.mouseClick(win.review.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.review.message.text().startswith("Saved"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: win.review.current is not None and win.review.current.source == "manual")
    assert win.review.current.reviewed and win.review.revert_button.isEnabled()
    assert win.review.current.questions == "How often is the quokka pile turned?"

    win.tabs.setCurrentWidget(win.search)
    search_and_wait(qtbot, win, "zanzibar allotment")
    assert Path(win.search.hits[0].path).name == "garden.md"
    assert "edited by you" in win.search.results.itemWidget(win.search.results.item(0)).text()
    search_and_wait(qtbot, win, "quokka")  # a word only the hand-written question holds: keyword-indexed
    assert Path(win.search.hits[0].path).name == "garden.md"

    win.tabs.setCurrentWidget(win.review)
    qtbot.waitUntil(lambda: win.review.current is not None and win.review.current.source == "manual")
    qtbot.mouseClick(win.review.revert_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.review.current is not None and win.review.current.source == "rules",
                    timeout=WAIT_MS)


def test_a_context_edited_in_review_shows_in_the_search_tab_s_hit_at_once(qtbot, window, docs):
    win = window()
    index_and_wait(qtbot, win, heron_folder(docs))
    search_and_wait(qtbot, win, "compost heap")
    hit = win.search.hits[0]
    assert Path(hit.path).name == "garden.md"
    searches = win.search._query_sent

    win.tabs.setCurrentWidget(win.review)
    qtbot.waitUntil(lambda: any(r.chunk_id == hit.chunk_id for r in win.review.model.rows), timeout=WAIT_MS)
    target = next(i for i, r in enumerate(win.review.model.rows) if r.chunk_id == hit.chunk_id)
    win.review.table.selectRow(win.review.proxy.mapFromSource(win.review.model.index(target, 0)).row())
    win.review.editor.setPlainText("Walrus allotment diary, spring.")
    qtbot.mouseClick(win.review.save_button, Qt.MouseButton.LeftButton)
    win.tabs.setCurrentWidget(win.search)

    def first_hit_label() -> str:
        return win.search.results.itemWidget(win.search.results.item(0)).text()

    qtbot.waitUntil(lambda: "Walrus allotment diary" in first_hit_label(), timeout=WAIT_MS)
    assert win.search.hits[0].context_source == "manual" and "edited by you" in first_hit_label()
    assert win.search._query_sent == searches  # the hit was brought up to date, not searched again
    qtbot.waitUntil(lambda: "Walrus allotment diary" in win.search.preview.toPlainText(), timeout=WAIT_MS)


def test_pause_holds_indexing_and_resume_finishes_it(qtbot, window, docs):
    for i in range(150):
        (docs / f"note{i:03}.md").write_text(f"# Note {i}\n\nParagraph about topic number {i} and herons.\n")
    win = window()
    win.folders.add_requested.emit(str(docs))
    qtbot.waitUntil(lambda: win.progress.control is not None and win.progress.pause_button.isEnabled(),
                    timeout=WAIT_MS)
    qtbot.mouseClick(win.progress.pause_button, Qt.MouseButton.LeftButton)
    assert win.progress.control.paused and "(paused)" in win.progress.title.text()
    assert win.progress.pause_button.text() == "Resume"

    def work_done():
        stats = win.library.reads.counts()
        return stats["documents"]["indexed"], stats["chunks"] - stats["chunks_pending_embedding"]

    # The service holds the run after the step in hand (its first document starts the reader process: seconds
    # on a loaded machine, where a second without progress was once taken for the hold, CI at ec1c8cf), and says so.
    qtbot.waitUntil(lambda: any(state.get("held") for state in win.runs.active.values()), timeout=WAIT_MS)
    assert win.progress.current.text().startswith("Paused")
    held = work_done()
    qtbot.wait(2000)
    assert work_done() == held != (150, 150)  # nothing moves while paused, and the run was not over
    assert not win.progress.title.text().startswith("Done")
    qtbot.mouseClick(win.progress.pause_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.progress.title.text().startswith("Done"), timeout=WAIT_MS)
    assert "150 files indexed" in win.progress.title.text()


def test_on_start_the_window_reports_earlier_failures_and_finishes_work_a_killed_run_left(qtbot, window, docs,
                                                                                         make_library):
    heron_folder(docs)
    earlier = make_library(Settings(contexts="rules", llm_upgrade_when_idle=False))
    earlier.index([docs])
    earlier.catalog.mark_all_unembedded()  # as if the run had been killed before embedding
    earlier.vectors.reset()
    earlier.close()  # (the service the window starts is the data folder's one writer)
    win = window()  # the service it starts catches up (as it does at every start), then the window follows it
    qtbot.waitUntil(lambda: win.progress.errors.topLevelItem(0) is not None, timeout=WAIT_MS)
    assert win.progress.errors.topLevelItem(0).child(0).text(0).endswith("broken.pdf")
    qtbot.waitUntil(lambda: win.library.stats()["chunks_pending_embedding"] == 0, timeout=WAIT_MS)
    search_and_wait(qtbot, win, "compost heap")
    assert Path(win.search.hits[0].path).name == "garden.md"


def test_on_start_a_lost_dense_index_is_rebuilt_and_the_panel_says_so(qtbot, window, docs, make_library):
    heron_folder(docs)
    earlier = make_library(Settings(contexts="rules", llm_upgrade_when_idle=False))
    earlier.index([docs])
    earlier.vectors.reset()  # the store lost, the catalog still saying every chunk is in it
    earlier.close()
    win = window()
    qtbot.waitUntil(lambda: "meaning index was empty" in win.progress.title.text(), timeout=WAIT_MS)
    stats = win.library.stats()
    assert stats["dense_index_vectors"] >= stats["chunks"]
    win.search.mode.setCurrentIndex(win.search.mode.findData("dense"))
    search_and_wait(qtbot, win, "compost heap")
    assert Path(win.search.hits[0].path).name == "garden.md"


def test_the_settings_dialog_sets_when_background_llm_work_may_run(qtbot):
    from desktop_rag.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings(), "/tmp/data")
    qtbot.addWidget(dialog)
    assert dialog.background.isChecked() and dialog.only_idle.isChecked() and dialog.only_mains.isChecked()
    assert dialog.cap.text() == "no limit"
    dialog.only_idle.setChecked(False)
    dialog.cap.setValue(20)
    dialog.idle_minutes.setValue(10)
    chosen = dialog.chosen()
    assert (chosen.llm_only_when_idle, chosen.llm_cap_minutes_per_hour, chosen.llm_idle_minutes) == (False, 20, 10)
    assert chosen.llm_upgrade_when_idle and chosen.llm_only_on_mains


def test_settings_are_saved_and_applied_without_a_restart(qtbot, window, docs):
    win = window()
    chosen = Settings(**{**vars(win.library.settings), "llm_idle_minutes": 5.0, "chunk_tokens": 150})
    win.save_settings(chosen)  # carried out by the service
    qtbot.waitUntil(lambda: "Settings saved" in win.statusBar().currentMessage(), timeout=WAIT_MS)
    assert win.library.settings.llm_idle_minutes == 5.0
    assert Settings.load(win.library.data_dir).chunk_tokens == 150
    assert "Passage size: applies to files indexed from now on" in win.statusBar().currentMessage()  # what it does


def test_a_settings_change_reaches_each_view_as_changes(qtbot, window, docs):
    """The window follows a settings change by its Changes (Library.set_settings), not by calls placed beside
    each save: the rerank box by its settings, the folders' list by their OCR marks."""
    (docs / "otters.md").write_text("# Otters\n\nOtters float on their backs.\n")
    win = window()
    index_and_wait(qtbot, win, docs)
    assert not win.search.rerank.isEnabled()  # no cross-encoder set
    win.save_settings(Settings(**{**vars(win.library.settings), "rerank_model": str(docs)}))
    qtbot.waitUntil(win.search.rerank.isEnabled, timeout=WAIT_MS)
    win.set_folder_ocr(str(docs), False)
    qtbot.waitUntil(lambda: "no OCR" in win.folders.list.item(0).text(), timeout=WAIT_MS)
    assert win.library.settings.ocr_skip_folders == [str(docs)]


def test_when_idle_the_app_writes_the_queued_llm_contexts_and_a_new_run_goes_first(qtbot, window, docs):
    (docs / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap every two weeks.\n")
    # `auto`: rules contexts at once, the LLM's in the background upgrade.
    win = window(Settings(contexts="auto", llm_model="smollm2-135m-instruct-q4_1",
                          llm_upgrade_when_idle=True, llm_only_when_idle=False))
    index_and_wait(qtbot, win, docs)
    assert win.library.stats()["contexts_awaiting_upgrade"] > 0
    qtbot.waitUntil(lambda: "in the background" in win.progress.title.text(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: win.progress.title.text().startswith("Done: ") and "LLM" in win.progress.title.text(),
                    timeout=WAIT_MS)
    assert win.library.stats()["contexts_awaiting_upgrade"] == 0
    model = win.library.reads.reader._db.execute("SELECT model FROM contexts").fetchone()[0]
    assert model.lower().startswith("smollm2")  # written, or tried and recorded, by the model

    # A file saved meanwhile is indexed by the watcher (rules first); a person's run goes before the upgrade.
    (docs / "more.md").write_text("# More\n\nHerons hunt fish in shallow water.\n")
    qtbot.waitUntil(lambda: "Updated from disk: 1 indexed" in win.statusBar().currentMessage(), timeout=WAIT_MS)
    win.index([str(docs)])
    assert win.background.control is None or win.background.control.cancelled  # told to make way, if it ran
    qtbot.waitUntil(lambda: win.progress.title.text().startswith("Done: 0 files indexed"), timeout=WAIT_MS)
    assert "2 unchanged" in win.progress.title.text()


def test_the_window_follows_files_saved_renamed_and_deleted_in_its_folders(qtbot, window, docs):
    win = window()
    (docs / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap every two weeks.\n")
    index_and_wait(qtbot, win, docs)
    qtbot.waitUntil(lambda: win.watching_label.text() == "Watching 1 folder", timeout=WAIT_MS)
    search_and_wait(qtbot, win, "nettle")
    (docs / "weeds.md").write_text("# Weeds\n\nNettle soup is made from young nettle leaves.\n")
    # No click: the watcher indexes the new file and the open search shows it.
    qtbot.waitUntil(lambda: any(Path(h.path).name == "weeds.md" for h in win.search.hits), timeout=WAIT_MS)
    weeds = next(h for h in win.search.hits if Path(h.path).name == "weeds.md")
    (docs / "weeds.md").rename(docs / "nettles.md")
    qtbot.waitUntil(lambda: any(Path(h.path).name == "nettles.md" for h in win.search.hits), timeout=WAIT_MS)
    renamed = next(h for h in win.search.hits if Path(h.path).name == "nettles.md")
    assert renamed.chunk_id == weeds.chunk_id  # the same chunk, moved: nothing was redone
    (docs / "nettles.md").unlink()
    qtbot.waitUntil(lambda: all("nettle" not in h.text.lower() for h in win.search.hits), timeout=WAIT_MS)
    assert win.library.reads.document_record(str(docs.resolve() / "nettles.md")) is None


def test_choosing_another_data_folder_opens_its_library_in_place_of_this_one(qtbot, tmp_path, docs, monkeypatch):
    from desktop_rag.data_folders import resolve_data_dir
    from desktop_rag.ui.app import AppSession

    monkeypatch.delenv("DESKTOP_RAG_DATA_DIR", raising=False)
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):  # (no background service after the window: test_window_service.py's)
        Settings(contexts="rules", llm_upgrade_when_idle=False, keep_fresh_when_closed=False).save(folder)
    session = AppSession(first)
    try:
        old = session.window
        with qtbot.waitActive(old):
            old.show()
        index_and_wait(qtbot, old, heron_folder(docs))

        assert session.switch(str(second))
        assert session.library.data_dir == second and session.window is not old and not old.isVisible()
        qtbot.waitUntil(lambda: "add a folder" in session.window.progress.title.text(), timeout=WAIT_MS)
        assert session.library.reads.chunk_count() == 0  # the other library: nothing of the first shows
        assert resolve_data_dir() == second  # remembered, for the next start and for the CLI

        blocked = tmp_path / "a-file"
        blocked.write_text("not a folder")
        assert not session.switch(str(blocked / "data"))
        assert "Cannot use" in session.window.statusBar().currentMessage()
        assert session.library.data_dir == second and resolve_data_dir() == second

        # The window's mark moves with it (ui/single_instance.py): a launch on `second` finds its window open, one on
        # `first` would open its own.
        from desktop_rag.ui.single_instance import take_the_window_mark

        assert take_the_window_mark(second) is None
        first_mark = take_the_window_mark(first)
        assert first_mark is not None
        assert not session.switch(str(first))  # held (as another window would): not opened twice
        assert "is open already" in session.window.statusBar().currentMessage()
        first_mark.close()

        assert session.switch(str(first))
        search_and_wait(qtbot, session.window, "heron")
        assert session.window.search.hits[0].path.endswith("birds.pdf")
        assert take_the_window_mark(first) is None
        second_mark = take_the_window_mark(second)
        assert second_mark is not None
        second_mark.close()
    finally:
        session.window.close()
        session.close()
        for folder in (first, second):
            stop_the_service(folder)


def test_right_after_start_search_matches_keywords_until_the_model_has_loaded(qtbot, tmp_path, docs, monkeypatch):
    from desktop_rag.ui.app import AppSession

    monkeypatch.delenv("DESKTOP_RAG_DATA_DIR", raising=False)
    data = tmp_path / "data"
    settings = Settings(contexts="rules", llm_upgrade_when_idle=False, keep_fresh_when_closed=False)
    settings.save(data)
    from desktop_rag.core.library.library import Library

    with Library(data, settings) as indexed_before:  # as by an earlier session
        indexed_before.index([heron_folder(docs)])
    session = AppSession(data)  # as the app starts: the service it starts loads its embedding model, for seconds
    try:
        win = session.window
        with qtbot.waitActive(win):
            win.show()
        # In milliseconds: starting the model's child alone takes seconds.
        search_and_wait(qtbot, win, "heron fish", model_loaded=False)
        assert "Keyword matches for now" in win.search.message.text()
        assert win.search.hits[0].scores.dense is None and win.search.hits[0].scores.bm25 is not None
        # Once loaded, the shown results are searched again, by meaning and keywords (the chosen hybrid).
        qtbot.waitUntil(lambda: bool(win.search.hits) and win.search.hits[0].scores.dense is not None,
                        timeout=WAIT_MS)
        assert "Keyword matches" not in win.search.message.text()
        assert win.search.hits[0].path.endswith("birds.pdf")
    finally:
        session.window.close()
        session.close()
        stop_the_service(data)


def test_while_the_service_s_meaning_index_opens_the_window_shows_word_matches_then_asks_again(qtbot, tmp_path, docs,
                                                                                               monkeypatch):
    """After the service's rest, or at its start in a large library, its meaning index takes seconds to open (17 s
    at a million passages: core/search/meaning_wait.py): the service answers a hybrid search by words meanwhile,
    and the window asks again until meaning joins in. The store is kept opening by holding Chroma's open lock."""
    from desktop_rag.core.library.library import Library
    from desktop_rag.platform.file_locks import one_at_a_time
    from desktop_rag.storage.vector_store import OPEN_LOCK_FILE
    from desktop_rag.ui.app import AppSession
    from desktop_rag.ui.quick_search import QuickSearch, ServiceSearch

    monkeypatch.delenv("DESKTOP_RAG_DATA_DIR", raising=False)
    data = tmp_path / "data"
    settings = Settings(contexts="rules", llm_upgrade_when_idle=False, keep_fresh_when_closed=False)
    settings.save(data)
    with Library(data, settings) as indexed_before:
        indexed_before.index([heron_folder(docs)])
    opening = one_at_a_time(data / OPEN_LOCK_FILE)
    opening.__enter__()
    session = AppSession(data)
    try:
        win = session.window
        with qtbot.waitActive(win):
            win.show()
        win.search.meaning_model_loading = False  # as after a rest: the window had its answers by meaning before
        search_and_wait(qtbot, win, "heron fish", model_loaded=False)
        assert "Keyword matches for now: search by meaning joins in as soon as the meaning index has opened" in win.search.message.text()
        assert win.search.hits[0].scores.dense is None and win.search.hits[0].scores.bm25 is not None
        popup = QuickSearch(ServiceSearch(data))  # the quick popup, typed into, says it as the window does
        popup.show()
        qtbot.keyClicks(popup.field, "heron fish")
        qtbot.waitUntil(lambda: bool(popup.hits), timeout=WAIT_MS)
        assert popup.status.text().startswith("Keyword matches for now: search by meaning joins in as soon as")
        opening.__exit__(None, None, None)
        qtbot.waitUntil(lambda: bool(win.search.hits) and win.search.hits[0].scores.dense is not None,
                        timeout=WAIT_MS)
        assert "Keyword matches for now" not in win.search.message.text()
        qtbot.waitUntil(lambda: "Keyword matches" not in popup.status.text(), timeout=WAIT_MS)  # it asked again
        assert popup.hits[0].scores.dense is not None
        popup.close()
        assert win.search.hits[0].path.endswith("birds.pdf")
    finally:
        opening.__exit__(None, None, None)
        session.window.close()
        session.close()
        stop_the_service(data)


def test_shown_results_follow_a_switch_to_a_dark_palette(qtbot, window, docs, qapp):
    from PySide6.QtGui import QColor, QPalette

    from desktop_rag.ui.result_html import DARK, LIGHT

    win = window()
    index_and_wait(qtbot, win, heron_folder(docs))
    search_and_wait(qtbot, win, "heron fish")
    first_label = lambda: win.search.results.itemWidget(win.search.results.item(0)).text()  # noqa: E731
    assert LIGHT.context_background in first_label()
    light = qapp.palette()
    dark = QPalette(light)
    for role, colour in ((QPalette.ColorRole.Window, "#202124"), (QPalette.ColorRole.WindowText, "#e8eaed"),
                         (QPalette.ColorRole.Base, "#292a2d"), (QPalette.ColorRole.Text, "#e8eaed")):
        dark.setColor(role, QColor(colour))
    try:
        qapp.setPalette(dark)  # as when the system turns dark while the app runs
        qtbot.waitUntil(lambda: win.search.results.count() > 0 and DARK.context_background in first_label())
        assert DARK.selection in win.search.results.styleSheet()
        qtbot.waitUntil(lambda: DARK.chunk_background in win.search.preview.toHtml(), timeout=WAIT_MS)
        assert win.search.results.currentRow() == 0
    finally:
        qapp.setPalette(light)


def test_a_run_shows_one_overall_bar_with_readable_counts_and_says_what_is_being_indexed(qtbot, window, docs):
    for i in range(150):
        (docs / f"note{i:03}.md").write_text(f"# Note {i}\n\nParagraph about topic number {i} and herons.\n")
    win = window()
    first = docs.parent / "first"
    first.mkdir()
    index_and_wait(qtbot, win, heron_folder(first))  # something searchable already
    win.folders.add_requested.emit(str(docs))
    qtbot.waitUntil(lambda: win.progress.control is not None and win.progress.bars["parse"].value() > 5,
                    timeout=WAIT_MS)
    qtbot.mouseClick(win.progress.pause_button, Qt.MouseButton.LeftButton)  # hold it mid-run to look
    qtbot.waitUntil(lambda: any("indexing…" in win.folders.list.item(i).text()
                                for i in range(win.folders.list.count())), timeout=WAIT_MS)
    assert win.progress.overall.isVisible() and 0 < win.progress.overall_fraction < 1
    assert "%" in win.progress.overall_label.text()
    qtbot.waitUntil(lambda: "left" not in win.progress.overall_label.text(), timeout=5000)  # no time, paused
    parse = win.progress.counts["parse"].text()  # beside the bar, not drawn over it
    assert " / 150" in parse and not win.progress.bars["parse"].isTextVisible()

    search_and_wait(qtbot, win, "heron")
    assert "still being built" in win.search.message.text() and "% done" in win.search.message.text()

    qtbot.mouseClick(win.progress.pause_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.progress.title.text().startswith("Done"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: all("indexing" not in win.folders.list.item(i).text()
                                for i in range(win.folders.list.count())), timeout=WAIT_MS)
    search_and_wait(qtbot, win, "herons topic")
    assert "still being built" not in win.search.message.text()


def test_a_scan_is_found_shown_as_scanned_with_its_confidence_and_opens_at_its_page(qtbot, window, docs):
    from documents import scanned_image, write_scanned_pdf

    write_scanned_pdf(docs / "lease.pdf", [("Cover page of the lease, signed in March.", False),
                                           ("The monthly rent is 1,450 euros, due on the first day.", False)])
    scanned_image("CORNER BAKERY\nOat latte 3.90\nTOTAL 11.70", width_pt=220, height_pt=300).save(docs / "receipt.png")
    win = window()
    index_and_wait(qtbot, win, docs)
    search_and_wait(qtbot, win, "monthly rent euros")
    first = win.search.hits[0]
    assert Path(first.path).name == "lease.pdf" and first.page == 2
    html = win.search.results.itemWidget(win.search.results.item(0)).text()
    assert "page 2" in html and f"scanned page, OCR {first.ocr_confidence:.2f}" in html
    opened = []
    win.search.open_file = lambda path, page: opened.append((Path(path).name, page))
    win.search.results.setFocus()
    qtbot.keyClick(win.search.results, Qt.Key.Key_Return)
    assert opened == [("lease.pdf", 2)]

    review = win.review
    review.filter.setCurrentIndex(review.filter.findData("scanned"))
    qtbot.waitUntil(lambda: review.model.rowCount() == 3, timeout=WAIT_MS)  # two lease pages and the receipt
    assert all(" · OCR 0." in review.model.data(review.model.index(row, 3)) for row in range(3))

    win.folders.set_ocr(str(docs), False)  # the folder's menu: "Read scans and images (OCR)" unticked
    qtbot.waitUntil(lambda: win.library.settings.ocr_skip_folders == [str(docs)], timeout=WAIT_MS)
    assert Settings.load(win.library.data_dir).ocr_skip_folders == [str(docs)]
    qtbot.waitUntil(lambda: "no OCR" in win.folders.list.item(0).text(), timeout=WAIT_MS)


def test_a_data_folder_other_users_can_read_is_refused_at_start_in_a_window(qapp, tmp_path, monkeypatch):
    from desktop_rag.errors import DataFolderUnusable
    from desktop_rag.ui import app

    shown = []
    monkeypatch.setattr(app, "cannot_start", shown.append)  # a fake for the modal box: it would wait for a click
    monkeypatch.setattr(app, "favour_the_window", lambda: None)  # the test process's switch interval stays
    shared = tmp_path / "shared-data"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    with pytest.raises(DataFolderUnusable):
        app.run_app(shared)
    assert len(shown) == 1 and "other users" in shown[0] and f"chmod 700 {shared}" in shown[0]
