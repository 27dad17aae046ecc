"""An object living in a spawned child process, its methods called over pipes: the service's heavy parts.

Some work holds Python's GIL for long stretches whatever thread it runs on: Chroma's inserts (25–250 ms each),
importing torch (its C extension's start-up alone ~200 ms) and the Python side of running a model. In the app's
process each stretch froze the window; in a child, the caller's worker thread waits on a pipe without the GIL.

A child runs at a lower CPU priority than the app (on 2 cores the models' threads — llama.cpp's most of all —
otherwise took the CPU from the GUI thread, or from the thread holding the GIL it waited for), and uses all the CPU
nobody else wants. A child has one or more lanes (a pipe each, served by its own thread in the child) so that a
short call, such as embedding a query, does not queue behind a long one, such as embedding a batch of chunks. Calls
on one lane are taken one at a time. A child that died is started again on the next call.

A caller may give up waiting for an answer (`abandon`: the language model's call was interrupted, and a child at
low priority on a busy machine can take seconds to notice): the answer is owed, and read and dropped before the
lane's next call is sent.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from desktop_rag.child_serving import serve
from desktop_rag.errors import UserError
from desktop_rag.platform import parent_watch, processes
from desktop_rag.use_clock import UseClock

_START_TIMEOUT_S = 120  # importing chromadb or torch in a fresh process takes seconds on a slow laptop
# A child that did not start is not started again for this long: each file of a run waited its own start timeout
# for a reader that could not start, and `index` seemed to hang after "the document reader did not start" (issue
# 61, at load 15-19). Meanwhile calls fail at once, as the failed start did (a run waits this long once, then
# tries again: core/indexing/outcomes.py).
START_AGAIN_AFTER_S = 30.0
_ABANDON_POLL_S = 0.05  # how often a caller that may give up looks again


class ChildFailed(UserError, RuntimeError):
    """A helper process (a model, the vector store, the reader) ended or did not answer: running the task again
    starts it anew, and finished work is kept."""


class ChildDied(ChildFailed):
    """The child ended during a call (a crash in a C library, the OS reclaiming memory)."""


class ChildTimedOut(ChildFailed):
    pass


class ChildDidNotStart(ChildFailed):
    """The child did not come up (its start timed out, or it died starting): not its own refusal."""


class ChildClosed(ChildFailed):
    """The object was closed (the app quits, a setting changed): not the fault of the work that was asked."""


class CallAbandoned(Exception):
    """The caller stopped waiting (its `abandon` said so); the child's answer will be dropped."""


class ChildObject:
    def __init__(self, factory: Callable, args: tuple = (), *, name: str, lanes: Sequence[str] = ("main",),
                 error: type[Exception] | None = ChildFailed, before_start: Callable[[], object] | None = None):
        """`factory(*args)` builds the object in the child (both must be importable by name: the child is
        spawned). `name` is what messages call it ("the vector store"). `error`: the exception a failed call
        raises with the child's one-line reason; None raises the child's own exception where it can be
        pickled (so callers can catch e.g. FileNotFoundError as they would in-process). `before_start()`: run here
        before each start (the vector store's ends an orphan holding its store)."""
        self.name = name
        self._factory, self._args = factory, args
        self._lanes = tuple(lanes)
        self._error = error
        self._before_start = before_start
        self._start_lock = threading.Lock()
        self._lane_locks = {lane: threading.Lock() for lane in self._lanes}
        self._process: BaseProcess | None = None
        self._conns: dict[str, Connection] = {}
        self._lifeline: Connection | None = None  # the one writer of the child's lifeline (parent_watch)
        self._owed: dict[str, int] = {}  # answers to abandoned calls, per lane, still to be read and dropped
        self._closed = False
        self._failed_start: float | None = None  # when a start last failed (time.monotonic)
        self.use = UseClock()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def call(self, method: str, *args, lane: str | None = None, timeout: float | None = None,
             abandon: Callable[[], bool] | None = None):
        """`timeout`: seconds after which the child is ended (it is started again for the next call) and
        ChildTimedOut raised — for work that may get stuck on bad input. `abandon()`: checked while waiting;
        when true the call raises CallAbandoned at once and the child's answer is dropped when it comes."""
        lane = lane or self._lanes[0]
        with self.use.call(), self._lane_locks[lane]:
            conn = self._sent(lane, (method, args), abandon)
            if abandon is not None or timeout is not None:
                self._wait(conn, lane, timeout, abandon)
            try:
                return self._answer(conn)
            except ChildDied:
                # A dying child's pipes close before the process can be reaped (is_alive() stays true for a
                # moment, longer on a loaded machine): forget it now, or the next call writes into its pipe.
                self._forget_child()
                raise

    def _wait(self, conn, lane: str, timeout: float | None, abandon: Callable[[], bool] | None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = _ABANDON_POLL_S if deadline is None else min(deadline - time.monotonic(),
                                                                _ABANDON_POLL_S if abandon else float("inf"))
            if conn.poll(max(left, 0)):
                return
            if deadline is not None and time.monotonic() >= deadline:
                self._forget_child(kill=True)
                raise ChildTimedOut(f"{self.name} took longer than {timeout:g} s")
            if abandon is not None and abandon():
                self._owed[lane] = self._owed.get(lane, 0) + 1
                raise CallAbandoned(f"stopped waiting for {self.name}")

    def settle(self, lane: str | None = None) -> None:
        """Read and drop the answers owed to abandoned calls on `lane` (waiting for the child to finish them)."""
        lane = lane or self._lanes[0]
        with self._lane_locks[lane]:
            self._settled(lane)

    def _settled(self, lane: str) -> None:
        while self._owed.get(lane) and self._conns:
            try:
                self._conns[lane].recv()
            except (EOFError, OSError):  # it died meanwhile: nothing more is owed by a new child
                self._forget_child()
                return
            self._owed[lane] -= 1

    def _sent(self, lane: str, message: tuple, abandon: Callable[[], bool] | None = None):
        """The lane's pipe, `message` sent on it. Between calls a lane has nothing to read — unless the child
        closed it by dying since the last call (killed while idle, out of memory): such a child is replaced
        first, so the message goes to one that will answer. `abandon`: see call (a child starting is waited for
        too)."""
        self._settled(lane)
        conn = self._started(abandon)[lane]
        if conn.poll(0):
            self._forget_child()
            conn = self._started(abandon)[lane]
        try:
            conn.send(message)
            return conn
        except OSError as exc:  # BrokenPipeError among them
            self._forget_child()
            raise ChildDied(f"{self.name} process stopped unexpectedly") from exc

    def end_if_unused(self, seconds: float) -> bool:
        """End the child if no call is in hand and none ended in the last `seconds`: its memory goes back, and the
        next call starts a new one (its state, an open file, is lost: callers that keep some open it again)."""
        return self.running and self.use.close_if_unused(seconds, lambda: self._end_politely(closed=False))

    def _forget_child(self, kill: bool = False) -> None:
        """End the child (at once with `kill`) and drop its pipes; the next call starts a new one."""
        with self._start_lock:
            if kill and self._process is not None:
                self._process.kill()
            self._stop()

    def start_soon(self) -> None:
        """Start the child now, on a thread of its own, when none runs: a call that comes meanwhile waits for this
        start rather than making its own (or gives up waiting, on its `abandon`)."""
        if not self.running and not self._closed:
            threading.Thread(target=self._start_unasked, name=f"desktop-rag {self.name} start", daemon=True).start()

    def _start_unasked(self) -> None:
        with self.use.call():  # a start is a use: not ended as unused before the call it was made for comes
            try:
                self._started()
            except ChildFailed:
                pass  # (the call it was made for meets the same failure and says it)

    def _started(self, abandon: Callable[[], bool] | None = None) -> dict:
        while not self._start_lock.acquire(timeout=_ABANDON_POLL_S):  # another thread starts it (start_soon)
            if abandon is not None and abandon():
                raise CallAbandoned(f"stopped waiting for {self.name} to start")
        with _held(self._start_lock):
            if self._closed:
                raise ChildClosed(f"{self.name} is closed")
            if not self.running:
                self._stop()  # a dead child's pipes; nothing if it never ran
                if self._failed_start is not None and time.monotonic() - self._failed_start < START_AGAIN_AFTER_S:
                    raise ChildDidNotStart(f"{self.name} did not start (it is tried again {START_AGAIN_AFTER_S:g} s "
                                           "after its last try)")
                try:
                    self._start(abandon)
                except ChildDidNotStart:  # (not a child's own refusal: a store that cannot be opened says why)
                    self._failed_start = time.monotonic()
                    raise
                self._failed_start = None
            return self._conns

    def _start(self, abandon: Callable[[], bool] | None = None) -> None:
        """The child started and its object built; `abandon()` is asked while it starts (its imports take seconds
        under load: Ctrl-C to `index` in its first seconds waited 5-8 s for the reader to start and read a file).
        An abandoned start ends the child at once (CallAbandoned): the next call starts another."""
        if self._before_start is not None:
            self._before_start()
        context = multiprocessing.get_context("spawn")  # no fork: the parent has Qt and worker threads
        ends = {lane: context.Pipe() for lane in self._lanes}
        self._conns = {lane: ours for lane, (ours, _) in ends.items()}
        theirs = [child_end for _, child_end in ends.values()]
        lifeline, self._lifeline = context.Pipe(duplex=False) if parent_watch.lifeline_arms() else (None, None)
        self._process = context.Process(target=serve, args=(theirs, lifeline, self._factory, self._args, self.name),
                                        name=f"desktop-rag {self.name}", daemon=True)
        parent_watch.children_end_with_this_process()  # (Windows: a job that ends them with this process)
        with processes.interrupts_held_for_children():
            self._process.start()
        for child_end in [*theirs, *([lifeline] if lifeline else [])]:
            child_end.close()
        first = self._conns[self._lanes[0]]
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not first.poll(max(0.0, min(_ABANDON_POLL_S if abandon else _START_TIMEOUT_S,
                                          deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                self._stop()
                raise ChildDidNotStart(f"{self.name} did not start")
            if abandon is not None and abandon():
                assert self._process is not None
                self._process.kill()
                self._stop()
                raise CallAbandoned(f"stopped waiting for {self.name} to start")
        try:
            self._answer(first)  # the child's "ready", or why it could not build the object
        except ChildDied as exc:
            self._stop()
            raise ChildDidNotStart(f"{self.name} did not start") from exc
        except Exception:
            self._stop()  # the child has returned; its pipes are closed too
            raise

    def _answer(self, conn):
        try:
            ok, value = conn.recv()
        except (EOFError, OSError) as exc:
            if self._closed:
                raise ChildClosed(f"{self.name} was closed") from exc
            raise ChildDied(f"{self.name} process stopped unexpectedly") from exc
        if ok:
            return value
        message, original = value
        if self._error is None and original is not None:
            raise original
        raise (self._error or ChildFailed)(message)

    def close(self, interrupt: bool = False) -> None:
        """End the child. A call in progress is waited for; with `interrupt` (for a child with nothing to save: a
        model, the reader; closed when the app quits or a setting changes) the child is ended at once, even while
        it starts, and callers waiting on it get ChildClosed."""
        if interrupt:
            self._closed = True
            process = self._process
            if process is not None and process.pid is not None:  # (not yet launched: its starter cleans up)
                process.terminate()  # callers waiting on a pipe, or for "ready", see it close
                process.join(2)
                if process.is_alive():
                    process.kill()
            if self._start_lock.acquire(blocking=False):  # else the starter, told it was closed, cleans up
                try:
                    self._stop()
                finally:
                    self._start_lock.release()
            return
        self._end_politely(closed=True)

    def _end_politely(self, closed: bool) -> None:
        """Ask the child to end and wait for it (its first lane's loop returns); `closed`: for good, else the next
        call starts a new one."""
        first = self._lanes[0]
        with self._lane_locks[first], self._start_lock:
            self._closed = self._closed or closed
            if self.running:
                try:
                    self._conns[first].send(("close", ()))
                    if self._conns[first].poll(10) and self._process is not None:
                        # It has answered: nothing of its work is left (Chroma's add is on disk when it returns:
                        # killed right after this answer, 5 stores of 3,000-7,000 vectors reopened whole). Its
                        # interpreter's own teardown is not waited for: at its low priority on a busy machine that
                        # took 1.3-3.2 s a child, and Quit 7-14 s (bench/first_hour.py --load 2 --quit-at 30).
                        self._process.terminate()
                except OSError:
                    pass
            self._stop()

    def _stop(self) -> None:
        if self._process is not None:
            self._process.join(10)
            if self._process.is_alive():
                self._process.kill()
        for conn in [*self._conns.values(), *([self._lifeline] if self._lifeline else [])]:
            conn.close()  # (the lifeline last: a child still alive is killed by it)
        self._process, self._conns, self._owed, self._lifeline = None, {}, {}, None


@contextmanager
def _held(lock: threading.Lock) -> Iterator[None]:
    """A lock already acquired, released when the block ends."""
    try:
        yield
    finally:
        lock.release()
