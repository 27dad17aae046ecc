"""Start the desktop app: a usable window at once; models load in the background on first use."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_rag.core.library import Library
from desktop_rag.ui.errors import readable
from desktop_rag.ui.main_window import MainWindow
from desktop_rag.ui.theme import icon

LOG_FILE = "desktop-rag.log"


def run_app(data_dir: Path, argv: list[str] | None = None) -> int:
    data_dir.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(filename=data_dir / LOG_FILE, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("desktop-rag")
    app.setOrganizationName("desktop-rag")
    app.setWindowIcon(icon("app"))
    library = Library(data_dir)  # opens the catalog only: Chroma and the models load on first use
    window = MainWindow(library)
    sys.excepthook = lambda kind, exc, tb: _report_unexpected(window, exc, (kind, exc, tb))
    window.show()
    try:
        return app.exec()
    finally:
        library.close()


def _report_unexpected(window: MainWindow, exc: BaseException, exc_info) -> None:
    """A bug in a slot must not pass silently nor show a traceback: one readable line, the details in the log."""
    logging.getLogger("desktop_rag").error("unexpected error", exc_info=exc_info)
    window.show_error(f"Something went wrong: {readable(exc)} (details in {LOG_FILE} in the data folder)")
