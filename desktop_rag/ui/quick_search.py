"""`desktop-rag quick`: a small search-as-you-type popup, answered by the background service (issue 40): a field,
the hits with their context, filters typed as words (`type:pdf`, `in:folder`, `after:2025-03`); Enter opens the
selected hit (the first one from the field), Ctrl+Enter in the list its folder, Esc closes. Ctrl+Enter in the field
asks the question (issue 63): the answer above the hits as the window shows it (ui/answer_view.py), its steps
followed from the service's events (service/answer_events.py), a marker selecting its passage; Esc stops it first.
It loads no model and opens no library: the service answers over the local endpoint, and when none runs the popup
starts it and says so.

Wayland gives no program a global key: bind `desktop-rag quick` to one in the desktop's keyboard settings (the
README says how on GNOME and KDE).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop_rag.core.library.access import library_writable
from desktop_rag.core.search.grouping import (group_by_document, no_good_match_words, not_listed_words,
                                              without_weak_tail)
from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.core.search.highlight import QueryMatch
from desktop_rag.core.search.meaning_wait import ASK_AGAIN_MS
from desktop_rag.core.search.searcher import Hit, SearchResult
from desktop_rag.documents import MEMBER_SEPARATOR
from desktop_rag.errors import UserError
from desktop_rag.service.background_process import (SERVICE_START_WAIT_S, answering_or_started, start_service,
                                                     wait_for_answer, who_answers)
from desktop_rag.service.answer_events import AnswerSteps
from desktop_rag.service.answers import AskAnswer
from desktop_rag.service.client import LibraryClient
from desktop_rag.service import wire
from desktop_rag.service.endpoint import EndpointClient, EndpointGone
from desktop_rag.platform.opening import OPENER_VERDICT_S
from desktop_rag.ui.hit_actions import (containing_folder, not_opened_words, open_folder_in_file_manager,
                                       open_with_system)
from desktop_rag.ui.answer_view import AnswerView, Asking
from desktop_rag.ui.errors import sentences
from desktop_rag.ui.hit_list import HitList
from desktop_rag.ui.tasks import TaskRunner
from desktop_rag.ui.theme import colors_for, icon

log = logging.getLogger(__name__)

DEBOUNCE_MS = 150  # search as you type: a pause this long between keys asks
HITS = 8
ANSWER_HEIGHT = 200  # pixels of the popup's 460 for an answer; the passages below keep the rest


class ServiceStarting(UserError):
    what = ""


class ServiceSearch:
    """A search answered by the data folder's service; none running: it is started (once), and the search waits
    for it to answer. A library this process may not write has no service (none could hold it): it is searched
    here, read-only, as the window searches it (issue 50)."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self._here = (None if library_writable(data_dir) else
                      LibraryClient(data_dir, local_only=True, read_only=True,
                                    served_by="the quick search (read-only library)"))
        self._client: EndpointClient | None = None
        self._started: subprocess.Popen | None = None  # the service this popup started
        self._starting = threading.Lock()  # the popup's preparation and its first search may both start it
        self.on_answer_step: Callable[[dict[str, Any]], None] = lambda event: None

    def __call__(self, query: str) -> SearchResult:
        if self._here is not None:
            return SearchResult.from_dict(self._here.run(wire.Search(query=query, limit=HITS, words_first=True)))
        for attempt in range(2):
            client = self._client or self._connect()
            try:
                return SearchResult.from_dict(client.run(wire.Search(query=query, limit=HITS, words_first=True)))
            except EndpointGone:  # it stopped meanwhile: asked again of whoever answers now
                self._client = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _connect(self) -> EndpointClient:
        client = EndpointClient.for_library(self.data_dir)
        if client is None:
            with self._starting:
                if self._started is not None:  # by the popup's preparation, a moment ago: waited for
                    hello = wait_for_answer(self.data_dir, SERVICE_START_WAIT_S, self._started)
                else:
                    hello = answering_or_started(self.data_dir, on_started=self._note_started)
            client = EndpointClient.for_library(self.data_dir) if hello is not None else None
            if client is None:
                raise ServiceStarting("the background index did not start: see logs/service.log in the data folder")
        self._client = client
        return client

    def ask(self, question: str, filters: SearchFilters | None, ask_id: str) -> AskAnswer:
        """A question answered by the service, its steps handed to `on_answer_step` as they come (on another
        thread); answered here, read-only, only its end is told."""
        if self._here is not None:
            return self._here.run(wire.Ask(question=question, filters=filters, ask_id=ask_id))
        client = self._client or self._connect()
        steps = AnswerSteps.of_service(self.data_dir, ask_id, self.on_answer_step)
        try:
            return client.run(wire.Ask(question=question, filters=filters, ask_id=ask_id))
        finally:
            if steps is not None:
                steps.stop()

    def cancel_ask(self, ask_id: str) -> None:
        """On a connection of its own: the asking one waits for the answer."""
        client = self._here or EndpointClient.for_library(self.data_dir)
        if client is not None:
            client.run(wire.CancelAsk(ask_id=ask_id))
            if client is not self._here:
                client.close()

    def openable(self, hit: Hit) -> str:
        """The path a viewer can open for `hit` (service/tools.py's open_hit)."""
        client = self._here or self._client or self._connect()
        return client.run(wire.OpenHit(chunk_id=hit.chunk_id, path=hit.path))["path"] or hit.path

    def prepare(self) -> None:
        """As the popup opens, on a connection of its own (the searches keep theirs): the service loads what a
        search needs while the person types; none running, it is started."""
        if self._here is not None:
            self._here.run(wire.PrepareSearch())
            return
        client = EndpointClient.for_library(self.data_dir)
        if client is None:
            self._start_service_once()
            return
        try:
            client.run(wire.PrepareSearch())
        finally:
            client.close()

    def _start_service_once(self) -> None:
        with self._starting:
            if self._started is None and who_answers(self.data_dir) is None:
                self.start_service()

    def _note_started(self, process: subprocess.Popen) -> None:
        self._started = process

    @property
    def started_service(self) -> bool:
        return self._started is not None

    @property
    def connected(self) -> bool:
        return self._client is not None or self._here is not None

    def service_answers(self) -> bool:
        """Whether a service answers now (a probe of its own: the searches keep their connection)."""
        return who_answers(self.data_dir) is not None

    def start_service(self) -> None:
        """The service of this data folder, in a session of its own: it goes on when the popup closes."""
        self._note_started(start_service(self.data_dir))

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._here is not None:
            self._here.close()


class QuickSearch(QWidget):
    # What Open asked for, when no program took it (from the opener's thread): the popup, hidden as it handed the
    # file over, comes back saying so (issue 60, 7: it closed, and nothing opened, where no program could).
    _not_opened = Signal(str)
    _answer_step = Signal(dict)  # from the thread following the service's events
    closed = Signal()

    def __init__(self, search: ServiceSearch, parent: QWidget | None = None):
        super().__init__(parent, Qt.WindowType.Dialog | Qt.WindowType.WindowStaysOnTopHint)
        self.setWindowTitle("desktop-rag")
        self.setWindowIcon(icon("app"))
        self.resize(680, 460)
        self._search = search
        self.runner = TaskRunner(self)
        self.hits: list[Hit] = []
        self._asked = 0  # only the newest query's answer is shown
        self.field = QLineEdit(placeholderText="Search your files…   type:pdf  in:folder  after:2025-03  from:anna")
        self.results = HitList()
        self.results.use_colors(colors_for(self.palette()))  # a tinted selection, as in the window's list
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # notices and file names: never read as markup
        self.status.setWordWrap(True)
        self.answer = AnswerView(colors_for(self.palette()), most_height=ANSWER_HEIGHT)
        self.asking = Asking(search, self.runner, self.answer, self._show_answer_hits, self)
        search.on_answer_step = self._answer_step.emit
        self._answer_step.connect(self.asking.step)
        self.answer.cite_clicked.connect(lambda number, match: self.results.setCurrentRow(number - 1))
        layout = QVBoxLayout(self)
        for widget in (self.field, self.status, self.answer, self.results):
            layout.addWidget(widget)
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self.search_now)
        self.field.textEdited.connect(lambda _: self._debounce.start())
        self.field.returnPressed.connect(lambda: self.open_hit(max(self.results.currentRow(), 0)))
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self._escape)  # type: ignore[call-overload]
        self.field.installEventFilter(self)
        self.results.open_requested.connect(self.open_hit)
        self.results.open_folder_requested.connect(self.open_folder)
        self.results.leave.connect(self.close)
        self._not_opened.connect(self._say_not_opened)
        # Closed once the system's opener has had its time to say it found no program (it says so within it).
        self._close_when_opened = QTimer(self, singleShot=True, interval=int(OPENER_VERDICT_S * 1000) + 500)
        self._close_when_opened.timeout.connect(self.close)

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        """Down in the field moves into the hits; Ctrl+Enter there asks (a key event, not a shortcut: the field's
        own Enter would take it first, as it opens the selected hit)."""
        if watched is self.field and event.type() == event.Type.KeyPress:
            if event.key() == Qt.Key.Key_Down:
                self.results.setFocus()
                return True
            control = event.modifiers() & Qt.KeyboardModifier.ControlModifier
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and control:
                self.ask_now()
                return True
        return super().eventFilter(watched, event)

    def showEvent(self, event):  # noqa: N802 (Qt's name)
        """What a search needs is loaded as the popup opens, while the person types: on the load lane, so a first
        search does not queue behind it. A failure here is the first search's to say."""
        super().showEvent(event)
        self.runner.load(self._search.prepare, on_error=lambda message: log.info("quick search: %s", message))

    def ask_now(self) -> None:
        if question := self.field.text().strip():
            self._debounce.stop()
            self._asked += 1  # a search on its way is not shown over the answer
            self.asking.ask(question, SearchFilters())

    def _show_answer_hits(self, hits: list[Hit], match: QueryMatch | None) -> None:
        self.hits = hits
        self.status.clear()
        self.results.show_hits(hits, colors_for(self.palette()), current_row=0 if hits else None, numbered=True)

    def _escape(self) -> None:
        """Esc stops an answer being written; otherwise it closes the popup."""
        if self.answer.answering:
            self.asking.cancel()
        else:
            self.close()

    def search_now(self) -> None:
        text = self.field.text().strip()
        self.asking.close()  # a search replaces an answer
        self._asked += 1
        if not text:
            self.hits = []
            self.results.clear()
            self.status.clear()
            return
        number = self._asked
        self.runner.read(lambda: self._search(text), on_done=lambda result: self._show(number, result),
                         on_error=lambda message: self._say(number, message))
        if not self._search.connected and not self._search.service_answers():
            self.status.setText("Starting the background index of this data folder (the first time, models "
                                "load)…")

    def _show(self, number: int, result: SearchResult) -> None:
        if number != self._asked:
            return
        # As the window lists them: a document's best passages where its best ranks, its others folded under
        # them (they filled the popup), and few weak matches after good ones (core/search/grouping.py).
        shown, left_out = without_weak_tail(result.hits)
        rows = group_by_document(shown)
        self.hits = [row.hit for row in rows]
        folded = {row.hit.chunk_id: len(row.folded) for row in rows if row.folded}
        self.results.show_hits(self.hits, colors_for(self.palette()), folded, current_row=0)
        notices = sentences(result.notices)  # as the window says them
        if result.weak:
            notices = f"{no_good_match_words(len(result.hits))} {notices}"
        elif left_out:
            notices = f"{not_listed_words(left_out)}. {notices}"
        self.status.setText(notices.strip() if result.hits else f"No results. {notices}".strip())
        if result.meaning_pending:  # by words while the service's meaning index opens: asked again till it answers
            QTimer.singleShot(ASK_AGAIN_MS, lambda: number == self._asked and self.search_now())

    def _say(self, number: int, message: str) -> None:
        if number == self._asked:
            self.status.setText(message)

    def open_hit(self, row: int) -> None:
        """The hit in the system's viewer; a document inside a file (an archive's member, a mail's attachment) is
        taken out of it by the service first, as the window does."""
        if not 0 <= row < len(self.hits):
            return
        hit = self.hits[row]
        if MEMBER_SEPARATOR in hit.path:
            self.status.setText(f"Taking {hit.path.rpartition(MEMBER_SEPARATOR)[2]} out of its file…")
        self.runner.read(lambda: self._search.openable(hit), on_done=self._open_path,
                         on_error=lambda message: self.status.setText(f"Cannot open it: {message}"))

    def _open_path(self, path: str) -> None:
        if not Path(path).exists():
            self.status.setText(f"{path} is no longer there: its folder is re-scanned as it changes.")
            return
        name = Path(path).name
        open_with_system(QUrl.fromLocalFile(path), lambda: self._not_opened.emit(name))
        self._out_of_the_way()

    def open_folder(self, row: int) -> None:
        if 0 <= row < len(self.hits):
            folder = containing_folder(self.hits[row])
            open_folder_in_file_manager(folder, lambda: self._not_opened.emit(folder))
            self._out_of_the_way()

    def _out_of_the_way(self) -> None:
        """Hidden at once, as the file opens; closed once no failure can come any more."""
        self.hide()
        self._close_when_opened.start()

    def _say_not_opened(self, name: str) -> None:
        self._close_when_opened.stop()
        self.status.setText(not_opened_words(name))
        self.show()
        self.raise_()
        self.activateWindow()

    def closeEvent(self, event):  # noqa: N802 (Qt's name)
        self.asking.cancel()
        self.runner.close()
        self._search.close()
        super().closeEvent(event)
        self.closed.emit()  # (a hidden popup closing is no last window closing: `quick` quits on this)


def run_quick(data_dir: Path) -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    popup = QuickSearch(ServiceSearch(data_dir))
    popup.closed.connect(app.quit)
    popup.show()
    popup.raise_()
    popup.activateWindow()
    popup.field.setFocus()
    return app.exec()
