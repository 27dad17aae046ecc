"""Start the desktop app: a usable window at once; models load in the background on first use."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_rag.core.library import Library
from desktop_rag.ui.main_window import MainWindow
from desktop_rag.ui.theme import icon


def run_app(data_dir: Path, argv: list[str] | None = None) -> int:
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("desktop-rag")
    app.setOrganizationName("desktop-rag")
    app.setWindowIcon(icon("app"))
    library = Library(data_dir)  # opens the catalog only: Chroma and the models load on first use
    window = MainWindow(library)
    window.show()
    try:
        return app.exec()
    finally:
        library.close()
