"""The endpoint's connections: one thread waits on all of them (selectors) and reads request lines as they come,
a bounded pool of workers answers complete lines — so a client that connects and sends nothing, or half a line
and stalls, holds no worker, and is closed after a while. Searches from many clients are answered side by side;
a connection has one request in hand at a time, and its next line waits in its buffer until the answer is sent.

Fair to every client of the same user (issue 61: ten long polls held all eight workers and a `hello` waited 29.5 s;
256 idle connections turned a search away for up to a minute): a long poll (an event stream's or the tray's wait,
told by `waits(line)`) is answered by a pool of its own, and a connection beyond `max_clients` takes the place of
the one idle longest (our clients connect again when they find theirs closed: EndpointClient).

Whatever a client does, it is that client's failure: each worker catches everything at its top, counts it and
logs the first of each kind once; the loop itself never ends on a client's account.
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from collections.abc import Callable

from desktop_rag import errors
from desktop_rag.service.request_lines import MAX_REQUEST_BYTES, answer_line, error_answer

log = logging.getLogger(__name__)

_READ_BYTES = 65_536
_SEND_TIMEOUT_S = 30.0  # a client that stops reading its answer gives the worker back after this
_TICK_S = 0.5  # how often timeouts are looked at
DRAIN_S = 0.5  # how long a stop lets the answers in hand go out (a long poll woken by "stopping": milliseconds)


@dataclass(eq=False)
class _Client:
    sock: socket.socket
    last_heard: float
    buffer: bytearray = field(default_factory=bytearray)
    partial_since: float | None = None  # when the unfinished line in the buffer began
    skipping: bool = False  # the rest of an oversized line is dropped up to its newline
    in_hand: bool = False  # a worker has its request (the socket is out of the selector meanwhile)
    leaving: bool = False  # closed once its request in hand is answered
    admitted: bool = False  # its first line passed the transport's admission (where there is one)


class ConnectionLoop:
    def __init__(self, listener: socket.socket, answer: Callable[[bytes], bytes], workers: int = 8,
                 max_clients: int = 256, idle_timeout_s: float = 60.0, stall_timeout_s: float = 10.0,
                 admit: Callable[[bytes], bool] | None = None, waits: Callable[[bytes], bool] = lambda line: False,
                 waiting_workers: int = 32):
        """`answer(line) -> answer line` runs on a worker. A client that sends nothing for `idle_timeout_s` is
        closed (a client of ours connects again: EndpointClient); one that leaves a line unfinished for
        `stall_timeout_s` is told so and closed. `admit(first line)`: where the transport lets anyone connect
        (Windows' loopback, platform/local_socket.py), a client whose first line it refuses is closed unheard.
        `waits(line)`: the request may wait for long (a long poll): answered by one of `waiting_workers` (threads
        that sleep; beyond them long polls queue behind each other, never before a search)."""
        self._listener = listener
        self._answer = answer
        self._admit = admit
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="desktop-rag endpoint worker")
        self._waiting_pool = ThreadPoolExecutor(waiting_workers, thread_name_prefix="desktop-rag endpoint waiter")
        self._waits = waits
        self._max_clients = max_clients
        self._idle_timeout_s = idle_timeout_s
        self._stall_timeout_s = stall_timeout_s
        self._selector = selectors.DefaultSelector()
        self._wake_read, self._wake_write = socket.socketpair()
        self._answered: list[_Client] = []  # handed back by workers, taken by the loop
        self._clients: set[_Client] = set()
        self._lock = threading.Lock()
        self._stopping = False
        self.failures = 0  # client failures caught at a worker's top (each kind logged once)
        self._logged_kinds: set[str] = set()
        self.refused = 0  # connections turned away because max_clients were open, each with a request in hand
        self.evicted = 0  # idle connections closed to make way for a new one
        self._thread = threading.Thread(target=self._run, name="desktop-rag endpoint", daemon=True)

    def start(self) -> None:
        self._listener.setblocking(False)
        self._wake_read.setblocking(False)
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._selector.register(self._wake_read, selectors.EVENT_READ)
        self._thread.start()

    def stop(self, drain_s: float = DRAIN_S) -> None:
        """Every connection is shut (a client mid-call learns the endpoint is gone at once), after the answers
        being written have gone out for up to `drain_s`: a window's long poll, woken by "stopping", hears it
        before its connection closes (else it took the stop for a crash and started the service again: 2 runs in
        5 of a window test). A worker still in an operation after that finishes it and finds its client gone."""
        self._stopping = True
        self._wake()
        self._thread.join(timeout=5)
        self._listener.close()  # before the clients learn of it: a client that then connects again finds no one
        deadline = time.monotonic() + drain_s
        while time.monotonic() < deadline:
            with self._lock:
                answering = [c for c in self._clients if c.in_hand and c not in self._answered]
            if not answering:
                break
            time.sleep(0.02)
        with self._lock:
            clients = list(self._clients)
        for client in clients:
            _shut(client.sock)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._waiting_pool.shutdown(wait=False, cancel_futures=True)

    # -- the loop ---------------------------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping:
                for key, _ in self._selector.select(timeout=_TICK_S):
                    if key.fileobj is self._listener:
                        self._accept()
                    elif key.fileobj is self._wake_read:
                        self._take_answered()
                    else:
                        self._read(key.data)
                self._time_out()
        except Exception:
            log.exception("the endpoint stopped answering")
        finally:
            self._selector.close()

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of file descriptors: the others are still answered
                log.warning("the endpoint could not take a connection: %s", exc)
                return
            if len(self._clients) >= self._max_clients and not self._make_way():
                self.refused += 1
                _send_now(sock, answer_line(error_answer(errors.DataFolderBusy(
                    f"{self._max_clients} clients are connected to this library's endpoint; try again"))))
                sock.close()
                continue
            sock.setblocking(False)
            client = _Client(sock, time.monotonic())
            with self._lock:
                self._clients.add(client)
            self._selector.register(sock, selectors.EVENT_READ, client)

    def _make_way(self) -> bool:
        """Close the connection idle longest for a new one — none with a request in hand, nor one whose request
        has come and is not read yet (a long poll sent as it connected, under load); False when all are busy."""
        idle = sorted((client for client in self._clients if not client.in_hand and not client.buffer),
                      key=lambda client: client.last_heard)
        for client in idle:
            if _nothing_waiting(client.sock):
                self._close(client)
                self.evicted += 1
                return True
        return False

    def _read(self, client: _Client) -> None:
        try:
            data = client.sock.recv(_READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close(client)
            return
        client.last_heard = time.monotonic()
        if client.skipping:
            end = data.find(b"\n")
            if end < 0:
                return
            data, client.skipping = data[end + 1:], False
        client.buffer += data
        self._next_line(client)

    def _next_line(self, client: _Client) -> None:
        """Hands the client's next complete line to a worker; an oversized one is refused and skipped."""
        end = client.buffer.find(b"\n")
        if end >= 0:
            line = bytes(client.buffer[:end + 1])
            del client.buffer[:end + 1]
            client.partial_since = time.monotonic() if client.buffer else None
            if self._admit is not None and not client.admitted:
                if not self._admit(line):
                    self._close(client)
                    return
                client.admitted = True
                self._next_line(client)
                return
            self._hand_over(client, line)
        elif len(client.buffer) > MAX_REQUEST_BYTES and self._admit is not None and not client.admitted:
            self._close(client)  # no secret is that long
        elif len(client.buffer) > MAX_REQUEST_BYTES:  # answered as too long (read_request), the rest skipped
            line = bytes(client.buffer[:MAX_REQUEST_BYTES + 1])
            client.buffer.clear()
            client.partial_since, client.skipping = None, True
            self._hand_over(client, line)
        elif client.buffer and client.partial_since is None:
            client.partial_since = time.monotonic()

    def _hand_over(self, client: _Client, line: bytes) -> None:
        client.in_hand = True
        self._selector.unregister(client.sock)
        (self._waiting_pool if self._waits(line) else self._pool).submit(self._work, client, line)

    def _take_answered(self) -> None:
        try:
            while self._wake_read.recv(4096):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        with self._lock:
            answered, self._answered = self._answered, []
        for client in answered:
            client.in_hand = False
            client.last_heard = time.monotonic()
            if client.leaving or self._stopping:
                self._close(client)
                continue
            client.sock.setblocking(False)
            self._selector.register(client.sock, selectors.EVENT_READ, client)
            self._next_line(client)  # a line that came while the last one was answered

    def _time_out(self) -> None:
        now = time.monotonic()
        for client in [c for c in self._clients if not c.in_hand]:
            if client.partial_since is not None and now - client.partial_since > self._stall_timeout_s:
                _send_now(client.sock, answer_line(error_answer(errors.BadInput(
                    f"the request line was not finished within {self._stall_timeout_s:g} s"))))
                self._close(client)
            elif now - client.last_heard > self._idle_timeout_s:
                self._close(client)

    def _close(self, client: _Client) -> None:
        try:
            self._selector.unregister(client.sock)
        except (KeyError, ValueError):
            pass  # out of the selector while a worker had it
        client.sock.close()
        with self._lock:
            self._clients.discard(client)

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"\0")
        except OSError:
            pass  # its buffer is full: the loop is being woken anyway

    # -- a worker ---------------------------------------------------------------------------------------------

    def _work(self, client: _Client, line: bytes) -> None:
        try:
            reply = self._answer(line)
            client.sock.settimeout(_SEND_TIMEOUT_S)
            client.sock.sendall(reply)
        except OSError:
            client.leaving = True  # it left, or stopped reading, or the endpoint stops
        except BaseException as exc:  # noqa: BLE001 — one client's failure is never the endpoint's end
            client.leaving = True
            self._count(exc)
        finally:
            with self._lock:
                self._answered.append(client)
            self._wake()

    def _count(self, exc: BaseException) -> None:
        self.failures += 1
        kind = exc.__class__.__name__
        if kind not in self._logged_kinds:
            self._logged_kinds.add(kind)
            log.error("a client's request failed (%s); further failures of this kind are counted, not logged",
                      kind, exc_info=exc)


def _nothing_waiting(sock: socket.socket) -> bool:
    """No bytes from the client wait to be read on `sock` (it is non-blocking while idle)."""
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""  # b"": it has left, and may go
    except (BlockingIOError, InterruptedError):
        return True
    except OSError:
        return True


def _send_now(sock: socket.socket, data: bytes) -> None:
    """A last word to a client being turned away, if its socket takes it at once."""
    try:
        sock.setblocking(False)
        sock.send(data)
    except OSError:
        pass


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
