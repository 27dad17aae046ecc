"""Settings: data folder, model file and threads, when background LLM contexts may run, embedding model, chunk
size, context length, LLM time budget, rerank, ignore patterns. Saved to the data folder and applied to the running library where that needs no restart;
a different data folder is opened in place of this one (each keeps its own index and settings)."""

from __future__ import annotations

from dataclasses import fields, replace

from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout, QLineEdit,
    QPlainTextEdit, QPushButton, QSpinBox, QVBoxLayout, QWidget,
)

from desktop_rag.config import LLM_CONTEXT_LEVELS, Settings
from desktop_rag.core.llm.models import PACKAGED_MODELS

# Changing these changes what is stored in the indexes: the next re-index (or `reindex`) applies them.
NEEDS_REINDEX = ("embedding_model", "chunk_tokens", "chunk_overlap_tokens", "context_max_words")


def _path_row(edit: QLineEdit, choose) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    button = QPushButton("Choose…")
    button.clicked.connect(choose)
    layout.addWidget(edit, 1)
    layout.addWidget(button)
    return row


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, data_dir: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(640)  # room for a path or a model name without cutting it
        self.original = settings
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(list(PACKAGED_MODELS))
        self.model.setCurrentText(settings.llm_model)
        self.model.setToolTip("A packaged model name, or the path of a GGUF file")
        self.threads = QSpinBox(minimum=0, maximum=256, value=settings.llm_threads, specialValueText="all cores")
        self.background = QCheckBox("Write LLM contexts in the background")
        self.background.setChecked(settings.llm_upgrade_when_idle)
        self.background.setToolTip("Rules contexts are written at once; the language model replaces them later, "
                                   "when the conditions below allow. It stops within a second for anything you do.")
        self.only_idle = QCheckBox("only when the computer is idle for")
        self.only_idle.setChecked(settings.llm_only_when_idle)
        self.only_idle.setToolTip("No keyboard or mouse input, and other programs using under a quarter of the CPU")
        self.idle_minutes = QDoubleSpinBox(minimum=0.5, maximum=120, value=settings.llm_idle_minutes, suffix=" min",
                                           decimals=1)
        self.only_mains = QCheckBox("only on mains power")
        self.only_mains.setChecked(settings.llm_only_on_mains)
        self.cap = QSpinBox(minimum=0, maximum=60, value=round(settings.llm_cap_minutes_per_hour), suffix=" min",
                            specialValueText="no limit")
        self.cap.setToolTip("At most this much of every hour (the rest of the hour the machine stays cool)")
        self.server = QLineEdit(settings.llm_server, placeholderText="http://host:port (optional)")
        self.levels = QComboBox()
        self.levels.addItems(list(LLM_CONTEXT_LEVELS))
        self.levels.setCurrentText(settings.llm_context_levels)
        self.run_budget = QDoubleSpinBox(minimum=0, maximum=86400, value=settings.llm_run_budget_seconds,
                                         suffix=" s", decimals=0)
        self.run_budget.setToolTip("LLM time per indexing run; documents beyond it get rules contexts now and are "
                                   "upgraded later")
        self.document_budget = QDoubleSpinBox(minimum=0, maximum=86400, value=settings.llm_document_budget_seconds,
                                              suffix=" s", decimals=0)
        self.embedding = QLineEdit(settings.embedding_model, placeholderText="multilingual-e5-small (the default)")
        self.embedding.setToolTip("multilingual-e5-small: ~100 languages (packaged, the default). all-MiniLM-L6-v2: "
                                  "English only, ~4× faster (packaged). Or a sentence-transformers model folder.\n"
                                  "Changing it embeds every chunk again.")
        self.chunk_tokens = QSpinBox(minimum=32, maximum=2048, value=settings.chunk_tokens)
        self.overlap = QSpinBox(minimum=0, maximum=512, value=settings.chunk_overlap_tokens)
        self.context_words = QSpinBox(minimum=0, maximum=200, value=settings.context_max_words)
        self.rerank = QCheckBox("Rerank results by default")
        self.rerank.setChecked(settings.rerank)
        self.rerank_model = QLineEdit(settings.rerank_model, placeholderText="a cross-encoder folder (optional)")
        self.ignore = QPlainTextEdit("\n".join(settings.ignore_patterns))
        self.ignore.setMaximumHeight(90)

        form = QFormLayout()
        self.data_dir = QLineEdit(data_dir)
        self.data_dir.setToolTip("Where the index and these settings live. Another folder opens its own library "
                                 "(an empty one starts afresh); this one stays as it is.")
        form.addRow("Data folder", _path_row(self.data_dir, self._choose_data_dir))
        form.addRow("Language model", _path_row(self.model.lineEdit(), self._choose_model))
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
        form.addRow("LLM time per indexing run", self.run_budget)
        form.addRow("LLM time per document", self.document_budget)
        form.addRow("Embedding model", _path_row(self.embedding, self._choose_embedding))
        form.addRow("Chunk size (word pieces)", self.chunk_tokens)
        form.addRow("Chunk overlap", self.overlap)
        form.addRow("Context length (words)", self.context_words)
        form.addRow("", self.rerank)
        form.addRow("Cross-encoder folder", _path_row(self.rerank_model, self._choose_reranker))
        form.addRow("Ignore (one pattern per line)", self.ignore)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

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
        folder = QFileDialog.getExistingDirectory(self, "Choose a cross-encoder model folder")
        if folder:
            self.rerank_model.setText(folder)

    def chosen(self) -> Settings:
        return replace(
            self.original, llm_model=self.model.currentText().strip() or self.original.llm_model,
            llm_threads=self.threads.value(), llm_server=self.server.text().strip(),
            llm_upgrade_when_idle=self.background.isChecked(), llm_only_when_idle=self.only_idle.isChecked(),
            llm_idle_minutes=self.idle_minutes.value(), llm_only_on_mains=self.only_mains.isChecked(),
            llm_cap_minutes_per_hour=float(self.cap.value()),
            llm_context_levels=self.levels.currentText(), llm_run_budget_seconds=self.run_budget.value(),
            llm_document_budget_seconds=self.document_budget.value(), embedding_model=self.embedding.text().strip(),
            chunk_tokens=self.chunk_tokens.value(), chunk_overlap_tokens=self.overlap.value(),
            context_max_words=self.context_words.value(), rerank=self.rerank.isChecked(),
            rerank_model=self.rerank_model.text().strip(),
            ignore_patterns=[p.strip() for p in self.ignore.toPlainText().splitlines() if p.strip()],
        )


def apply_settings(target: Settings, chosen: Settings) -> list[str]:
    """Copy `chosen` into the running library's settings object (every part holding it sees the change at once);
    returns the names of the settings that changed."""
    changed = [f.name for f in fields(Settings) if getattr(target, f.name) != getattr(chosen, f.name)]
    for name in changed:
        setattr(target, name, getattr(chosen, name))
    return changed
