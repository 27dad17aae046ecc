"""`desktop-rag tray`: an icon in the desktop's tray saying what the process answering for the data folder is doing
(the window while it is open, the background service after it: indexing N%, writing LLM contexts, idle, paused),
with Search… (the quick popup), Pause/Resume background work, Open and Quit. The window starts it where the desktop
has a tray; it is a client of the endpoint like the quick popup, in a process of its own — a tray inside the window
or the service tied their lives together (Jan's tray + Quick Ask: quit and update bugs, #3944, #3679).

It hears of a change as it happens: a status request waits on the endpoint until something differs (a long poll,
service/activity.py), so it asks nothing while nothing changes. A service that vanished without noting an orderly
end (killed, crashed) is started again, a few times at most. The tray ends when Quit is chosen, or when nothing
has answered for the data folder for a while (`desktop-rag stop`, or the window closed with the service off).
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
from desktop_rag.platform.file_locks import lock
from desktop_rag.config import Settings
from desktop_rag.service.background_process import (APP_ROLE, SERVICE_ROLE, ended_in_order, service_starting,
                                                    start_detached, start_service, stop_answering, who_answers)
from desktop_rag.service.endpoint import EndpointClient, EndpointGone, endpoint_path
from desktop_rag.ui.quick_search import QuickSearch, ServiceSearch
from desktop_rag.ui.theme import icon

log = logging.getLogger(__name__)

STATUS_WAIT_S = 20.0  # a status request waits this long for a change (the endpoint closes idle ones after 60)
GONE_AFTER_S = 30.0  # nothing answering nor starting for this long: the tray ends
RECONNECT_S = 1.0
# A service killed or crashed is started again, but not forever: past this many in RESTARTS_WITHIN_S the tray
# says so and leaves it (something in the library or the machine needs a person: the log says what).
MAX_RESTARTS = 3
RESTARTS_WITHIN_S = 600.0


def status_words(status: dict | None, starting: bool = False) -> str:
    """One line for the menu and the tooltip."""
    if status is None:
        return "Starting the background index…" if starting else "Not running"
    doing = status["doing"]
    share = status.get("share_done")
    line = doing[0].upper() + doing[1:] + (f" {share:.0%}" if share is not None and doing in ("indexing", "catching up")
                                  else "")
    if doing == "idle":
        line = "Idle: the index is up to date"
    elif doing == "paused":
        line = "Background work paused"
    where = "in the window" if status.get("role") == APP_ROLE else "in the background"
    return f"{line} ({where})"


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
        shown: dict | None = {}  # (nothing shown yet: the first answer, even None, is news)
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
                status = self._client.call("status", after=version, wait_s=STATUS_WAIT_S)
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
        self._last_role: str | None = None  # of the last process seen answering
        self._restarts: list[float] = []
        self.gave_up = False
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
            self._unanswered_since, self._last_role, self.gave_up = None, status.get("role"), False
        words = status_words(status, status is None and service_starting(self.data_dir))
        if status is None and self.gave_up:
            words = "The background index keeps stopping: logs/service.log in the data folder says why"
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
            client.call("pause_background", paused=paused)
        except (EndpointGone, UserError) as exc:
            log.warning("the tray could not %s: %s", "pause" if paused else "resume", exc)
        finally:
            client.close()

    def open_window(self) -> None:
        """The window (an open one comes forward: ui/single_instance.py); it takes the library from the service."""
        start_detached(self.data_dir, "gui")

    def quit_everything(self) -> None:
        """Stop whoever answers (the service, or the window: it closes and starts no service), then end."""
        try:
            stop_answering(self.data_dir)
        except UserError as exc:
            log.warning("%s", exc)
        self.close()

    def _end_if_gone(self) -> None:
        if self._unanswered_since is None or self.gave_up:
            return
        if service_starting(self.data_dir):
            self._unanswered_since = self._clock()  # a service loading: not gone
            return
        # Gone without an orderly end, and nobody answers now (a window taking the library over answers before the
        # follower hears of it: it must not be taken for a service that died).
        ended_badly = (self._last_role in (SERVICE_ROLE, APP_ROLE) and not ended_in_order(self.data_dir)
                       and who_answers(self.data_dir) is None)
        if ended_badly and self._last_role == SERVICE_ROLE:
            self._start_again("The background index stopped unexpectedly; it was started again.")
        elif ended_badly and self._last_role == APP_ROLE and Settings.load(self.data_dir).keep_fresh_when_closed:
            self._start_again("The window ended unexpectedly; the background index keeps your files searchable.")
        elif self._clock() - self._unanswered_since >= self.gone_after_s:
            log.info("nothing answers for %s: the tray ends", self.data_dir)
            self.close()

    def _start_again(self, message: str) -> None:
        """The service (or the window, as it would have started the service on closing) was killed or crashed: it
        noted no orderly end. The service is started (again), a few times at most."""
        now = self._clock()
        self._restarts = [t for t in self._restarts if now - t < RESTARTS_WITHIN_S]
        self._last_role, self._unanswered_since = None, now  # until it answers: starting, then gone
        if len(self._restarts) >= MAX_RESTARTS:
            log.error("the background service of %s stopped unexpectedly %d times in %.0f minutes; not started "
                      "again", self.data_dir, len(self._restarts) + 1, RESTARTS_WITHIN_S / 60)
            self.gave_up = True
            self.show_status(None)
            return
        self._restarts.append(now)
        log.warning("%s (%s)", message, self.data_dir)
        start_service(self.data_dir)
        self.icon.showMessage("desktop-rag", message)
        self.show_status(None)

    def close(self) -> None:
        self._gone.stop()
        self.follower.stop()
        self.icon.hide()
        if self._popup is not None:
            self._popup.close()
        self.quit_requested.emit()


def hold_the_tray_mark(data_dir: Path):
    """One tray per data folder: the open mark, held while it runs, or None when another tray holds it."""
    handle = open(endpoint_path(data_dir).with_suffix(".tray"), "a+", encoding="utf-8")  # noqa: SIM115 — the mark
    try:
        lock(handle)
    except OSError:
        handle.close()
        return None
    return handle


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
