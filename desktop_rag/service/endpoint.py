"""The local endpoint: the process that holds a library's models warm (the service, `watch`, `serve`) answers the
others (`desktop-rag search` and `stats`, `desktop-rag mcp`) over a Unix domain socket only the same user can open,
in tens of milliseconds instead of the seconds a new process takes to load torch and the embedding model.

One JSON object per line each way: {"method", "params"} in, {"result"} or {"error": {"type", "message"}} out
(service/request_lines.py); connections are served by service/connection_loop.py.
The socket (platform/local_socket.py) lives in a folder of the user's own, named after the data folder, and only
its user can open it. A client that finds no socket, or one nobody
answers, works on its own as before.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import threading
from pathlib import Path
from collections.abc import Callable

from desktop_rag import errors
from desktop_rag.platform import local_socket
from desktop_rag.errors import UserError, user_message
from desktop_rag.platform.file_locks import one_at_a_time
from desktop_rag.service.connection_loop import ConnectionLoop
from desktop_rag.service.request_lines import answer_line, error_answer, read_request, waits_long
from desktop_rag.service.service_mark import endpoint_path
from desktop_rag.service.wire import A, Request, run_through

log = logging.getLogger(__name__)



class EndpointGone(UserError):
    """The process answering for the library went away during a call (the service stopped): nothing it did is lost;
    asking again reaches whoever answers now."""

    what = "The desktop-rag service stopped during the call: "


class EndpointServer:
    """Answers requests with `handle(method, params)` (service/connection_loop.py: many clients, a bounded pool of
    workers). `start()` refuses (returns False) when another live process already answers for this data folder."""

    def __init__(self, data_dir: Path, handle: Callable[[str, dict], object], **loop_options):
        """`loop_options`: ConnectionLoop's workers, max_clients and timeouts."""
        self.path = endpoint_path(data_dir)
        self._handle = handle
        self._loop_options = loop_options
        self._loop: ConnectionLoop | None = None

    def start(self) -> bool:
        # One process at a time from the probe to the bind: two starting at once both found nobody answering, and
        # the second unlinked the first one's socket to bind its own (the first then listened where nobody came).
        with one_at_a_time(self.path.with_suffix(".lock")):
            answering = EndpointClient.connect(self.path)
            if answering is not None:
                answering.close()  # the probe's connection, not left open on the other process
                return False
            listener, admit = local_socket.listen_privately(self.path)  # (a killed process's socket: replaced)
        self._loop = ConnectionLoop(listener, self._answer, admit=admit, waits=waits_long, **self._loop_options)
        self._loop.start()
        return True

    @property
    def failures(self) -> int:
        """Client requests that failed past their error answer (each kind is logged once)."""
        return self._loop.failures if self._loop is not None else 0

    def stop(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None:
            return
        self.path.unlink(missing_ok=True)
        loop.stop()

    def _answer(self, line: bytes) -> bytes:
        try:
            method, params = read_request(line)
        except errors.BadInput as exc:
            return answer_line(error_answer(exc))
        try:
            return answer_line({"result": self._handle(method, params)})
        except Exception as exc:
            if user_message(exc) is None:
                log.exception("the endpoint's %s failed", method)
            return answer_line(error_answer(exc))


class EndpointClient:
    """A connection to the endpoint; calls are one at a time. A connection the endpoint closed while it was idle
    (service/connection_loop.py) is opened again before the next call."""

    def __init__(self, connection: socket.socket, path: Path):
        self._connection = connection
        self._stream = connection.makefile("rwb")
        self._path = path
        self._lock = threading.Lock()

    @classmethod
    def connect(cls, path: Path) -> EndpointClient | None:
        """A client of the endpoint at `path`, or None when nobody answers there."""
        connection = local_socket.connect(path)
        return cls(connection, path) if connection is not None else None

    @classmethod
    def for_library(cls, data_dir: Path) -> EndpointClient | None:
        try:
            return cls.connect(endpoint_path(data_dir))
        except UserError:  # no private runtime folder: work on our own
            return None

    def run(self, request: Request[A]) -> A:
        """A declared operation (service/wire.py), its answer typed as declared."""
        return run_through(self.call, request)

    def call(self, method: str, **params):
        with self._lock:
            if self._closed_while_idle():
                self._reconnect()
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

    def _closed_while_idle(self) -> bool:
        """Between calls nothing is owed to us: a readable socket here is the endpoint's goodbye."""
        try:
            readable, _, _ = select.select([self._connection], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(readable)

    def _reconnect(self) -> None:
        self.close()
        connection = local_socket.connect(self._path)
        if connection is None:
            raise EndpointGone("it is no longer there")
        self._connection, self._stream = connection, connection.makefile("rwb")

    def close(self) -> None:
        try:
            self._stream.close()
        except OSError:  # a call that failed left its line in the buffer: closing flushes it to a gone peer
            pass
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
                     "(its log in the data folder's logs/ has the traceback)")
