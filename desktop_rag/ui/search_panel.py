"""The search view: query box (results as you type, debounced; recent searches under it), mode and rerank, the
filter bar (ui/filter_bar.py), the hits with context prefixes set apart (ui/hit_list.py), a document's passages
together and few (core/search/grouping.py), a menu per hit (ui/hit_actions.py), and a preview of the hit inside
its document. A question asked (Ctrl+Enter in the field, or Ask) is answered above the hits (ui/answer_view.py), its
passages numbered below. Keys: Down from the field into the results, Enter opens a hit, Ctrl+Enter its folder, Esc
back to the field (a second Esc clears it, or stops an answer being written)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QEvent, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QCheckBox, QComboBox, QCompleter, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from desktop_rag.core.answering.asking import NOT_SAID
from desktop_rag.core.search.grouping import group_by_document, without_weak_tail
from desktop_rag.core.search.highlight import QueryMatch
from desktop_rag.core.search.meaning_wait import ASK_AGAIN_MS
from desktop_rag.core.search.query import without_filter_word
from desktop_rag.core.search.searcher import Hit, SearchResult
from desktop_rag.documents import folder_and_name, how_many
from desktop_rag.ui.answer_view import AnswerView, Asking
from desktop_rag.ui.errors import NOTHING_INDEXED, NOTHING_SEARCHABLE_YET, nothing_indexed_is_none, sentences
from desktop_rag.ui.filter_bar import FilterBar
from desktop_rag.ui.hit_actions import (containing_folder, hit_menu, not_opened_words, open_folder_in_file_manager,
                                       open_hit_file, open_in_system_viewer)
from desktop_rag.ui.hit_list import HitList
from desktop_rag.ui.result_html import found_words, results_line
from desktop_rag.ui.recent_searches import RecentSearches
from desktop_rag.ui.document_preview import show_in_document, with_matches
from desktop_rag.ui.theme import colors_for
from desktop_rag.service.remote_library import RemoteLibrary
from desktop_rag.ui.tasks import TaskRunner


DEBOUNCE_MS = 250
MODES = (("Hybrid", "hybrid"), ("Meaning", "dense"), ("Keywords", "bm25"))
RESULTS = 30  # rows shown
# Hits asked for: a document's passages beyond the first two are folded, so more than the rows shown are needed
# for RESULTS rows of several documents.
HITS_ASKED = 2 * RESULTS


class SearchPanel(QWidget):
    status = Signal(str)
    _not_opened = Signal()  # the system had no program for what Open asked (from the opener's thread)

    def __init__(self, library: RemoteLibrary, runner: TaskRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.library = library
        self.runner = runner
        self.open_file = self.open_in_system  # replaced in tests: no viewer is launched there
        self.open_folder = self.open_folder_in_system  # likewise
        self.hits: list[Hit] = []  # the rows shown
        self._folded: dict[int, list[Hit]] = {}  # a row's chunk id -> its document's passages folded under it
        self._query_sent = 0  # only the newest search's answer is shown
        self._answered = 0  # the number of the last search answered (shown, or its error)
        self._shown_query = ""
        self._match: QueryMatch | None = None  # the shown result's query words (SearchResult.match)
        self.meaning_model_loading = False  # set by the window while the embedding model loads
        # The window says here whether a run is still adding to the index ("The index is still being built …").
        self.building_note = lambda: ""
        self._keywords_only_for_now = False  # the shown results matched keywords only, the model being loaded

        self.query = QLineEdit(placeholderText="Search your files…  (Ctrl+K)   type:pdf  in:folder  after:2025-03  "
                               "from:name")
        self.query.setClearButtonEnabled(True)
        self.recent = RecentSearches(library.data_dir)
        self._recent_model = QStringListModel(self.recent.items, self)
        completer = QCompleter(self._recent_model, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.query.setCompleter(completer)
        self.filter_bar = FilterBar()
        self.mode = QComboBox()
        for label, value in MODES:
            self.mode.addItem(label, value)
        self.mode.setToolTip("Hybrid: meaning and keywords together. Meaning: near in meaning. Keywords: the words.")
        self.rerank = QCheckBox("Rerank")
        self._update_rerank_availability()
        self.results = HitList()
        self._colors = colors_for(self.palette())
        self.results.use_colors(self._colors)
        self.preview = QTextBrowser()
        self.preview.setOpenLinks(False)
        self.message = QLabel()
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # notices and file names: never read as markup
        self.message.setWordWrap(True)
        self.answer = AnswerView(self._colors)
        self.asking = Asking(library, runner, self.answer, self._show_answer_hits, self)
        self._cited: dict[int, QueryMatch] = {}  # a row whose marker was clicked: the cited sentence's words
        self.ask_button = QPushButton("Ask")
        self.ask_button.setToolTip("Answer the question from your files, every sentence citing its passage "
                                   "(Ctrl+Enter)")

        top = QHBoxLayout()
        for widget, stretch in ((self.query, 1), (self.ask_button, 0), (self.mode, 0), (self.rerank, 0)):
            top.addWidget(widget, stretch)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.results)
        split.addWidget(self.preview)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.filter_bar)
        layout.addWidget(self.message)
        layout.addWidget(self.answer)  # as tall as its answer (ui/answer_view.py); the hits take the rest
        layout.addWidget(split, 1)
        for before, after in ((self.query, self.mode), (self.mode, self.rerank), (self.rerank, self.results)):
            self.setTabOrder(before, after)

        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self.search_now)
        self.query.textEdited.connect(self._query_edited)
        self.query.returnPressed.connect(self._enter_in_query)
        self.ask_button.clicked.connect(self.ask_now)
        self.answer.cite_clicked.connect(self._show_cited)
        completer.activated.connect(lambda _: self.search_now())
        self.filter_bar.changed.connect(self.search_now)
        self.filter_bar.remove_query_filter.connect(self._remove_query_filter)
        self.results.menu_requested.connect(lambda row, where: self.hit_menu(row).exec(where))
        self.results.open_requested.connect(self.open_hit)
        self.results.unfold_requested.connect(self.unfold)
        self.results.open_folder_requested.connect(lambda row: self._open_folder(containing_folder(self.hits[row])))
        self.results.leave.connect(self.query.setFocus)
        self.query.installEventFilter(self)
        self.mode.currentIndexChanged.connect(lambda _: self.search_now())
        self.rerank.toggled.connect(lambda _: self.search_now())
        self.results.currentRowChanged.connect(self._show_preview)
        self._opening = ""  # the name of what Open asked the system for last
        self._not_opened.connect(lambda: self.message.setText(not_opened_words(self._opening)))
        # Esc in the field clears it; in the results it returns to the field (eventFilter): the field's own only.
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.query, activated=self.clear,  # type: ignore[call-overload]
                  context=Qt.ShortcutContext.WidgetShortcut)  # (Qt's keywords, which its stubs do not list)

    def _use_palette_colors(self) -> bool:
        """Take the colours of the current palette; True if they changed (light ↔ dark)."""
        colors = colors_for(self.palette())
        if colors == self._colors:
            return False
        self._colors = self.answer.colors = colors
        self.results.use_colors(colors)
        return True

    def changeEvent(self, event):  # noqa: N802 (Qt's name)
        """The system switched between light and dark: shown hits and the preview are drawn again in its colours."""
        super().changeEvent(event)
        # A closed window (its library closed too) must not start work; an open one on another tab redraws.
        if (event.type() == QEvent.Type.PaletteChange and self.window().isVisible() and self._use_palette_colors()
                and self.hits):
            self._draw_hits(max(0, self.results.currentRow()))

    # -- searching ------------------------------------------------------------------------------------------

    def search_now(self) -> None:
        self._debounce.stop()
        self.asking.close()  # a search replaces an answer (and stops one being written)
        text = self.query.text().strip()
        filters, sort = self.filter_bar.filters(), self.filter_bar.sort_order()
        if not text and filters.empty:
            self.clear_results()
            return
        self._query_sent += 1
        number, mode, rerank = self._query_sent, self.mode.currentData(), self.rerank.isChecked()
        # Right after start the embedding model is still loading (seconds): keyword matches now, the chosen
        # search again once it is ready (meaning_model_ready).
        self._keywords_only_for_now = mode != "bm25" and self.meaning_model_loading
        if self._keywords_only_for_now:
            mode, rerank = "bm25", False
        self.status.emit("Searching…")
        self.runner.search(
            lambda: nothing_indexed_is_none(lambda: self.library.search(
                text, k=HITS_ASKED, mode=mode, rerank=rerank, filters=filters, sort=sort, facets=True,
                words_first=True)),
            on_done=lambda result: self._show(number, result),
            on_error=lambda message: self._show_error(number, message),
        )

    def find_similar(self, hit: Hit) -> None:
        """The passages nearest in meaning to `hit` (its own vector as the query), within the filter bar's filters."""
        self._query_sent += 1
        number, filters = self._query_sent, self.filter_bar.filters()
        self.status.emit("Searching…")
        self.runner.search(lambda: self.library.similar(hit.chunk_id, k=HITS_ASKED, filters=filters),
                         on_done=lambda result: self._show(number, result),
                         on_error=lambda message: self._show_error(number, message))

    def _query_edited(self, text: str) -> None:
        self._debounce.start()

    def _remove_query_filter(self, key: str, value: str) -> None:
        self.query.setText(without_filter_word(self.query.text(), key, value))
        self.search_now()

    def remember_query(self) -> None:
        """The shown query was used (Enter, a hit opened or looked at): offered again under the field."""
        if self.recent.add(self._shown_query):
            self._recent_model.setStringList(self.recent.items)

    def set_folders(self, folders: list[str]) -> None:
        self.filter_bar.set_folders(folders)

    def meaning_model_ready(self) -> None:
        """The embedding model has loaded (or failed to: the chosen search then says why)."""
        self.meaning_model_loading = False
        if self._keywords_only_for_now and self.query.text().strip():
            self.search_now()

    def _enter_in_query(self) -> None:
        if self.hits and self.query.text().strip() == self._shown_query:
            self.open_hit(max(0, self.results.currentRow()))
        else:
            self.search_now()

    def _show(self, number: int, result: SearchResult | None) -> None:
        if number != self._query_sent:
            return  # a newer query is on its way
        self._answered = number
        if result is None:  # nothing indexed yet
            self.clear_results()
            building = self.building_note()
            # While a run reads the files, the search is asked again as they become searchable (show_changes).
            message = f"{building}. {NOTHING_SEARCHABLE_YET}" if building else NOTHING_INDEXED
            self.message.setText(message)
            self.status.emit(message)
            return
        self._shown_query, self._match = result.query, result.match
        if result.meaning_pending:  # by words while the service's meaning index opens: asked again till it answers
            QTimer.singleShot(ASK_AGAIN_MS, lambda: number == self._query_sent and self.search_now())
        self.filter_bar.show_query_filters(result.filter_words)  # as the search parsed them: the one parse
        self.filter_bar.show_facets(result.facets)
        shown, left_out = without_weak_tail(result.hits)
        rows = group_by_document(shown)[:RESULTS]
        self.hits = [row.hit for row in rows]
        self._folded = {row.hit.chunk_id: row.folded for row in rows if row.folded}
        self.results.show_hits(self.hits, self._colors, self._folded_counts())
        passages = len(self.hits) + sum(map(len, self._folded.values()))
        found = found_words(result, passages, len({hit.path for hit in self.hits}), left_out)
        self.message.setText(results_line(found, sentences(result.notices), self._keywords_only_for_now,
                                          self.building_note()))
        self.status.emit(found)
        if result.hits:
            self.results.setCurrentRow(0)
        else:
            self.preview.clear()

    def show_changes(self, changes) -> None:
        """A write changed something (core/indexing/changes.py): hits whose context changed show the new one at once;
        added, changed or removed files are searched for again; the rerank box follows its settings."""
        if {"rerank", "rerank_model"} & changes.settings:
            self._update_rerank_availability()
        if changes.documents and self.query.text().strip() and not self.answer.isVisible():
            self.search_now()  # the results may have changed
            return
        stale = [hit.chunk_id for hit in self.hits if hit.chunk_id in changes.contexts]
        if stale:
            number = self._query_sent
            match = self._match
            self.runner.read(lambda: with_matches(self.library.reads.contexts_of(stale), match),
                             on_done=lambda rows: self._show_contexts(number, rows))

    def _show_contexts(self, number: int, rows: dict[int, dict]) -> None:
        if number != self._query_sent:
            return  # another query's hits are shown now
        self.hits = [replace(hit, context=rows[hit.chunk_id]["text"], context_source=rows[hit.chunk_id]["source"],
                             quality=rows[hit.chunk_id]["quality"], questions=rows[hit.chunk_id]["questions"],
                             matches={**hit.matches, **rows[hit.chunk_id]["matches"]})
                     if hit.chunk_id in rows else hit for hit in self.hits]
        self._draw_hits(max(0, self.results.currentRow()))

    def _folded_counts(self) -> dict[int, int]:
        return {chunk_id: len(hits) for chunk_id, hits in self._folded.items()}

    def _draw_hits(self, current_row: int) -> None:
        """The shown rows drawn again (new contexts, colours, an unfolded document), `current_row` selected: the
        first rows are drawn at once, and the preview follows the selection."""
        self.results.show_hits(self.hits, self._colors, self._folded_counts(), min(current_row, len(self.hits) - 1))

    def unfold(self, row: int) -> None:
        """The passages of a row's document folded under it, shown after it."""
        if not 0 <= row < len(self.hits):
            return
        more = self._folded.pop(self.hits[row].chunk_id, [])
        if more:
            self.hits[row + 1:row + 1] = more
            self._draw_hits(row + 1)

    def _show_error(self, number: int, message: str) -> None:
        if number == self._query_sent:
            self._answered = number
            self.message.setText(message)
            self.status.emit(message)

    def clear(self) -> None:
        if self.answer.answering:  # Esc stops the answer being written; the question stays
            self.asking.cancel()
            return
        self.asking.close()
        self.query.clear()
        self.clear_results()

    def clear_results(self) -> None:
        self._query_sent += 1
        self.hits = []
        self._folded = {}
        self._shown_query = ""
        self.filter_bar.show_query_filters([])
        self.results.clear()
        self.preview.clear()
        self.message.clear()

    # -- a question -------------------------------------------------------------------------------------------

    def ask_now(self) -> None:
        if question := self.query.text().strip():
            self._debounce.stop()
            self._query_sent += 1  # a search on its way is not shown over the answer
            self.asking.ask(question, self.filter_bar.filters())

    def _show_answer_hits(self, hits: list[Hit], match: QueryMatch | None) -> None:
        self._shown_query, self._match, self._cited = self.query.text().strip(), match, {}
        self.hits, self._folded = hits, {}
        self.message.clear()
        self.status.emit(f"{how_many(len(hits), 'passage')} for the answer" if hits else NOT_SAID)
        self.results.show_hits(hits, self._colors, current_row=0 if hits else None, numbered=True)

    def _show_cited(self, number: int, match: QueryMatch | None) -> None:
        """A marker clicked: its passage selected, the cited words marked in the preview; Enter opens it."""
        if 0 <= (row := number - 1) < len(self.hits):
            self._cited = {row: match} if match is not None else {}
            self.results.setCurrentRow(row)
            self._show_preview(row)
            self.results.setFocus()

    # -- a hit ----------------------------------------------------------------------------------------------

    def _show_preview(self, row: int) -> None:
        if not 0 <= row < len(self.hits):
            return
        hit = self.hits[row]
        show_in_document(self.preview, self.runner, self.library, hit.chunk_id, self._cited.get(row, self._match),
                         hit.context, hit.context_source, fallback=hit.text, questions=hit.questions,
                         colors=self._colors)

    def hit_menu(self, row: int):
        hit = self.hits[row]
        folded = len(self._folded.get(hit.chunk_id, ()))
        return hit_menu(self, hit, lambda: self.open_hit(row), self._open_folder, self.find_similar,
                        unfold=(lambda: self.unfold(row)) if folded else None, folded=folded)

    def _open_folder(self, folder: str) -> None:
        self.remember_query()
        self._opening = folder
        self.open_folder(folder)

    def open_in_system(self, path: str, page: int | None) -> None:
        open_in_system_viewer(path, page, self._not_opened.emit)

    def open_folder_in_system(self, folder: str) -> None:
        open_folder_in_file_manager(folder, self._not_opened.emit)

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        """Ctrl+Enter in the field asks; Down moves into the results (when the recent searches are not showing), or
        in an empty field shows the recent searches."""
        if not (watched is self.query and event.type() == QEvent.Type.KeyPress):
            return False
        control = event.modifiers() & Qt.KeyboardModifier.ControlModifier
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and control:
            self.ask_now()
            return True
        if event.key() != Qt.Key.Key_Down:
            return False
        completer = self.query.completer()
        if completer.popup().isVisible():
            return False
        if not self.query.text() and self.recent.items:
            completer.setCompletionPrefix("")
            completer.complete()
            return True
        if self.hits:
            self.remember_query()
            self.results.setFocus()
            self.results.setCurrentRow(max(0, self.results.currentRow()))
            return True
        return False

    def open_hit(self, row: int) -> None:
        if 0 <= row < len(self.hits):
            self.remember_query()
            self._opening = folder_and_name(self.hits[row].path)[1]
            open_hit_file(self.hits[row], self.library, self.runner, self.message.setText, self.open_file)

    def _update_rerank_availability(self) -> None:
        available = bool(self.library.settings.rerank_model)
        self.rerank.setEnabled(available)
        self.rerank.setChecked(available and self.library.settings.rerank)
        self.rerank.setToolTip("Rerank the top results with the reranking model" if available else
                               "Set a reranking model in Settings to rerank")
