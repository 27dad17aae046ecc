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

macOS has Unix sockets and no $XDG_RUNTIME_DIR (the temporary folder, per user, serves: nothing to change).
Windows CPython has no AF_UNIX (python/cpython#77589): there `listen_privately` listens on 127.0.0.1 with a port
the system picks, and writes the port and a secret of 32 random bytes to the file at the endpoint's path, in a
folder of the user's profile only they may open (private_paths: its access list); `connect` reads them and sends
the secret as its first line, which the loop checks (`admit`) before it reads a request — the framing, the
timeouts and the clients are unchanged. Written and tested on Linux (SYSTEM set to "win32" in the test); not run on
Windows yet."""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import socket
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from platformdirs import user_cache_dir

from desktop_rag.errors import DataFolderUnusable, UserError
from desktop_rag.platform import private_paths

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 0.5
_SAID: set[str] = set()  # runtime folders passed over, said once
_CHECKED: set[Path] = set()  # Windows: runtime folders whose access list was checked in this process
BACKLOG = 256  # dozens of local clients connecting at once are all taken (16 refused a third of 60)
SYSTEM = sys.platform
Admission = Callable[[bytes], bool]  # a client's first line → whether it may send requests


def runtime_folder() -> Path:
    """A folder only this user may enter: $XDG_RUNTIME_DIR (made so by the system), else one of our own."""
    if SYSTEM == "win32":  # in the user's profile (%LOCALAPPDATA%), its access list checked
        folder = Path(user_cache_dir("desktop-rag", appauthor=False)) / "run"
        if folder not in _CHECKED:  # once a process: the check runs icacls, and every connection asks for this
            _CHECKED.add(private_paths.private_folder(folder, "the local endpoint's folder"))
        return folder
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and Path(base).is_dir():
        try:
            private_paths.check_private(Path(base), "$XDG_RUNTIME_DIR")
            return Path(base)
        except DataFolderUnusable as exc:  # set wrong (a shared folder): one of our own instead
            if base not in _SAID:  # once a process: said 2-3 times in one command's output (issue 61, 9)
                _SAID.add(base)
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


def listen_privately(path: Path) -> tuple[socket.socket, Admission | None]:
    """A listening socket at `path` that only this user can use, and what the loop asks of a client's first line
    (None: nothing, the socket's mode keeps others out). A socket left there by a killed process is replaced: the
    caller has made sure nobody answers on it."""
    if SYSTEM == "win32":
        return _listen_on_loopback(path)
    path.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # type: ignore[attr-defined,unused-ignore]
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
    return listener, None


def _listen_on_loopback(path: Path) -> tuple[socket.socket, Admission]:
    """Windows: 127.0.0.1, any user of the machine can connect; only one who read the secret is let in."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(BACKLOG)
    secret = secrets.token_hex(32)
    partial = path.with_name(path.name + ".partial")
    with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as out:
        json.dump({"port": listener.getsockname()[1], "secret": secret}, out)
    os.replace(partial, path)
    expected = (secret + "\n").encode()
    return listener, lambda line: hmac.compare_digest(line, expected)


def connect(path: Path) -> socket.socket | None:
    """A connection to the socket at `path`, or None when nobody answers there."""
    if not path.exists():
        return None
    if SYSTEM == "win32":
        return _connect_on_loopback(path)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # type: ignore[attr-defined,unused-ignore]
    connection.settimeout(CONNECT_TIMEOUT_S)
    try:
        connection.connect(str(path))
    except OSError:
        connection.close()
        return None
    connection.settimeout(None)
    return connection


def _connect_on_loopback(path: Path) -> socket.socket | None:
    try:
        address = json.loads(path.read_text(encoding="utf-8"))
        port, secret = int(address["port"]), str(address["secret"])
    except (OSError, ValueError, KeyError, TypeError):  # half written, or not ours
        return None
    try:
        connection = socket.create_connection(("127.0.0.1", port), timeout=CONNECT_TIMEOUT_S)
    except OSError:  # a killed service's file: nobody listens on its port
        return None
    try:
        connection.sendall((secret + "\n").encode())
    except OSError:
        connection.close()
        return None
    connection.settimeout(None)
    return connection
