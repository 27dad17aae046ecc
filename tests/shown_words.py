"""What a person is shown, read as a person reads it (issue 60, 5 and 6): the words of our own making in every
widget, tooltip, menu and header of a window, and in the CLI's human output, checked for the engine's words
("chunk", "vector", "bm25"…), doubled brackets and large numbers without their separators; and, for a label
that shows one line, text wider than the label with no tooltip holding the whole."""

from __future__ import annotations

import re
from collections.abc import Iterator

# The engine's words, where a person's are "passage", "meaning search", "keyword search", "the language model".
ENGINE_WORDS = re.compile(r"\b(chunks?|vectors?|embeddings?|tokens?|bm25|chroma|dense|cross-encoder|hnsw|"
                          r"made way)\b", re.IGNORECASE)
DOUBLED_BRACKET = re.compile(r"\)\)|\(\(")
# A count over 999 without its thousands separator ("10209 next to 10,270"); a year, a clock time, a date's
# parts, a process number, a path or a file's name are no counts.
_NOT_COUNTS = re.compile(r"(\S*/\S*|\S+\.\w{1,5}\b|\d{4}-\d\d(-\d\d)?|\d\d:\d\d(:\d\d)?|process \d+|"
                         r"\b(19|20)\d\d\b|port \d+)")
_BARE_COUNT = re.compile(r"(?<![\d,.])\d{4,}(?![\d,.]*\d)")


def faults(text: str) -> list[str]:
    """What is wrong with a text a person is shown, one line each (empty: nothing)."""
    found = [f"the engine's word {m.group(0)!r}" for m in ENGINE_WORDS.finditer(text)]
    found += ["a doubled bracket" for _ in DOUBLED_BRACKET.finditer(text)]
    counts = _NOT_COUNTS.sub(" ", text)
    found += [f"{m.group(0)} without its thousands separator" for m in _BARE_COUNT.finditer(counts)]
    return found


def plain(text: str) -> str:
    """Rich text as it reads (tags and entities out)."""
    text = re.sub(r"<[^>]+>", " ", text)
    return text.replace("&nbsp;", " ").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def widget_texts(root) -> Iterator[tuple[str, str]]:
    """(where, text) for every text of our making under `root` (a window, a dialog, a menu): labels, buttons,
    tooltips, placeholders, tab and header labels, menu and context-menu actions, combo items, group titles."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import (QAbstractButton, QComboBox, QGroupBox, QLabel, QLineEdit,
                                   QMenu, QPlainTextEdit, QTableView, QTabWidget, QTextEdit, QTreeView,
                                   QTreeWidget, QWidget)

    widgets = [root, *root.findChildren(QWidget)]
    for widget in widgets:
        name = f"{type(widget).__name__} {widget.objectName() or ''}".strip()
        texts: list[str] = [widget.toolTip(), widget.windowTitle() if widget.isWindow() else ""]
        if isinstance(widget, QLabel):
            texts.append(plain(widget.text()))
        elif isinstance(widget, QAbstractButton):
            texts.append(widget.text())
        elif isinstance(widget, (QLineEdit, QTextEdit, QPlainTextEdit)):
            texts.append(widget.placeholderText())
        elif isinstance(widget, QTabWidget):
            texts += [widget.tabText(i) for i in range(widget.count())]
        elif isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
        elif isinstance(widget, QGroupBox):
            texts.append(widget.title())
        elif isinstance(widget, QTreeWidget):
            header = widget.headerItem()
            texts += [header.text(i) for i in range(widget.columnCount())]
            for i in range(widget.topLevelItemCount()):  # the failures' groups ("1 file could not be read")
                texts.append(widget.topLevelItem(i).text(0))
        elif isinstance(widget, (QTableView, QTreeView)) and widget.model() is not None:
            model = widget.model()
            columns = model.columnCount()
            texts += [str(model.headerData(i, Qt.Orientation.Horizontal) or "") for i in range(columns)]
        if isinstance(widget, QMenu):
            texts.append(widget.title())
        for action in widget.actions():
            texts += [action.text(), action.toolTip() if action.toolTip() != action.text().replace("&", "") else ""]
            if action.menu() is not None:
                texts += [a.text() for a in action.menu().actions()]
        for text in texts:
            if text and text.strip():
                yield name, text


def clipped_labels(root) -> list[str]:
    """Labels of one line, shown, whose text is wider than the label and that carry no tooltip with the whole."""
    from PySide6.QtWidgets import QLabel

    found = []
    for label in root.findChildren(QLabel):
        has_picture = label.pixmap() is not None and not label.pixmap().isNull()
        if not label.isVisible() or label.wordWrap() or not label.text() or has_picture:
            continue
        text = plain(label.text()) if label.textFormat() != 0 else label.text()  # (0: Qt.PlainText)
        if "\n" in text:
            continue
        needed = label.fontMetrics().horizontalAdvance(" ".join(text.split()))
        room = label.contentsRect().width() - 2 * label.margin() - max(label.indent(), 0)
        if needed > room + 1 and " ".join(text.split()) not in label.toolTip():
            found.append(f"{text[:60]!r}: {needed} px in {room}")
    return found


def clipped_cells(root) -> list[str]:
    """Cells of the lists, trees and tables shown (the failures' "Why it was not r", the folders' "31 files, 33
    pa"): a line wider than its column, with no tooltip holding the whole. Only the rows in view are
    read, as a person sees them; a column the person may widen counts as much as one they may not."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QAbstractItemView, QListView, QTreeView

    found = []
    for view in root.findChildren(QAbstractItemView):
        model = view.model()
        if not view.isVisible() or model is None or (isinstance(view, QListView) and view.wordWrap()):
            continue  # (a list that wraps its items' lines shows them whole)
        metrics = view.fontMetrics()
        header = view.header() if isinstance(view, QTreeView) else getattr(view, "horizontalHeader", lambda: None)()
        if header is not None and header.isVisible():  # a column's heading ("Why it was not r")
            for section in range(header.count()):
                heading = str(model.headerData(section, Qt.Orientation.Horizontal) or "")
                room = header.sectionSize(section) - 12
                needed = header.fontMetrics().horizontalAdvance(heading)
                if heading and not header.isSectionHidden(section) and needed > room + 1:
                    found.append(f"{type(view).__name__} heading {heading!r}: {needed} px in {room}")
        pending = [(row, view.rootIndex()) for row in range(model.rowCount(view.rootIndex()))]
        while pending:
            row, parent = pending.pop()
            try:
                columns = model.columnCount(parent)
            except TypeError:  # (a list's model: PySide keeps its columnCount private)
                columns = 1
            for column in range(columns):
                index = model.index(row, column, parent)
                rect = view.visualRect(index)
                if rect.isEmpty() or not rect.intersects(view.viewport().rect()):
                    continue
                text = str(model.data(index, Qt.ItemDataRole.DisplayRole) or "")
                if not text:
                    continue
                icon = model.data(index, Qt.ItemDataRole.DecorationRole)
                room = rect.width() - 8 - (view.iconSize().width() + 4 if icon is not None else 0)
                if isinstance(view, QListView):
                    room = min(room, view.viewport().width() - 8)
                needed = max(metrics.horizontalAdvance(line) for line in text.splitlines())  # (a folder's 2)
                tip = str(model.data(index, Qt.ItemDataRole.ToolTipRole) or "")
                if needed > room + 1 and not all(line in tip for line in text.splitlines()):
                    found.append(f"{type(view).__name__} row {row} column {column}: {text[:60]!r}: {needed} px "
                                 f"in {room}")
            if isinstance(view, QTreeView) and view.isExpanded(model.index(row, 0, parent)):
                child = model.index(row, 0, parent)
                pending += [(r, child) for r in range(model.rowCount(child))]
    return found


def faults_in(texts) -> list[str]:
    return [f"{where}: {text[:100]!r}: {', '.join(fault)}" for where, text in texts if (fault := faults(text))]
