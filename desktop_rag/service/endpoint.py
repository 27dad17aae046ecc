"""The local endpoint: the process that holds a library's models warm (the app, `watch`, `serve`) answers the
others (`desktop-rag search` and `stats`, `desktop-rag mcp`) over a Unix domain socket only the same user can open,
in tens of milliseconds instead of the seconds a new process takes to load torch and the embedding model.

One JSON object per line each way: {"method", "params"} in, {"result"} or {"error": {"type", "message"}} out.
The socket lives in a folder of the user's own (mode 0700: $XDG_RUNTIME_DIR, else one under the temporary
folder), named after the data folder, and is itself mode 0600. A client that finds no socket, or one nobody
answers, works on its own as before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import stat
import tempfile
import threading
from pathlib import Path
from typing import Callable

from desktop_rag import errors
from desktop_rag.errors import UserError, user_message

log = logging.getLogger(__name__)

_MAX_REQUEST_BYTES = 1_000_000  # far above any valid request (queries are capped at 2,000 characters)
_CONNECT_TIMEOUT_S = 0.5


class EndpointGone(UserError):
    """The process answering for the library went away during a call (the app quit): nothing it did is lost;
    asking again reaches whoever answers now."""

    what = "The desktop-rag app stopped during the call: "


def runtime_folder() -> Path:
    """A folder only this user may enter: $XDG_RUNTIME_DIR (made so by the system), else one of our own."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and Path(base).is_dir():
        return Path(base)
    folder = Path(tempfile.gettempdir()) / f"desktop-rag-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise errors.DataFolderUnusable(f"{folder} is not a private folder of yours: the local endpoint is off")
    return folder


def endpoint_path(data_dir: Path) -> Path:
    """Where the endpoint of this data folder listens. Named by a hash of the folder: a socket's path is limited
    to ~100 bytes, and a data folder's path may be longer."""
    digest = hashlib.sha256(str(Path(data_dir).resolve()).encode()).hexdigest()[:20]
    return runtime_folder() / f"desktop-rag-{digest}.sock"


class EndpointServer:
    """Answers requests with `handle(method, params)` on a thread per connection. `start()` refuses (returns
    False) when another live process already answers for this data folder."""

    def __init__(self, data_dir: Path, handle: Callable[[str, dict], object]):
        self.path = endpoint_path(data_dir)
        self._handle = handle
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()

    def start(self) -> bool:
        if EndpointClient.connect(self.path) is not None:
            return False
        self.path.unlink(missing_ok=True)  # a socket left by a process that was killed
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # created 0600: no moment when another user could connect
        try:
            server.bind(str(self.path))
        finally:
            os.umask(old_umask)
        server.listen(16)
        self._socket = server
        self._thread = threading.Thread(target=self._accept, name="desktop-rag endpoint", daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        server, self._socket = self._socket, None
        if server is None:
            return
        try:
            server.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        server.close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:  # a client mid-call learns the endpoint is gone (EndpointGone)
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.path.unlink(missing_ok=True)

    def _accept(self) -> None:
        while self._socket is not None:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            with self._lock:
                self._connections.add(connection)
            threading.Thread(target=self._serve, args=(connection,), name="desktop-rag endpoint client",
                             daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            with connection, connection.makefile("rwb") as stream:
                while True:
                    line = stream.readline(_MAX_REQUEST_BYTES + 1)
                    if not line:
                        return
                    stream.write(json.dumps(self._answer(line)).encode() + b"\n")
                    stream.flush()
        except OSError:
            return  # the client left, or the endpoint stops
        finally:
            with self._lock:
                self._connections.discard(connection)

    def _answer(self, line: bytes) -> dict:
        if len(line) > _MAX_REQUEST_BYTES:
            return _error(errors.BadInput(f"the request is over {_MAX_REQUEST_BYTES:,} bytes"))
        try:
            request = json.loads(line)
            method, params = request["method"], request.get("params") or {}
            if not isinstance(method, str) or not isinstance(params, dict):
                raise ValueError("method must be a string and params an object")
        except (ValueError, KeyError, TypeError) as exc:
            return _error(errors.BadInput(f"not a request: {exc}"))
        try:
            return {"result": self._handle(method, params)}
        except Exception as exc:  # noqa: BLE001 — every failure is the caller's answer, never the endpoint's end
            if user_message(exc) is None:
                log.exception("the endpoint's %s failed", method)
            return _error(exc)


def _error(exc: Exception) -> dict:
    message = user_message(exc)
    if message is None:
        return {"error": {"type": "InternalError", "message": f"internal error ({exc.__class__.__name__}: {exc})"}}
    kind = exc.__class__.__name__ if isinstance(exc, UserError) else "UserError"
    return {"error": {"type": kind, "message": str(exc) if isinstance(exc, UserError) else message}}


class EndpointClient:
    """A connection to the endpoint; calls are one at a time."""

    def __init__(self, connection: socket.socket):
        self._connection = connection
        self._stream = connection.makefile("rwb")
        self._lock = threading.Lock()

    @classmethod
    def connect(cls, path: Path) -> "EndpointClient | None":
        """A client of the endpoint at `path`, or None when nobody answers there."""
        if not path.exists():
            return None
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(_CONNECT_TIMEOUT_S)
        try:
            connection.connect(str(path))
        except OSError:
            connection.close()
            return None
        connection.settimeout(None)
        return cls(connection)

    @classmethod
    def for_library(cls, data_dir: Path) -> "EndpointClient | None":
        try:
            return cls.connect(endpoint_path(data_dir))
        except UserError:  # no private runtime folder: work on our own
            return None

    def call(self, method: str, **params):
        with self._lock:
            try:
                self._stream.write(json.dumps({"method": method, "params": params}).encode() + b"\n")
                self._stream.flush()
                line = self._stream.readline()
            except OSError as exc:
                raise EndpointGone(str(exc)) from None
        if not line:
            raise EndpointGone("it closed the connection")
        answer = json.loads(line)
        if "error" in answer:
            raise _user_error(answer["error"])
        return answer["result"]

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            self._connection.close()


def _user_error(error: dict) -> Exception:
    """The endpoint's error as the exception a local call would have raised (BadInput, NoIndexError, …)."""
    kind = getattr(errors, error.get("type", ""), None)
    if isinstance(kind, type) and issubclass(kind, UserError):
        return kind(error["message"])
    if error.get("type") == "EndpointGone":
        return EndpointGone(error["message"])
    return UserError(f"{error.get('message', 'the endpoint failed')} in the process that answers for this library "
                     "(its data folder's desktop-rag.log has the traceback)")
