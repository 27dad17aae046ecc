"""One window per data folder: a second launch hands its request to the window already open, which comes to the
front (with the query the launch carried, `desktop-rag gui --search "…"`), and ends. Issue 37: a second launch
opened a second full window on the same library, which could not write and yet said "Watching 1 folder".

Qt's local sockets (a Unix socket here, a named pipe on Windows), named after the data folder and the user, open to
this user only. A message is one line of JSON: {"search": "…"}. Two launches at the same instant both found no
window to hand to, and 8 times in 10 both opened one (issue 49, D2): the window's mark, a lock taken before it
opens and held while it is open, makes one of them the window and the other hand its request to it.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from desktop_rag.errors import UserError
from desktop_rag.platform.file_locks import hold_mark
from desktop_rag.platform.local_socket import runtime_folder

log = logging.getLogger(__name__)

CONNECT_MS = 500  # a live window answers in milliseconds; a dead one's leftover socket refuses at once
# How long a launch that finds the mark held waits for that window to listen: its first seconds (Qt, the catalog).
OPENING_WAIT_S = 20.0
_MAX_MESSAGE = 64 * 1024


def instance_name(data_dir: Path) -> str:
    key = f"{getpass.getuser()}|{Path(data_dir).expanduser().resolve()}"
    return f"desktop-rag-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def take_the_window_mark(data_dir: Path):
    """The mark of this data folder's one window, held open while the window is (None: another holds it — a
    window open or opening). A lock, not a file's presence: a window that crashed leaves nothing held."""
    try:
        return hold_mark(runtime_folder() / f"{instance_name(data_dir)}.window")
    except (OSError, UserError) as exc:  # no private folder for it: the window opens as before the mark
        log.warning("the window's mark cannot be taken (%s): a second launch at the same instant may open a "
                    "second window", exc)
        return open(os.devnull, encoding="utf-8")  # held as the mark would be


def hand_to_opening_window(data_dir: Path, search: str = "", wait_s: float = OPENING_WAIT_S) -> bool:
    """The window holding the mark may still be opening: hand it the request once it listens."""
    deadline = time.monotonic() + wait_s
    while not hand_to_running_window(data_dir, search):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def hand_to_running_window(data_dir: Path, search: str = "") -> bool:
    """True when a window of this data folder is open and took the request (this launch should end)."""
    socket = QLocalSocket()
    socket.connectToServer(instance_name(data_dir))
    if not socket.waitForConnected(CONNECT_MS):
        return False
    socket.write((json.dumps({"search": search}) + "\n").encode())
    sent = socket.waitForBytesWritten(CONNECT_MS)
    socket.disconnectFromServer()
    return sent


class WindowRequests(QObject):
    """The open window's end: what later launches ask of it."""

    show_requested = Signal(str)  # the query the launch carried ("" for none)

    def __init__(self, data_dir: Path, parent: QObject | None = None):
        super().__init__(parent)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        name = instance_name(data_dir)
        QLocalServer.removeServer(name)  # a socket left by a window that crashed (no live one answered)
        self.listening = self._server.listen(name)

    def close(self) -> None:
        self._server.close()

    def _accept(self) -> None:
        while (connection := self._server.nextPendingConnection()) is not None:
            connection.readyRead.connect(lambda c=connection: self._read(c))
            connection.disconnected.connect(connection.deleteLater)
            self._read(connection)

    def _read(self, connection: QLocalSocket) -> None:
        if not connection.canReadLine():
            if connection.bytesAvailable() > _MAX_MESSAGE:
                connection.abort()
            return
        line = bytes(connection.readLine(_MAX_MESSAGE).data()).decode("utf-8", "replace")
        try:
            search = json.loads(line).get("search", "")
        except (ValueError, AttributeError):
            search = ""
        self.show_requested.emit(search if isinstance(search, str) else "")
