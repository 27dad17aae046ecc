"""Context review: every chunk's context with its source and quality (breakdown in the tooltip), sortable and
filterable; an editor shows the chunk inside its document and lets a person edit, regenerate, revert or approve
the context. A saved edit is re-embedded and re-indexed before the editor says so."""

from __future__ import annotations


from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit, QPushButton, QSplitter,
    QTableView, QTextBrowser, QVBoxLayout, QWidget,
)

from desktop_rag.core.library.reads import REVIEW_FILTERS, ReviewRow
from desktop_rag.documents import LOW_OCR_CONFIDENCE
from desktop_rag.ui.document_preview import show_in_document
from desktop_rag.service.remote_library import RemoteLibrary
from desktop_rag.ui.tasks import TaskRunner


REGENERATE, CANCEL_REGENERATE = "Regenerate with the LLM", "Cancel regenerating"
COLUMNS = ("Document", "Passage", "Context", "Source", "Quality", "Reviewed")
FILTER_LABELS = {"all": "All contexts", "low quality": "Quality below 0.6", "rules": "Rules contexts",
                 "llm": "LLM contexts", "hand-edited": "Hand-edited", "not reviewed": "Not reviewed yet",
                 "scanned": "On scanned pages (OCR)"}


def breakdown_text(row: ReviewRow) -> str:
    return _scan_text(row) + _quality_text(row)


def _quality_text(row: ReviewRow) -> str:
    if row.quality is None:
        return {"manual": "Written by hand (not scored).", "rules": "Rules context (not scored)."}.get(
            row.source, "Not scored.")
    parts = ", ".join(f"{name} {value:.2f}" for name, value in (row.quality_detail or {}).items())
    return f"Quality {row.quality:.2f}" + (f" ({parts})" if parts else "")


def _scan_text(row: ReviewRow) -> str:
    """"Scanned page, OCR 0.91. ": where the chunk's text came from, when it was read from an image."""
    if row.ocr_confidence is None:
        return ""
    if row.ocr_confidence < LOW_OCR_CONFIDENCE:
        return (f"Scanned page, OCR {row.ocr_confidence:.2f}: the text may be misread, so its context is a rules "
                "one (no LLM is asked about garbled text). ")
    return f"Scanned page, OCR {row.ocr_confidence:.2f}. "


class ReviewModel(QAbstractTableModel):
    def __init__(self):
        super().__init__()
        self.rows: list[ReviewRow] = []

    def set_rows(self, rows: list[ReviewRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()):  # noqa: N802, B008 (Qt's names and signature)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()):  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        row = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            source = row.source + (f" · OCR {row.ocr_confidence:.2f}" if row.ocr_confidence is not None else "")
            return (Path(row.path).name, row.chunk_index + 1, row.context, source,
                    f"{row.quality:.2f}" if row.quality is not None else "—", "✓" if row.reviewed else "")[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.path if column == 0 else breakdown_text(row) if column in (3, 4) else row.context
        if role == Qt.ItemDataRole.UserRole:  # sort keys
            return (row.path, row.chunk_index, row.context, row.source,
                    row.quality if row.quality is not None else -1.0, row.reviewed)[column]
        return None


class ReviewPanel(QWidget):
    status = Signal(str)
    changed = Signal(object)  # the Changes of an edit (core/indexing/changes.py): other views showing the chunk follow

    def __init__(self, library: RemoteLibrary, runner: TaskRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.library = library
        self.runner = runner
        self.model = ReviewModel()
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # the context takes the room left
        for column, width in ((0, 170), (1, 50), (3, 110), (4, 60), (5, 70)):  # each at least its heading
            heading = header.fontMetrics().horizontalAdvance(COLUMNS[column]) + 28  # (the sort arrow's room)
            header.resizeSection(column, max(width, heading))
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.filter = QComboBox()
        for name in REVIEW_FILTERS:
            self.filter.addItem(FILTER_LABELS[name], name)
        self.count = QLabel()
        self.document = QTextBrowser()
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText("The context placed before this passage when it is made searchable")
        self.questions = QPlainTextEdit()
        self.questions.setPlaceholderText("Questions this passage answers, one per line: found by keyword search "
                                          "(the LLM writes them when Settings asks for questions)")
        self.questions.setMaximumHeight(5 * self.fontMetrics().height() + 12)
        self.breakdown = QLabel()
        self.breakdown.setWordWrap(True)
        self.save_button = QPushButton("Save edit")
        self.regenerate_button = QPushButton(REGENERATE)
        self._regenerating: int | None = None  # the chunk whose context the model is writing anew
        self.read_only = False  # a library this process may not write: contexts are read, not edited
        self.revert_button = QPushButton("Revert to generated")
        self.approve_button = QPushButton("Approve")
        self.message = QLabel()
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(QLabel("Show"))
        top.addWidget(self.filter)
        top.addWidget(self.count, 1)
        buttons = QHBoxLayout()
        for button in (self.save_button, self.regenerate_button, self.revert_button, self.approve_button):
            buttons.addWidget(button)
        # The table across the top; below it the chunk in its document, and the context being edited.
        document = QWidget()
        left = QVBoxLayout(document)
        left.setContentsMargins(0, 0, 0, 0)
        left.addWidget(QLabel("<b>The passage in its document</b>"))
        left.addWidget(self.document, 1)
        editor = QWidget()
        right = QVBoxLayout(editor)
        right.setContentsMargins(0, 0, 0, 0)
        right.addWidget(QLabel("<b>Context</b>"))
        right.addWidget(self.editor, 1)
        right.addWidget(QLabel("<b>Questions it answers</b>"))
        right.addWidget(self.questions)
        right.addWidget(self.breakdown)
        right.addLayout(buttons)
        right.addWidget(self.message)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(document)
        bottom.addWidget(editor)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(bottom)
        split.setSizes([300, 250])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)

        self.filter.currentIndexChanged.connect(lambda _: self.refresh())
        self.table.selectionModel().currentRowChanged.connect(lambda current, _: self._show(current))
        self.save_button.clicked.connect(self.save)
        self.regenerate_button.clicked.connect(self.regenerate)
        self.revert_button.clicked.connect(self.revert)
        self.approve_button.clicked.connect(self.approve)
        self._set_editing(None)

    # -- the table ------------------------------------------------------------------------------------------

    def refresh(self, keep: int | None = None) -> None:
        keep = keep if keep is not None else (self.current.chunk_id if self.current else None)
        name = self.filter.currentData()
        self.runner.read(lambda: self.library.reads.review_rows(name),
                         on_done=lambda found: self._fill(found[0], found[1], keep))

    def _fill(self, rows: list[ReviewRow], total: int, keep: int | None) -> None:
        self.model.set_rows(rows)
        # Capped: say so (issue 37: "5000 chunks" of 9,005, the rest silently out of reach).
        self.count.setText(f"{total:,} passages" if len(rows) == total else
                           f"the first {len(rows):,} of {total:,} passages: a filter narrows them")
        for i, row in enumerate(rows):
            if row.chunk_id == keep:
                self.table.selectRow(self.proxy.mapFromSource(self.model.index(i, 0)).row())
                return
        self._set_editing(None)

    @property
    def current(self) -> ReviewRow | None:
        index = self.table.currentIndex()
        if not index.isValid():
            return None
        return self.model.rows[self.proxy.mapToSource(index).row()]

    def _show(self, index) -> None:
        row = self.model.rows[self.proxy.mapToSource(index).row()] if index.isValid() else None
        self._set_editing(row)
        if row is None:
            return
        show_in_document(self.document, self.runner, self.library, row.chunk_id, None)
        self.editor.setPlainText(row.context)
        self.questions.setPlainText(row.questions)
        self.breakdown.setText(breakdown_text(row) + (f" Model: {row.model}." if row.model else ""))

    def set_read_only(self) -> None:
        self.read_only = True
        self.message.setText("This library is read-only: its contexts can be read here, not edited.")
        self._set_editing(self.current)

    def _set_editing(self, row: ReviewRow | None) -> None:
        editable = row is not None and not self.read_only
        for widget in (self.editor, self.questions):
            widget.setEnabled(row is not None)  # read-only, their text can still be selected and copied
            widget.setReadOnly(not editable)
        for button in (self.save_button, self.regenerate_button, self.approve_button):
            button.setEnabled(editable)
        self.regenerate_button.setEnabled(editable or self._regenerating is not None)  # Cancel stays
        self.revert_button.setEnabled(editable and row is not None and row.source == "manual")
        if row is None:
            self.editor.clear()
            self.questions.clear()
            self.document.clear()
            self.breakdown.clear()

    # -- actions (each re-indexes the chunk before reporting) -----------------------------------------------

    def save(self) -> None:
        row, text, questions = self.current, self.editor.toPlainText(), self.questions.toPlainText()
        if row and text.strip():
            self._write(lambda: self.library.edits.set_context(row.chunk_id, text, questions), row.chunk_id,
                        lambda changes: "Saved; search now uses your context." if changes.searchable else
                        "Saved; search uses your context once the indexing in progress has finished.")

    def regenerate(self) -> None:
        """Regenerate with the LLM; while the model works the button cancels it (the service cuts its call short)."""
        if self._regenerating is not None:
            chunk_id, self._regenerating = self._regenerating, None
            self.message.setText("Cancelling…")
            self.runner.write(lambda report: self.library.edits.cancel_regenerate(chunk_id),
                              on_error=self.message.setText)
            return
        row = self.current
        if row:
            self._regenerating = row.chunk_id
            self.regenerate_button.setText(CANCEL_REGENERATE)
            self.message.setText("Asking the model… (Cancel regenerating stops it)")
            self._write(lambda: self.library.edits.regenerate_context(row.chunk_id), row.chunk_id, None)

    def revert(self) -> None:
        row = self.current
        if row:
            self._write(lambda: self.library.edits.revert_context(row.chunk_id), row.chunk_id,
                        "Back to the generated context.")

    def approve(self) -> None:
        row = self.current
        if row:
            self._write(lambda: self.library.edits.approve_context(row.chunk_id), row.chunk_id, "Approved.")

    def _write(self, work, chunk_id: int, message) -> None:
        """`message`: what to say once done; a function of the edit's Changes, or None for a regeneration."""
        def done(result):
            changes = getattr(result, "changes", result)  # a regeneration's result carries its Changes
            if message is None:  # a regeneration: say what came of it
                self._regenerated()
                text = ("Regenerating was cancelled; the context is unchanged." if changes is None else
                        "New context written." if changes else
                        "The model's answer was not good enough; the context is unchanged.")
            else:
                text = message(changes) if callable(message) else message
            self.message.setText(text)
            self.status.emit(text)
            self.refresh(keep=chunk_id)
            if changes:
                self.changed.emit(changes)

        def failed(text: str) -> None:
            if message is None:
                self._regenerated()
            self.message.setText(text)

        self.runner.edit(work, on_done=done, on_error=failed)

    def _regenerated(self) -> None:
        self._regenerating = None
        self.regenerate_button.setText(REGENERATE)
