"""An object living in a spawned child process, its methods called over pipes — for the app.

Some work holds Python's GIL for long stretches whatever thread it runs on: Chroma's inserts (25–250 ms each),
importing torch (its C extension's start-up alone ~200 ms) and the Python side of running a model. In the app's
process each stretch froze the window; in a child, the caller's worker thread waits on a pipe without the GIL.

A child runs at a lower CPU priority than the app (on 2 cores the models' threads — llama.cpp's most of all —
otherwise took the CPU from the GUI thread, or from the thread holding the GIL it waited for), and uses all the
CPU nobody else wants.

A child has one or more lanes (a pipe each, served by its own thread in the child) so that a short call, such as
embedding a query, does not queue behind a long one, such as embedding a batch of chunks. Calls on one lane are
taken one at a time. A child that died is started again on the next call.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
from typing import Callable, Sequence

_START_TIMEOUT_S = 120  # importing chromadb or torch in a fresh process takes seconds on a slow laptop
_NICENESS = 10  # of 19: background work, as a desktop counts it


class ChildFailed(RuntimeError):
    pass


class ChildDied(ChildFailed):
    """The child ended during a call (a crash in a C library, the OS reclaiming memory)."""


class ChildTimedOut(ChildFailed):
    pass


class ChildObject:
    def __init__(self, factory: Callable, args: tuple = (), *, name: str, lanes: Sequence[str] = ("main",),
                 error: type[Exception] | None = ChildFailed):
        """`factory(*args)` builds the object in the child (both must be importable by name: the child is
        spawned). `name` is what messages call it ("the vector store"). `error`: the exception a failed call
        raises with the child's one-line reason; None raises the child's own exception where it can be
        pickled (so callers can catch e.g. FileNotFoundError as they would in-process)."""
        self.name = name
        self._factory, self._args = factory, args
        self._lanes = tuple(lanes)
        self._error = error
        self._start_lock = threading.Lock()
        self._lane_locks = {lane: threading.Lock() for lane in self._lanes}
        self._process = None
        self._conns: dict[str, object] = {}
        self._closed = False

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def call(self, method: str, *args, lane: str | None = None, timeout: float | None = None):
        """`timeout`: seconds after which the child is ended (it is started again for the next call) and
        ChildTimedOut raised — for work that may get stuck on bad input."""
        lane = lane or self._lanes[0]
        with self._lane_locks[lane]:
            conn = self._sent(lane, (method, args))
            if timeout is not None and not conn.poll(timeout):
                self._forget_child(kill=True)
                raise ChildTimedOut(f"{self.name} took longer than {timeout:g} s")
            try:
                return self._answer(conn)
            except ChildDied:
                # A dying child's pipes close before the process can be reaped (is_alive() stays true for a
                # moment, longer on a loaded machine): forget it now, or the next call writes into its pipe.
                self._forget_child()
                raise

    def _sent(self, lane: str, message: tuple):
        """The lane's pipe, `message` sent on it. Between calls a lane has nothing to read — unless the child
        closed it by dying since the last call (killed while idle, out of memory): such a child is replaced
        first, so the message goes to one that will answer."""
        conn = self._started()[lane]
        if conn.poll(0):
            self._forget_child()
            conn = self._started()[lane]
        try:
            conn.send(message)
            return conn
        except OSError as exc:  # BrokenPipeError among them
            self._forget_child()
            raise ChildDied(f"{self.name} process stopped unexpectedly") from exc

    def _forget_child(self, kill: bool = False) -> None:
        """End the child (at once with `kill`) and drop its pipes; the next call starts a new one."""
        with self._start_lock:
            if kill and self._process is not None:
                self._process.kill()
            self._stop()

    def _started(self) -> dict:
        with self._start_lock:
            if self._closed:
                raise ChildFailed(f"{self.name} is closed")
            if not self.running:
                self._stop()  # a dead child's pipes; nothing if it never ran
                self._start()
            return self._conns

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")  # no fork: the parent has Qt and worker threads
        ends = {lane: context.Pipe() for lane in self._lanes}
        self._conns = {lane: ours for lane, (ours, _) in ends.items()}
        theirs = [child_end for _, child_end in ends.values()]
        self._process = context.Process(target=_serve, args=(theirs, self._factory, self._args, self.name),
                                        name=f"desktop-rag {self.name}", daemon=True)
        self._process.start()
        for child_end in theirs:
            child_end.close()
        first = self._conns[self._lanes[0]]
        if not first.poll(_START_TIMEOUT_S):
            self._stop()
            raise ChildFailed(f"{self.name} did not start")
        try:
            self._answer(first)  # the child's "ready", or why it could not build the object
        except ChildDied as exc:
            self._stop()
            raise ChildFailed(f"{self.name} did not start") from exc
        except Exception:
            self._stop()  # the child has returned; its pipes are closed too
            raise

    def _answer(self, conn):
        try:
            ok, value = conn.recv()
        except (EOFError, OSError) as exc:
            if self._closed:
                raise ChildFailed(f"{self.name} was closed") from exc
            raise ChildDied(f"{self.name} process stopped unexpectedly") from exc
        if ok:
            return value
        message, original = value
        if self._error is None and original is not None:
            raise original
        raise (self._error or ChildFailed)(message)

    def close(self, interrupt: bool = False) -> None:
        """End the child. A call in progress is waited for; with `interrupt` (for a child with nothing to save,
        such as a model, closed from the GUI thread when a setting changes) it is cut short instead, and its
        caller gets ChildFailed."""
        first = self._lanes[0]
        if not self._lane_locks[first].acquire(blocking=not interrupt):
            with self._start_lock:
                self._closed = True
                if self._process is not None:
                    self._process.terminate()  # the caller waiting on the pipe sees it close
                    self._process.join(10)
            return
        try:
            with self._start_lock:
                self._closed = True
                if self.running:
                    try:
                        self._conns[first].send(("close", ()))
                        self._conns[first].poll(10)
                    except OSError:
                        pass
                self._stop()
        finally:
            self._lane_locks[first].release()

    def _stop(self) -> None:
        if self._process is not None:
            self._process.join(10)
            if self._process.is_alive():
                self._process.kill()
        for conn in self._conns.values():
            conn.close()
        self._process, self._conns = None, {}


def _serve(conns, factory, args, name: str) -> None:
    _lower_priority()
    # Ctrl-C in the app's terminal reaches the whole process group: the app decides, and closes its children.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    first, others = conns[0], conns[1:]
    try:
        served = factory(*args)
    except Exception as exc:  # reported to the parent as a readable line
        first.send((False, _failure(exc, f"cannot open {name}: ")))
        return
    first.send((True, "ready"))
    for conn in others:
        threading.Thread(target=_serve_lane, args=(served, conn), daemon=True).start()
    _serve_lane(served, first)  # the process ends when the first lane closes


def _lower_priority() -> None:
    import psutil

    me = psutil.Process()
    try:
        me.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS if os.name == "nt" else max(me.nice(), _NICENESS))
    except psutil.Error:  # not allowed here: the child works as well at the app's priority
        pass


def _serve_lane(served, conn) -> None:
    while True:
        try:
            method, args = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if method == "close":
            conn.send((True, None))
            return
        try:
            conn.send((True, getattr(served, method)(*args)))
        except Exception as exc:  # the parent raises it; the child keeps serving
            conn.send((False, _failure(exc)))


def _failure(exc: Exception, prefix: str = "") -> tuple[str, Exception | None]:
    try:
        original = pickle.loads(pickle.dumps(exc))
    except Exception:  # an exception that cannot cross the pipe goes as its message alone
        original = None
    return f"{prefix}{exc.__class__.__name__}: {exc}", original
