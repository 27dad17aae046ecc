"""The local endpoint's transport (service/endpoint.py): a Unix domain socket only this user can open, in a folder
only this user may enter ($XDG_RUNTIME_DIR, else one of our own under the temporary folder), created 0600.

Elsewhere: macOS has Unix sockets and no $XDG_RUNTIME_DIR (the temporary folder, per user, serves); Windows
CPython has no AF_UNIX, so this becomes a named pipe (multiprocessing.connection's, or QLocalServer in the app)
with an owner-only security descriptor."""

from __future__ import annotations

import logging
import os
import socket
import tempfile
from pathlib import Path

from desktop_rag.errors import DataFolderUnusable, UserError
from desktop_rag.platform import private_paths

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 0.5
BACKLOG = 256  # dozens of local clients connecting at once are all taken (16 refused a third of 60)


def runtime_folder() -> Path:
    """A folder only this user may enter: $XDG_RUNTIME_DIR (made so by the system), else one of our own."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and Path(base).is_dir():
        try:
            private_paths.check_private(Path(base), "$XDG_RUNTIME_DIR")
            return Path(base)
        except DataFolderUnusable as exc:  # set wrong (a shared folder): one of our own instead
            log.warning("%s", exc)
    folder = Path(tempfile.gettempdir()) / f"desktop-rag-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    private_paths.check_private(folder, "the local endpoint's folder")
    return folder


def listen_privately(path: Path) -> socket.socket:
    """A listening socket at `path`, mode 0600 from its first moment (a socket left there by a killed process is
    replaced: the caller has made sure nobody answers on it)."""
    path.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)  # created 0600: no moment when another user could connect
    try:
        listener.bind(str(path))
    finally:
        os.umask(old_umask)
    try:
        private_paths.check_private(path, "the local endpoint's socket")
    except UserError:
        listener.close()
        path.unlink(missing_ok=True)
        raise
    listener.listen(BACKLOG)  # before the next one probes: bound but not listening reads as nobody
    return listener


def connect(path: Path) -> socket.socket | None:
    """A connection to the socket at `path`, or None when nobody answers there."""
    if not path.exists():
        return None
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(CONNECT_TIMEOUT_S)
    try:
        connection.connect(str(path))
    except OSError:
        connection.close()
        return None
    connection.settimeout(None)
    return connection
