"""Settings: data folder, model file and threads, when background LLM contexts may run, embedding model, chunk
size, context length, rerank, OCR, ignore patterns. Saved to the data folder and applied to the
running library where that needs no restart; a different data folder is opened in place of this one (each keeps its
own index and settings)."""

from __future__ import annotations

import os
import sys
from typing import cast
from dataclasses import fields, replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
    QLineEdit, QMessageBox, QPlainTextEdit, QPushButton, QSpinBox, QVBoxLayout, QWidget,
)

from desktop_rag.config import OPTIONS, Settings, check_setting, describe
from desktop_rag.core.llm.models import PACKAGED_MODELS
from desktop_rag.errors import BadInput
from desktop_rag.platform.autostart import command_for
from desktop_rag.platform.key_binding import bind_gnome_key, binding_help, gnome_can_bind
from desktop_rag.ui.errors import for_window


def _number_box(settings: Settings, name: str, **looks) -> QSpinBox | QDoubleSpinBox:
    """A spin box for a number setting, within the limits its entry in config.py gives."""
    value, option = getattr(settings, name), OPTIONS[name]
    box = QDoubleSpinBox(decimals=looks.pop("decimals", 1)) if isinstance(value, float) else QSpinBox()
    box.setRange(option.minimum, option.maximum)  # type: ignore[arg-type]  # each number shown here has both
    box.setValue(value)
    for key, look in looks.items():
        getattr(box, "set" + key[0].upper() + key[1:])(look)
    return box


# The LLM's context levels as a person reads them (the setting's values name the engine's units).
LEVEL_WORDS = {"document": "document", "chunk": "passage", "document+chunk": "document and passage",
               "document+section": "document and section",
               "document+section+chunk": "document, section and passage"}


def _choice_box(settings: Settings, name: str, words: dict[str, str] | None = None) -> QComboBox:
    """The setting's choices, each shown in `words` where given; the value is the item's data."""
    box = QComboBox()
    for choice in OPTIONS[name].choices or ():
        box.addItem((words or {}).get(choice, choice), choice)
    box.setCurrentIndex(max(0, box.findData(getattr(settings, name))))
    return box


def _path_row(edit: QLineEdit, choose) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    button = QPushButton("Choose…")
    button.clicked.connect(choose)
    layout.addWidget(edit, 1)
    layout.addWidget(button)
    return row


def _show_value(widget: QWidget, value) -> None:
    if isinstance(widget, QCheckBox):
        widget.setChecked(bool(value))
    elif isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        widget.setValue(value)
    elif isinstance(widget, QComboBox):
        index = widget.findData(value)
        widget.setCurrentIndex(index) if index >= 0 else widget.setCurrentText(str(value))
    elif isinstance(widget, QLineEdit):
        widget.setText(str(value))
    elif isinstance(widget, QPlainTextEdit):
        widget.setPlainText("\n".join(value))


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, data_dir: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(640)  # room for a path or a model name without cutting it
        self.original = settings
        self.start_at_login = QCheckBox("Start desktop-rag when I log in")
        self.start_at_login.setChecked(settings.start_at_login)
        self.keep_fresh = QCheckBox("Keep the index fresh when the window is closed")
        self.keep_fresh.setChecked(settings.keep_fresh_when_closed)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(list(PACKAGED_MODELS))
        self.model.setCurrentText(settings.llm_model)
        self.threads = _number_box(settings, "llm_threads", specialValueText="all cores")
        self.background = QCheckBox("Write LLM contexts in the background")
        self.background.setChecked(settings.llm_upgrade_when_idle)
        self.only_idle = QCheckBox("only when the computer is idle for")
        self.only_idle.setChecked(settings.llm_only_when_idle)
        self.idle_minutes = _number_box(settings, "llm_idle_minutes", suffix=" min")
        self.only_mains = QCheckBox("only on mains power")
        self.only_mains.setChecked(settings.llm_only_on_mains)
        self.cap = _number_box(settings, "llm_cap_minutes_per_hour", decimals=0, suffix=" min",
                               specialValueText="no limit")
        self.server = QLineEdit(settings.llm_server, placeholderText="http://host:port (optional)")
        self.levels = _choice_box(settings, "llm_context_levels", LEVEL_WORDS)
        self.embedding = QLineEdit(settings.embedding_model, placeholderText="multilingual-e5-small (the default)")
        self.chunk_tokens = _number_box(settings, "chunk_tokens")
        self.overlap = _number_box(settings, "chunk_overlap_tokens")
        self.context_words = _number_box(settings, "context_max_words")
        self.rerank = QCheckBox("Rerank results by default")
        self.rerank.setChecked(settings.rerank)
        self.rerank_model = QLineEdit(settings.rerank_model, placeholderText="its folder (optional)")
        self.ocr = QCheckBox("Read scanned pages and images (OCR)")
        self.ocr.setChecked(settings.ocr)
        self.ocr_languages = QLineEdit(settings.ocr_languages, placeholderText="eng+jpn")
        self.ocr_skip = QPlainTextEdit("\n".join(settings.ocr_skip_folders))
        self.ocr_skip.setPlaceholderText("folders whose images are not read (one per line)")
        self.ocr_skip.setMaximumHeight(60)
        self.ignore = QPlainTextEdit("\n".join(settings.ignore_patterns))
        self.ignore.setMaximumHeight(90)
        for name, widget in self._widgets().items():  # one help text per setting, shared with the CLI
            widget.setToolTip(for_window(describe(name)))

        form = QFormLayout()
        self.data_dir = QLineEdit(data_dir)
        self.data_dir.setToolTip("Where the index and these settings live. Another folder opens its own library "
                                 "(an empty one starts afresh); this one stays as it is.")
        form.addRow("Data folder", _path_row(self.data_dir, self._choose_data_dir))
        form.addRow("", self.start_at_login)
        form.addRow("", self.keep_fresh)
        if gnome_can_bind():
            self.add_key = QPushButton("Add a key for quick search (Ctrl+Alt+Space)…")
            self.add_key.setToolTip("Adds a GNOME keyboard shortcut that opens the quick search of this data folder; "
                                    "change its key in GNOME Settings → Keyboard → Custom Shortcuts")
            self.add_key.clicked.connect(self._add_quick_search_key)
            form.addRow("", self.add_key)
        else:  # the desktop's own way, by hand
            how = QLabel("A key for quick search: " + binding_help(
                command_for(Path(data_dir), "quick"), sys.platform, os.environ.get("XDG_CURRENT_DESKTOP", "")))
            how.setWordWrap(True)
            how.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            form.addRow("", how)
        form.addRow("Language model", _path_row(cast(QLineEdit, self.model.lineEdit()), self._choose_model))
        form.addRow("Model threads", self.threads)
        form.addRow("", self.background)
        idle = QWidget()
        idle_row = QHBoxLayout(idle)
        idle_row.setContentsMargins(0, 0, 0, 0)
        idle_row.addWidget(self.only_idle)
        idle_row.addWidget(self.idle_minutes)
        idle_row.addStretch(1)
        form.addRow("", idle)
        form.addRow("", self.only_mains)
        form.addRow("At most, per hour", self.cap)
        form.addRow("Or an OpenAI-compatible server", self.server)
        form.addRow("LLM contexts per", self.levels)
        form.addRow("Meaning model", _path_row(self.embedding, self._choose_embedding))
        form.addRow("Passage size", self.chunk_tokens)
        form.addRow("Passage overlap", self.overlap)
        form.addRow("Longest context, in words", self.context_words)
        form.addRow("", self.rerank)
        form.addRow("Reranking model", _path_row(self.rerank_model, self._choose_reranker))
        form.addRow("", self.ocr)
        form.addRow("OCR languages", self.ocr_languages)
        form.addRow("No OCR in", self.ocr_skip)
        form.addRow("Ignore (one pattern per line)", self.ignore)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def _widgets(self) -> dict[str, QWidget]:
        return {
            "start_at_login": self.start_at_login, "keep_fresh_when_closed": self.keep_fresh,
            "llm_model": self.model, "llm_threads": self.threads, "llm_upgrade_when_idle": self.background,
            "llm_only_when_idle": self.only_idle, "llm_idle_minutes": self.idle_minutes,
            "llm_only_on_mains": self.only_mains, "llm_cap_minutes_per_hour": self.cap, "llm_server": self.server,
            "llm_context_levels": self.levels, "embedding_model": self.embedding,
            "chunk_tokens": self.chunk_tokens, "chunk_overlap_tokens": self.overlap,
            "context_max_words": self.context_words, "rerank": self.rerank, "rerank_model": self.rerank_model,
            "ocr": self.ocr, "ocr_languages": self.ocr_languages, "ocr_skip_folders": self.ocr_skip,
            "ignore_patterns": self.ignore,
        }

    def edited(self) -> dict:
        """The settings the person changed here, and only those: what Save writes, over whatever changed elsewhere
        meanwhile (saving every field wrote back a value the terminal had changed while the dialog was open)."""
        chosen = self.chosen()
        return {f.name: getattr(chosen, f.name) for f in fields(Settings)
                if getattr(chosen, f.name) != getattr(self.original, f.name)}

    def follow(self, settings: Settings) -> None:
        """A change made elsewhere while the dialog is open (the terminal, the tray, an assistant) is shown in
        every field the person has not changed here (issue 60: the dialog kept showing the old value)."""
        edited = self.edited()
        for name, widget in self._widgets().items():
            if name not in edited and getattr(settings, name) != getattr(self.original, name):
                _show_value(widget, getattr(settings, name))
        self.original = settings

    def accept(self) -> None:
        """Saved only if every value can be used: a wrong one would stop the library from opening next time."""
        chosen = self.chosen()
        try:
            for field in fields(Settings):
                check_setting(field.name, getattr(chosen, field.name))
        except BadInput as exc:
            QMessageBox.warning(self, "Settings not saved", str(exc))
            return
        super().accept()

    def _add_quick_search_key(self) -> None:
        if bind_gnome_key(command_for(Path(self.data_dir.text().strip()), "quick")):
            QMessageBox.information(self, "Key added", "Ctrl+Alt+Space now opens the quick search (GNOME Settings → "
                                    "Keyboard → Custom Shortcuts changes it).")
        else:
            QMessageBox.warning(self, "Key not added", "GNOME did not take the shortcut; add it by hand in GNOME "
                                "Settings → Keyboard → Custom Shortcuts (the README gives the command).")

    def _choose_data_dir(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose a data folder", self.data_dir.text())
        if folder:
            self.data_dir.setText(folder)

    def chosen_data_dir(self) -> str:
        return self.data_dir.text().strip()

    def _choose_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model file", "", "GGUF models (*.gguf)")
        if path:
            self.model.setCurrentText(path)

    def _choose_embedding(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose a sentence-transformers model folder")
        if folder:
            self.embedding.setText(folder)

    def _choose_reranker(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose the reranking model's folder")
        if folder:
            self.rerank_model.setText(folder)

    def chosen(self) -> Settings:
        return replace(
            self.original, start_at_login=self.start_at_login.isChecked(),
            keep_fresh_when_closed=self.keep_fresh.isChecked(),
            llm_model=self.model.currentText().strip() or self.original.llm_model,
            llm_threads=int(self.threads.value()), llm_server=self.server.text().strip(),
            llm_upgrade_when_idle=self.background.isChecked(), llm_only_when_idle=self.only_idle.isChecked(),
            llm_idle_minutes=self.idle_minutes.value(), llm_only_on_mains=self.only_mains.isChecked(),
            llm_cap_minutes_per_hour=self.cap.value(),
            llm_context_levels=self.levels.currentData(), embedding_model=self.embedding.text().strip(),
            chunk_tokens=int(self.chunk_tokens.value()), chunk_overlap_tokens=int(self.overlap.value()),
            context_max_words=int(self.context_words.value()), rerank=self.rerank.isChecked(),
            rerank_model=self.rerank_model.text().strip(), ocr=self.ocr.isChecked(),
            ocr_languages=self.ocr_languages.text().strip() or self.original.ocr_languages,
            ocr_skip_folders=[p.strip() for p in self.ocr_skip.toPlainText().splitlines() if p.strip()],
            ignore_patterns=[p.strip() for p in self.ignore.toPlainText().splitlines() if p.strip()],
        )
