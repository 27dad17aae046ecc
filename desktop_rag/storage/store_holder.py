"""One process at a time has the meaning index open for writing: the service's vector-store child holds a mark
for as long as it has the store, and a new one refuses to open the store while another holds it.

A child ends within a quarter of a second of its service (platform/parent_watch.py), but killed and started again
at once, the old vector store still held Chroma's index files open for writing 2-3 s while the new service
answered: two processes writing one library (issue 61). Now the service, before it starts its vector store, ends
a holder whose service has gone (an orphan: its parent is no longer the one it wrote down; the same user's
desktop-rag helper) once it has had its seconds to go by itself; and the new child waits for the mark, and names
a holder that keeps it in a sentence instead of opening the store."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from desktop_rag.errors import UserError
from desktop_rag.platform.file_locks import hold_mark

log = logging.getLogger(__name__)

HOLDER_FILE = "chroma.held"  # in the data folder: "<holder's pid> <its parent's pid>"
LET_GO_WAIT_S = 3.0  # an orphan ends within ~0.3 s of its service (more on a loaded machine), and then lets go
ENDED_WAIT_S = 2.0  # for an orphan ended here to go


class StoreHeld(UserError):
    """Another process has the meaning index open, and it could not be ended."""


def end_an_orphan_holding_the_store(data_dir: Path, let_go_wait_s: float = LET_GO_WAIT_S) -> int | None:
    """In the service, before it starts its vector store: a holder of the store whose service has gone is given
    `let_go_wait_s` to end by itself, then ended (and logged). The pid ended, or None."""
    path = data_dir / HOLDER_FILE
    try:
        handle = _taken(path, 0, write=False)
    except OSError:  # a data folder that cannot be written: no store is written there either
        return None
    if handle is not None:
        handle.close()  # nobody holds it: the child takes it
        return None
    holder, its_parent = _holder(path)
    if holder is None or not _orphan(holder, its_parent):
        return None  # the child waits for it, and says who holds it
    handle = _taken(path, let_go_wait_s, write=False)
    if handle is not None:
        handle.close()
        return None
    if not _ended(holder):
        return None
    log.warning("process %s, a vector store left by a service that has gone, still held the meaning index: "
                "ended", holder)
    return holder


def hold_the_store(data_dir: Path, let_go_wait_s: float = LET_GO_WAIT_S):
    """The holder's mark of the store in `data_dir`, to keep while the store is open (closed, it lets go). Raises
    StoreHeld when another process keeps it longer than `let_go_wait_s`. None where the data folder cannot be
    written (no store is written there either)."""
    path = data_dir / HOLDER_FILE
    try:
        handle = _taken(path, let_go_wait_s)
    except OSError:
        return None
    if handle is not None:
        return handle
    holder, _ = _holder(path)
    who = f"process {holder}" if holder is not None else "another process"
    raise StoreHeld(f"the meaning index ({data_dir / 'chroma'}) is still open in {who}, which is not this "
                    "service's: end that process, then start desktop-rag again")


def _taken(path: Path, wait_s: float, write: bool = True):
    deadline = time.monotonic() + wait_s
    while True:
        handle = hold_mark(path)
        if handle is not None and write:
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()} {os.getppid()}")
            handle.flush()
        if handle is not None:
            return handle
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)


def _holder(path: Path) -> tuple[int | None, int | None]:
    try:
        words = path.read_text(encoding="utf-8").split()
        return int(words[0]), int(words[1])
    except (OSError, ValueError, IndexError):
        return None, None


def _orphan(holder: int, its_parent: int | None) -> bool:
    """`holder` lives, is this user's, and its service has gone (it was handed to another parent)."""
    import psutil

    try:
        process = psutil.Process(holder)
        if process.uids().real != os.getuid():
            return False
        return its_parent is None or not psutil.pid_exists(its_parent) or process.ppid() != its_parent
    except (psutil.Error, AttributeError):  # gone (the child takes the mark), or no uids (Windows: its job ends
        return False                        # the orphans)


def _ended(holder: int) -> bool:
    import psutil

    try:
        process = psutil.Process(holder)
        process.kill()
        process.wait(ENDED_WAIT_S)
    except psutil.TimeoutExpired:  # not reaped yet by whoever owns it now; its files are let go of all the same
        pass
    except psutil.NoSuchProcess:
        pass
    except psutil.Error:
        return False
    return True
