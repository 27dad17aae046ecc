"""Watched folders with their state (indexed, failed), added by dialog or by dropping folders on the list; a
folder's menu re-scans or removes it, or turns OCR of its scans and images off or on."""

from __future__ import annotations

from collections.abc import Mapping, Set
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMenu, QToolButton, QVBoxLayout, QWidget,
)

from desktop_rag.documents import how_many
from desktop_rag.core.library.reads import FolderState
from desktop_rag.ui.theme import icon


class _DropList(QListWidget):
    folders_dropped = Signal(list)

    def __init__(self):
        super().__init__()
        self.setAcceptDrops(True)

    def dragEnterEvent(self, event):  # noqa: N802 (Qt's name)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dragMoveEvent(self, event):  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event):  # noqa: N802
        folders = [u.toLocalFile() for u in event.mimeData().urls()
                   if u.isLocalFile() and Path(u.toLocalFile()).is_dir()]
        if folders:
            event.acceptProposedAction()
            self.folders_dropped.emit(folders)


class FoldersPanel(QWidget):
    add_requested = Signal(str)
    remove_requested = Signal(str)
    rescan_requested = Signal(str)
    ocr_toggled = Signal(str, bool)  # a folder, and whether its scans and images are read by OCR
    upgrade_first_toggled = Signal(str, bool)  # a folder, and whether its LLM contexts come before all others

    def sizeHint(self) -> QSize:  # noqa: N802
        """Its dock opens this wide: "1,201 files, 1,203 passages, 1 failed" whole (it opened at 102 px, cut)."""
        return QSize(max(super().sizeHint().width(), self.fontMetrics().horizontalAdvance("0" * 34)),
                     super().sizeHint().height())

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.no_ocr: set[str] = set()  # folders whose scans are not read (the ocr_skip_folders setting)
        self.upgrade_first: set[str] = set()  # folders whose LLM contexts are written first
        self.read_only = False  # a library this process may not write: its folders are shown, not changed
        self.list = _DropList()
        self.list.setWordWrap(True)  # a folder's line wraps in a narrow panel ("indexing… (896 files, 10,357 pa")
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.folders_dropped.connect(lambda folders: [self.add_requested.emit(f) for f in folders])
        self.list.setToolTip("Drop folders here to add them")
        self.add_button = self._tool("add-folder", "Add a folder…", self.choose_folder)
        self.remove_button = self._tool("remove-folder", "Stop indexing the selected folder", self._remove)
        self.rescan_button = self._tool("rescan", "Re-scan the selected folder", self._rescan)
        self.hint = QLabel("Add a folder, or drop one here, to index its files.")
        self.hint.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.add_button, self.remove_button, self.rescan_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.hint)
        self.list.currentRowChanged.connect(lambda _: self._update_buttons())
        self._update_buttons()

    def _tool(self, name: str, tip: str, slot) -> QToolButton:
        button = QToolButton()
        button.setIcon(icon(name))
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.clicked.connect(slot)
        return button

    def choose_folder(self) -> None:
        # From the home folder, not the app's working directory (where a launcher happened to start it).
        folder = QFileDialog.getExistingDirectory(self, "Add a folder to index", str(Path.home()))
        if folder:
            self.add_requested.emit(folder)

    def selected(self) -> str | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item else None

    def _remove(self) -> None:
        if self.selected():
            self.remove_requested.emit(self.selected())

    def _rescan(self) -> None:
        if self.selected():
            self.rescan_requested.emit(self.selected())

    def set_read_only(self) -> None:
        self.read_only = True
        self.list.setAcceptDrops(False)
        self.list.setToolTip("")
        self.add_button.setEnabled(False)
        self.hint.setText("This library is read-only: its folders cannot be changed here.")
        self._update_buttons()

    def _menu(self, position) -> None:
        folder = self.selected()
        if folder is None or self.read_only:
            return
        menu = QMenu(self)
        menu.addAction("Re-scan", self._rescan)
        read_scans = menu.addAction("Read scans and images (OCR)")
        read_scans.setCheckable(True)
        read_scans.setChecked(folder not in self.no_ocr)
        read_scans.toggled.connect(lambda on: self.set_ocr(folder, on))
        first = menu.addAction("Write LLM contexts here first")
        first.setCheckable(True)
        first.setChecked(folder in self.upgrade_first)
        first.setToolTip("The background LLM upgrade takes this folder's documents before all others")
        first.toggled.connect(lambda on: self.upgrade_first_toggled.emit(folder, on))
        menu.addSeparator()
        menu.addAction("Stop indexing this folder", self._remove)
        menu.popup(self.list.viewport().mapToGlobal(position))

    def set_ocr(self, folder: str, on: bool) -> None:
        self.ocr_toggled.emit(folder, on)

    def show_states(self, states: list[FolderState], pending: Set[str] = frozenset(),
                    running: Mapping[str, str] | None = None) -> None:
        """`running`: the folders a run holds, each with the run's word for it ("catching up…")."""
        running = running or {}
        current = self.selected()
        self.list.clear()
        for state in states:
            counts = f"{how_many(state.indexed, 'file')}, {how_many(state.chunks, 'passage')}" + (
                f", {state.failed:,} failed" if state.failed else "") + (
                f", {state.skipped:,} skipped" if state.skipped else "")
            if state.path in running:
                word = running[state.path]
                status = f"{word} ({counts} so far)" if state.indexed else word
            elif state.path in pending:
                status = "waiting to be indexed"
            else:
                status = counts + (" · no OCR" if state.path in self.no_ocr else "") + (
                    " · LLM contexts first" if state.path in self.upgrade_first else "")
            item = QListWidgetItem(f"{Path(state.path).name or state.path}\n{status}")
            item.setToolTip(f"{state.path}\n{status}")  # the whole, where a narrow panel cuts it
            item.setData(Qt.ItemDataRole.UserRole, state.path)
            self.list.addItem(item)
            if state.path == current:
                self.list.setCurrentItem(item)
        self.hint.setVisible(not states or self.read_only)
        self._update_buttons()

    def _update_buttons(self) -> None:
        chosen = self.selected() is not None and not self.read_only
        self.remove_button.setEnabled(chosen)
        self.rescan_button.setEnabled(chosen)
