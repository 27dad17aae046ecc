"""Locks on files between processes: the operating system's own (flock here, msvcrt.locking on Windows), so a
crashed process's lock goes with it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def one_at_a_time(lock_path: Path) -> Iterator[None]:
    """Wait for, then hold, a lock that processes take for a moment: opening the embedded Chroma store creates
    its tables, and two processes opening a new data folder at once both tried ("table collections already
    exists"); two processes starting to answer for one data folder both bound its socket."""
    try:
        handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 — closed below, after the lock
    except OSError:  # a data folder one may only read: nobody creates tables in it either
        yield
        return
    with handle:
        lock(handle, wait=True)
        try:
            yield
        finally:
            unlock(handle)


if sys.platform == "win32":  # (sys.platform: what type checkers follow)
    import msvcrt

    def lock(handle, wait: bool = False) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)

    def unlock(handle) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def lock(handle, wait: bool = False) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)

    def unlock(handle) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def hold_mark(path: Path):
    """A mark a process holds for its whole life (the one service, window or tray of a data folder): the file at
    `path` opened and locked, returned to be kept open; None when another process holds it. A lock, not a file's
    presence: a process that crashed leaves nothing held."""
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 — held open: it is the mark
    try:
        lock(handle)
    except OSError:
        handle.close()
        return None
    return handle
