"""Start the desktop app: a usable window at once; models load in the background on first use."""

from __future__ import annotations

from typing import IO, cast
import logging
import os
import sqlite3
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from desktop_rag.data_folders import remember_data_dir
from desktop_rag.errors import UserError
from desktop_rag.logs import log_path, log_to_data_folder, stop_logging
from desktop_rag.platform.private_paths import private_folder
from desktop_rag.remedies import STOP_SERVICE
from desktop_rag.service.background_process import start_tray
from desktop_rag.service.endpoint import EndpointClient
from desktop_rag.service.remote_library import RemoteLibrary
from desktop_rag.service import wire
from desktop_rag.ui.errors import readable
from desktop_rag.ui.notices import first_time
from desktop_rag.ui.main_window import MainWindow
from desktop_rag.ui.qt_platform import cannot_open_window, missing_window_libraries, tell_on_the_desktop
from desktop_rag.ui.service_link import ServiceLink
from desktop_rag.ui.single_instance import (WindowRequests, hand_to_opening_window, hand_to_running_window,
                                            take_the_window_mark)
from desktop_rag.ui.theme import icon


class AppSession:
    """The window on a data folder, a client of its service (issue 49: the service is the library's one writer;
    the window opens it when none runs, and leaves it running when it closes). Choosing another data folder opens
    a window on it in place of this one."""

    def __init__(self, data_dir: Path):
        self._log_handler: logging.Handler | None = None
        self._requests: WindowRequests | None = None
        self.window_mark: IO | None = None  # the data folder's window mark (ui/single_instance.py), run_app's
        self.quitting_everything = False  # the tray's Quit: the service stops with the window
        self.library, self.window = self._open(data_dir)

    def _open(self, data_dir: Path) -> tuple[RemoteLibrary, MainWindow]:
        private_folder(data_dir)
        self._log_to(data_dir)
        logging.getLogger("desktop_rag").info("the window opens %s (process %d)", data_dir, os.getpid())
        link = ServiceLink(data_dir)
        library = RemoteLibrary(data_dir, link.run)
        window = MainWindow(library, link)
        window.data_folder_chosen.connect(self.switch)
        window.quit_requested.connect(self.quit_everything)
        self._answer_later_launches(data_dir, window)
        link.start()  # on its thread: the service answers (started if none runs), then its events
        return library, window

    def quit_everything(self) -> None:
        self.quitting_everything = True
        self.window.close()

    def _answer_later_launches(self, data_dir: Path, window: MainWindow) -> None:
        """A later launch on this data folder brings this window forward instead of opening a second one."""
        if self._requests is not None:
            self._requests.close()
        self._requests = WindowRequests(data_dir)
        self._requests.show_requested.connect(window.come_forward)

    def switch(self, folder: str) -> bool:
        target = Path(folder).expanduser().resolve()
        if target == self.library.data_dir.resolve():
            return False
        mark = None
        try:
            private_folder(target)
            probe = target / ".desktop-rag-write-test"
            probe.write_text("")
            probe.unlink()
            mark = take_the_window_mark(target)  # that folder's one window is this one from now on
            if mark is None:
                hand_to_running_window(target)
                self.window.show_error(f"A window on {target} is open already: it was brought forward.")
                return False
            library, window = self._open(target)
        except (OSError, ValueError, sqlite3.Error, UserError) as exc:
            if mark is not None:
                mark.close()
            self._log_to(self.library.data_dir)  # the log stays with the library still open
            self.window.show_error(f"Cannot use {target} as the data folder: {readable(exc)}")
            return False
        if self.window_mark is not None:
            self.window_mark.close()  # a launch on the old folder now opens a window of its own
        self.window_mark = mark
        old_library, old_window = self.library, self.window
        self.library, self.window = library, window
        remember_data_dir(target)
        window.setGeometry(old_window.geometry())
        window.show()  # first, so closing the old window does not leave the app without one (and quit it)
        old_window.close()
        old_window.deleteLater()
        self._leave(old_library, old_window.link)
        return True

    def _log_to(self, data_dir: Path) -> None:
        stop_logging(self._log_handler)
        self._log_handler = log_to_data_folder(data_dir, "window")

    def report_unexpected(self, kind, exc, tb) -> None:
        """A bug in a slot must not pass silently nor show a traceback: one readable line, the details in the
        log."""
        logging.getLogger("desktop_rag").error("unexpected error", exc_info=(kind, exc, tb))
        where = log_path(self.library.data_dir, "window")
        self.window.show_error(f"Something went wrong: {readable(exc)} (details in {where})")

    def close(self) -> None:
        """After the window closed."""
        if self._requests is not None:
            self._requests.close()
        self._leave(self.library, self.window.link)
        stop_logging(self._log_handler)

    def _leave(self, library: RemoteLibrary, link: ServiceLink) -> None:
        """The window's reads let go of; the service goes on keeping the index fresh unless the person turned that
        off (the setting) or quit everything (the tray's Quit)."""
        library.close()
        stop = self.quitting_everything or not library.settings.keep_fresh_when_closed
        if stop and not _ask_to_stop(library.data_dir):
            link.stop_the_service_started()  # it was starting: not there to be asked


def _ask_to_stop(data_dir: Path) -> bool:
    """The service is asked to stop (it answers at once and is gone within 2 s); the window does not wait. False
    when none answered."""
    client = EndpointClient.for_library(data_dir)
    if client is None:
        return False
    try:
        client.run(wire.Stop())
    except UserError as exc:  # (EndpointGone included: it was going already)
        logging.getLogger("desktop_rag").info("the background service was not asked to stop: %s", exc)
    finally:
        client.close()
    return True


SWITCH_INTERVAL_S = 0.001


def favour_the_window() -> None:
    """The window's thread needs the GIL for every bit of Python it runs, and while a worker runs Python it gets it
    only after the switch interval (5 ms by default), again and again in one repaint: 1 ms shortened those waits
    (bench/ui_responsiveness.py) and did not slow indexing measurably."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)


def tell_once_that_the_index_stays_fresh(data_dir: Path) -> None:
    """Where the desktop has no tray to show it, the first close says that the service goes on, and how to stop
    it (with a tray, its icon says so)."""
    from PySide6.QtWidgets import QMessageBox

    if QSystemTrayIcon.isSystemTrayAvailable() or not first_time(data_dir, "index stays fresh"):
        return
    QMessageBox.information(
        None, "desktop-rag goes on in the background",
        "The index of your folders stays fresh while the window is closed: a background service follows them, and "
        f"answers searches from the terminal and the quick search.\n\nIn a terminal, {STOP_SERVICE}. To stop it "
        "for good: Settings → uncheck “Keep the index fresh when the window is closed”.")


def cannot_start(message: str) -> None:
    """Why the app cannot open its library, for a person who started it from a menu and sees no terminal."""
    from PySide6.QtWidgets import QMessageBox

    QMessageBox.critical(None, "desktop-rag cannot start", message)


def run_app(data_dir: Path, argv: list[str] | None = None, search: str = "") -> int:
    """The window on `data_dir`, with `search` typed in its field; when a window on it is open already, that one
    comes forward (with the search) and this returns at once."""
    if missing := missing_window_libraries():  # Qt would end the process with advice that does not help
        message = cannot_open_window(missing)
        print(message, file=sys.stderr)
        tell_on_the_desktop(message)
        return 1
    favour_the_window()
    app = cast(QApplication, QApplication.instance()) or QApplication(argv if argv is not None else sys.argv[:1])
    if hand_to_running_window(data_dir, search):
        return 0
    window_mark = take_the_window_mark(data_dir)  # the one window of this data folder (two launches at once: D2)
    if window_mark is None:
        if hand_to_opening_window(data_dir, search):
            return 0
        message = "A desktop-rag window on this data folder is opening but does not answer; try again in a moment."
        print(message, file=sys.stderr)
        tell_on_the_desktop(message)
        return 1
    app.setApplicationName("desktop-rag")
    app.setOrganizationName("desktop-rag")
    app.setWindowIcon(icon("app"))
    try:
        session = AppSession(data_dir)
        session.window_mark = window_mark
    except UserError as exc:  # a data folder that cannot be used: said in a window, not only on a terminal
        cannot_start(readable(exc))
        raise
    sys.excepthook = session.report_unexpected
    session.window.show()
    if session.library.settings.keep_fresh_when_closed and QSystemTrayIcon.isSystemTrayAvailable():
        start_tray(data_dir)  # it says what the service does once the window has closed
    if search:
        session.window.come_forward(search)
    try:
        code = app.exec()
    finally:
        session.close()
    keeps_going = session.library.settings.keep_fresh_when_closed and not session.quitting_everything
    if keeps_going:
        tell_once_that_the_index_stays_fresh(session.library.data_dir)
    if not session.window.runner.idle:
        # A call to the service is still in flight (a search the person left): nothing of this process holds the
        # library, so there is nothing to wait for. Closing takes at most half a second.
        logging.shutdown()
        os._exit(code)
    return code
