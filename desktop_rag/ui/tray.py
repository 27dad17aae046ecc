"""`desktop-rag tray`: an icon in the desktop's tray saying what the process answering for the data folder is doing
(the window while it is open, the background service after it: indexing N%, writing LLM contexts, idle, paused),
with Search… (the quick popup), Pause/Resume background work, Open and Quit. The window starts it where the desktop
has a tray; it is a client of the endpoint like the quick popup, in a process of its own — a tray inside the window
or the service tied their lives together (Jan's tray + Quick Ask: quit and update bugs, #3944, #3679).

It hears of a change as it happens: a status request waits on the endpoint until something differs (a long poll,
service/activity.py), so it asks nothing while nothing changes. It supervises nothing (issue 49): a service that
died is started by the next front end that needs it (Search… here, the window, `index`, `mcp`). The tray ends when
Quit is chosen (the service stops, and the window with it), or when nothing has answered for a while.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from pathlib import Path
from typing import cast

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon

from desktop_rag.errors import UserError
from desktop_rag.platform.file_locks import hold_mark
from desktop_rag.service.background_process import service_starting, start_detached, stop_answering
from desktop_rag.service import wire
from desktop_rag.service.endpoint import EndpointClient, EndpointGone, endpoint_path
from desktop_rag.ui.quick_search import QuickSearch, ServiceSearch
from desktop_rag.ui.theme import icon

log = logging.getLogger(__name__)

STATUS_WAIT_S = 20.0  # a status request waits this long for a change (the endpoint closes idle ones after 60)
GONE_AFTER_S = 30.0  # nothing answering nor starting for this long: the tray ends
RECONNECT_S = 1.0


def status_words(status: dict | None, starting: bool = False) -> str:
    """One line for the menu and the tooltip: the service's own words for its state (service/activity.py), as
    `desktop-rag status` and the window say them."""
    if status is None:
        return "Starting the background index…" if starting else "Not running"
    return f"{status['words']} (in the background)"


class StatusFollower(QObject):
    """The endpoint's status, followed on a thread of its own (a long poll would hold a task lane for seconds)."""

    changed = Signal(object)  # the status dict, or None when nothing answers

    def __init__(self, data_dir: Path, parent: QObject | None = None):
        super().__init__(parent)
        self.data_dir = data_dir
        self._stopping = threading.Event()
        self._client: EndpointClient | None = None
        self._thread = threading.Thread(target=self._follow, name="desktop-rag tray status", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        client = self._client
        if client is not None:
            client.close()  # a request waiting for a change returns at once

    def _follow(self) -> None:
        version: str | None = None
        shown: dict | wire.StatusAnswer | None = {}  # (nothing shown yet: the first answer, even None, is news)
        while not self._stopping.is_set():
            if self._client is None:
                self._client = EndpointClient.for_library(self.data_dir)
                if self._client is None:
                    if shown is not None:
                        shown = None
                        self.changed.emit(None)
                    self._stopping.wait(RECONNECT_S)
                    continue
            try:
                status = self._client.run(wire.Status(after=version, wait_s=STATUS_WAIT_S))
            except (EndpointGone, UserError, OSError, ValueError):
                self._drop_client()
                version = None
                continue
            if status["version"] != version or shown is None:
                version, shown = status["version"], status
                self.changed.emit(status)

    def _drop_client(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                client.close()
            except OSError:
                pass


class ServiceTray(QObject):
    quit_requested = Signal()  # the tray ends (the app's event loop quits)

    def __init__(self, data_dir: Path, parent: QObject | None = None, clock=time.monotonic):
        super().__init__(parent)
        self.data_dir = data_dir
        self._clock = clock
        self.status: dict | None = None
        self.gone_after_s = GONE_AFTER_S
        self._unanswered_since: float | None = None
        self._popup: QuickSearch | None = None
        self.icon = QSystemTrayIcon(icon("app"), self)
        self.menu = QMenu()
        self.state_line = QAction("Starting…", self.menu, enabled=False)
        self.search_action = self._action("Search…", self.open_search)
        self.pause_action = self._action("Pause background work", self.toggle_pause)
        self.open_action = self._action("Open desktop-rag", self.open_window)
        self.quit_action = self._action("Quit desktop-rag", self.quit_everything)
        for action in (self.state_line, None, self.search_action, self.pause_action, self.open_action, None,
                       self.quit_action):
            self.menu.addSeparator() if action is None else self.menu.addAction(action)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self.follower = StatusFollower(data_dir, self)
        self.follower.changed.connect(self.show_status)
        self._gone = QTimer(self, interval=1000)
        self._gone.timeout.connect(self._end_if_gone)

    def _action(self, text: str, slot) -> QAction:
        action = QAction(text, self.menu)
        action.triggered.connect(slot)
        return action

    def start(self) -> None:
        self.show_status(None)
        self.icon.show()
        self.follower.start()
        self._gone.start()

    def show_status(self, status: dict | None) -> None:
        self.status = status
        if status is None:
            self._unanswered_since = self._unanswered_since or self._clock()
        else:
            self._unanswered_since = None
        words = status_words(status, status is None and service_starting(self.data_dir))
        self.state_line.setText(words)
        self.icon.setToolTip(f"desktop-rag: {words}")
        self.pause_action.setEnabled(status is not None)
        self.pause_action.setText("Resume background work" if status and status["paused"]
                                  else "Pause background work")

    def _activated(self, reason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:  # a left click: what people use it for
            self.open_search()

    def open_search(self) -> None:
        popup = self._popup
        if popup is None or not popup.isVisible():
            popup = self._popup = QuickSearch(ServiceSearch(self.data_dir))
        popup.show()
        popup.raise_()
        popup.activateWindow()
        popup.field.setFocus()

    def toggle_pause(self) -> None:
        paused = not (self.status or {}).get("paused", False)
        client = EndpointClient.for_library(self.data_dir)
        if client is None:
            return
        try:
            # Shown when the status follower hears of it (within a quarter second): shown from here, a state
            # changed back elsewhere before the follower looked would stay on screen, wrong.
            client.run(wire.PauseBackground(paused=paused))
        except (EndpointGone, UserError) as exc:
            log.warning("the tray could not %s: %s", "pause" if paused else "resume", exc)
        finally:
            client.close()

    def open_window(self) -> None:
        """The window (an open one comes forward: ui/single_instance.py), a client of the service."""
        start_detached(self.data_dir, "gui")

    def quit_everything(self) -> None:
        """Stop the service, and with it the window (told so on its event stream), then end."""
        try:
            stop_answering(self.data_dir, everything=True)
        except UserError as exc:
            log.warning("%s", exc)
        self.close()

    def _end_if_gone(self) -> None:
        """Nothing has answered (nor been starting) for a while: the tray ends. It starts nothing itself: the
        service is started by whichever front end needs it next (issue 49; Search… here is one)."""
        if self._unanswered_since is None:
            return
        if service_starting(self.data_dir):
            self._unanswered_since = self._clock()  # a service loading: not gone
            return
        if self._clock() - self._unanswered_since >= self.gone_after_s:
            log.info("nothing answers for %s: the tray ends", self.data_dir)
            self.close()

    def close(self) -> None:
        self._gone.stop()
        self.follower.stop()
        self.icon.hide()
        if self._popup is not None:
            self._popup.close()
        self.quit_requested.emit()


def hold_the_tray_mark(data_dir: Path):
    """One tray per data folder: the open mark, held while it runs, or None when another tray holds it."""
    return hold_mark(endpoint_path(data_dir).with_suffix(".tray"))


def run_tray(data_dir: Path) -> int | None:
    """The tray until it ends; None at once where the desktop shows no tray icons."""
    app = cast(QApplication, QApplication.instance()) or QApplication(sys.argv[:1])
    if not QSystemTrayIcon.isSystemTrayAvailable():
        return None
    mark = hold_the_tray_mark(data_dir)
    if mark is None:
        return 0  # one is there already
    with mark:
        app.setQuitOnLastWindowClosed(False)  # the quick popup closing leaves the tray
        tray = ServiceTray(data_dir)
        tray.quit_requested.connect(app.quit)
        tray.start()
        return app.exec()
