"""The list of hits: each drawn as rich text (ui/result_html.py), a few at a time so the window never stalls, as
tall as its text at the list's width; a document's further passage indented under its first, and a link on its
last shown one when more are folded (core/search/grouping.py); and its keys — Enter opens, Ctrl+Enter opens the
folder, Esc leaves."""

from __future__ import annotations

import time

from PySide6.QtCore import QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem

from desktop_rag.core.search.searcher import Hit
from desktop_rag.ui.result_html import SHOW_FOLDED, Colors, hit_html, score_tooltip

RENDER_BUDGET_S = 0.012
MARGIN, SAME_DOCUMENT_INDENT = 6, 28  # pixels: a document's second passage sits indented under its first


class HitList(QListWidget):
    open_requested = Signal(int)  # row
    open_folder_requested = Signal(int)
    menu_requested = Signal(int, QPoint)  # row, where (global)
    leave = Signal()  # Esc: back to the search field
    unfold_requested = Signal(int)  # row: show the passages of its document folded under it

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu_at)
        self.itemActivated.connect(lambda item: self.open_requested.emit(self.row(item)))  # a double click
        self._generation = 0  # a newer list drawn (or the list cleared) stops the drawing of an older one
        self._rendered = 0
        self._selected_when_drawn: int | None = None
        self._numbered = False

    def use_colors(self, colors: Colors) -> None:
        # The platform's strong highlight made a selected hit's grey parts unreadable: a tint keeps its colours.
        self.setStyleSheet(f"QListWidget::item:selected {{ background: {colors.selection}; }}")

    def show_hits(self, hits: list[Hit], colors: Colors, folded: dict[int, int] | None = None,
                  current_row: int | None = None, numbered: bool = False) -> None:
        """`folded`: for a hit's chunk id, how many passages of its document are folded under it. `current_row` is
        selected as soon as it is drawn: a row past the first batch was not there yet when asked for, and an
        unfolded document's first passage lost its selection on a busy machine. `numbered`: each row begins with
        its number, [1] first (an answer's passages, as its sentences cite them)."""
        self.clear()
        self._selected_when_drawn = current_row
        self._numbered = numbered
        self._render_more(self._generation, hits, colors, folded or {})

    def clear(self) -> None:
        self._generation += 1
        self._rendered = 0
        super().clear()

    def _render_more(self, generation: int, hits: list[Hit], colors: Colors,
                     folded: dict[int, int]) -> None:
        """Hits go in as many as fit in RENDER_BUDGET_S, then the event loop has a turn: a rich-text label costs
        ~7 ms (twice that while indexing shares the GIL), and 30 at once stalled the window for ~250 ms
        (bench/ui_responsiveness.py)."""
        if generation != self._generation:
            return
        width = self.viewport().width() - 4
        started = time.perf_counter()
        drawn_before = self._rendered
        # At least one row a turn, however slow the machine: the list always gets on.
        while self._rendered < len(hits) and (self._rendered == drawn_before
                                              or time.perf_counter() - started < RENDER_BUDGET_S):
            hit = hits[self._rendered]
            item = QListWidgetItem()
            number = f"<b>[{self._rendered + 1}]</b> " if self._numbered else ""
            label = QLabel(number + hit_html(hit, colors, folded.get(hit.chunk_id, 0)))
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setToolTip(score_tooltip(hit))
            same_document = self._rendered > 0 and hits[self._rendered - 1].path == hit.path
            label.setContentsMargins(MARGIN + (SAME_DOCUMENT_INDENT if same_document else 0), MARGIN, MARGIN, MARGIN)
            label.linkActivated.connect(lambda link, item=item: self._link(link, item))
            self.addItem(item)
            self.setItemWidget(item, label)
            item.setSizeHint(QSize(width, label.heightForWidth(width)))
            if self._rendered == self._selected_when_drawn:
                self.setCurrentRow(self._rendered)
            self._rendered += 1
        if self._rendered < len(hits):
            # With the list as context: if the window is closed meanwhile, the call is dropped, not made on a
            # deleted list.
            QTimer.singleShot(0, self, lambda: self._render_more(generation, hits, colors, folded))

    def _link(self, link: str, item: QListWidgetItem) -> None:
        if link == SHOW_FOLDED:
            self.unfold_requested.emit(self.row(item))

    def _fit_items(self) -> None:
        """Each hit as tall as its text at the list's current width (a label's own size hint assumes another
        width, leaving gaps or cutting text)."""
        width = self.viewport().width() - 4
        for row in range(self.count()):
            item = self.item(row)
            label = self.itemWidget(item)
            if label is not None:  # None: an item just added, its label set next (a scroll bar appeared meanwhile)
                item.setSizeHint(QSize(width, label.heightForWidth(width)))

    def resizeEvent(self, event):  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_items()

    def keyPressEvent(self, event):  # noqa: N802 (Qt's name)
        row = self.currentRow()
        if event.key() == Qt.Key.Key_Escape:
            self.leave.emit()
        elif event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and 0 <= row < self.count():
            control = event.modifiers() & Qt.KeyboardModifier.ControlModifier
            (self.open_folder_requested if control else self.open_requested).emit(row)
        else:
            super().keyPressEvent(event)

    def _menu_at(self, position: QPoint) -> None:
        item = self.itemAt(position)
        if item is not None:
            self.setCurrentItem(item)
            self.menu_requested.emit(self.row(item), self.viewport().mapToGlobal(position))
