"""Stats: the library's facts as service/stats_words.py says them (the same rows as `desktop-rag stats`)."""

from __future__ import annotations


import html

from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from desktop_rag.service.remote_library import RemoteLibrary
from desktop_rag.service.stats_words import stats_rows
from desktop_rag.ui.tasks import TaskRunner



def stats_html(stats: dict) -> str:
    body = "".join(f"<tr><td><b>{html.escape(label)}</b></td><td>{html.escape(sentence)}</td></tr>"
                   for label, sentence in stats_rows(stats))
    return f"<table cellpadding='4'>{body}</table>"


class StatsPanel(QWidget):
    def __init__(self, library: RemoteLibrary, runner: TaskRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.library = library
        self.runner = runner
        self.view = QTextBrowser()
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)

    def refresh(self) -> None:
        self.runner.read(self.library.stats, on_done=lambda stats: self.view.setHtml(stats_html(stats)))
