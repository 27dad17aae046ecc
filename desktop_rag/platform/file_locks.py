"""Locks on files between processes: the operating system's own (flock here, msvcrt.locking on Windows), so a
crashed process's lock goes with it."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desktop_rag.errors import DataFolderUnusable


def open_lock_file(path: Path):
    """The lock or mark file at `path`, opened to read and write (made 0600 if missing), never through a link: a
    link placed at a lock's name had its target truncated and overwritten (issue 50). A link, or anything but a
    regular file, there is refused with what to do."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise DataFolderUnusable(f"{path} is a link: desktop-rag never writes through one there (someone else may "
                                 "have put it there); remove it") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise DataFolderUnusable(f"{path} is not a regular file: remove it")
    return os.fdopen(fd, "r+", encoding="utf-8")


@contextmanager
def one_at_a_time(lock_path: Path) -> Iterator[None]:
    """Wait for, then hold, a lock that processes take for a moment: opening the embedded Chroma store creates
    its tables, and two processes opening a new data folder at once both tried ("table collections already
    exists"); two processes starting to answer for one data folder both bound its socket."""
    try:
        handle = open_lock_file(lock_path)  # closed below, after the lock
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
    handle = open_lock_file(path)  # held open: it is the mark
    try:
        lock(handle)
    except OSError:
        handle.close()
        return None
    return handle
