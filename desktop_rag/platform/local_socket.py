"""The local endpoint's transport (service/endpoint.py), its one seam: `runtime_folder` (where the address
lives), `listen_privately` and `connect` — a byte stream both ways, that the endpoint's loop waits on with
`selectors` and reads as JSON lines (service/connection_loop.py: a half line, an oversized one, a stalled or a
silent client each hold nothing). Here: a Unix domain socket only this user can open, in a folder only this user
may enter ($XDG_RUNTIME_DIR, else one of our own under the temporary folder), created 0600.

Why a stream of sockets, measured against the alternatives (bench/transport.py, docs/benchmarks.md "The
endpoint's transport"): every way costs 10-30 µs a call on 2 cores, nothing beside a search's ~30 ms, so the choice
is what stays robust. `multiprocessing.connection` (AF_UNIX and Windows' AF_PIPE under one API) frames messages and
reads them whole: a client that sends half a frame and stops holds the reader (and with an authkey, its challenge
holds the accepting thread), and its Windows pipes cannot be waited on with `selectors`, so the loop and its fault
handling would be written twice. QLocalServer is Qt, which only ui/ loads.

Elsewhere, the pieces to fill: macOS has Unix sockets and no $XDG_RUNTIME_DIR (the temporary folder, per user,
serves: nothing to change). Windows CPython has no AF_UNIX (python/cpython#77589): `listen_privately` becomes a
socket on 127.0.0.1 with a port chosen by the system, its address and a secret of 32 random bytes written to a file
in the user's profile (readable by the user alone), and `connect` reads them and sends the secret as its first
line, which the loop checks before it reads requests — the framing, the timeouts and the clients are unchanged."""

from __future__ import annotations

import logging
import os
import socket
import stat
import tempfile
from pathlib import Path

from platformdirs import user_cache_dir

from desktop_rag.errors import DataFolderUnusable, UserError
from desktop_rag.platform import private_paths

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 0.5
_SAID: set[str] = set()  # runtime folders passed over, said once
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
    try:
        return _own_folder(folder)
    except (OSError, UserError) as exc:  # taken by someone else first (the temporary folder is everyone's)
        fallback = Path(user_cache_dir("desktop-rag", appauthor=False)) / "run"
        if str(folder) not in _SAID:  # once a process: every connection asks for the folder
            _SAID.add(str(folder))
            log.warning("%s: the local endpoint lives in %s instead", exc, fallback)
        fallback.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        return _own_folder(fallback)


def _own_folder(folder: Path) -> Path:
    """`folder`, made if missing, once it is known to be a folder of this user's alone — by its own entry, never a
    link's target (a link placed there to the person's own private folder passed a check that followed it)."""
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise DataFolderUnusable(f"{folder} is not a folder of ours (a link or a file someone else may have put "
                                 "there)")
    if info.st_uid != os.getuid():
        raise DataFolderUnusable(f"the local endpoint's folder {folder} belongs to another user")
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
