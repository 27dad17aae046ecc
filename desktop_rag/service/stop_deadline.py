"""A stop that keeps its word whatever the process is doing: the service promises to be gone within 2 s of a stop
(the tray's Quit, `desktop-rag stop`), and a step that does not notice it — a library call that takes seconds, a
child process starting under load — must not make that a promise of minutes (issue 60: Quit took over 3 minutes
while the service went on with its work, and every window opened meanwhile closed again at once).

What the process finished is already kept when the deadline passes: each unit of work is committed on its own and
a killed run resumes without redoing it (tests/end2end/test_kill.py kills runs at 13 points). So an overdue stop
ends the process the way a kill would, only more politely: what was still running is written to the log (to find
the slow step), the endpoint goes so that clients see the service gone, the children end, and the process exits."""

from __future__ import annotations

import faulthandler
import logging
import os
import sys
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

# The README's promise is 2 s from the click; the stop request reaches the service in milliseconds and the last
# 0.5 s goes to letting the endpoint, the children and the log go.
STOP_DEADLINE_S = 1.5


class StopDeadline:
    """Armed by a stop; `ended()` once the process has finished its own way. If that has not happened within
    `deadline_s`, `overdue()` runs on the deadline's thread: by default the process ends (end_now); its owner
    names what to let go of first once it has made it."""

    def __init__(self, deadline_s: float = STOP_DEADLINE_S):
        self.deadline_s = deadline_s
        self.overdue: Callable[[], None] = lambda: end_now([])
        self._ended = threading.Event()
        self._armed = False
        self._lock = threading.Lock()

    def arm(self) -> None:
        """A stop was asked (once is enough: a second stop keeps the first one's deadline)."""
        with self._lock:
            if self._armed:
                return
            self._armed = True
        threading.Thread(target=self._watch, name="desktop-rag stop deadline", daemon=True).start()

    def ended(self) -> None:
        self._ended.set()

    def _watch(self) -> None:
        if self._ended.wait(self.deadline_s):
            return
        log.warning("asked to stop, the step in hand had not ended after %.1f s: ending without it (what it "
                    "finished is kept; the next start does the rest). The threads were at:\n%s",
                    self.deadline_s, threads_now())
        self.overdue()


def threads_now() -> str:
    """Every thread's stack, as the log shows it (faulthandler writes to a file descriptor, not a string)."""
    read_end, write_end = os.pipe()
    try:
        faulthandler.dump_traceback(file=write_end, all_threads=True)
    finally:
        os.close(write_end)
    with os.fdopen(read_end, "rb") as dumped:
        return dumped.read(64_000).decode("utf-8", "replace")


def end_now(let_go: list[Callable[[], None]], let_go_s: float = 0.4) -> None:
    """End this process: each of `let_go` (the endpoint, the children) is given `let_go_s` together, then the
    process exits with 0 (it stopped as asked). Nothing here waits on a lock the stuck step may hold."""
    threads = [threading.Thread(target=_quietly, args=(step,), daemon=True) for step in let_go]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(let_go_s)
    logging.shutdown()
    sys.stderr.flush()
    os._exit(0)


def _quietly(step: Callable[[], None]) -> None:
    try:
        step()
    except Exception:  # the process is ending: whatever fails here changes nothing of what is kept
        log.debug("letting go failed", exc_info=True)
