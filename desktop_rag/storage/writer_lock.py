"""One process at a time writes to a data folder.

The embedded Chroma store keeps its vector index in the memory of the process that opened it and writes it back
from there: a second process writing to the same folder (the app and a `desktop-rag watch` or `index` at once)
would overwrite the first one's vectors. Within one process every Library shares Chroma's client, so the lock
is per process, shared by all its libraries and held until the last one closes. A crashed process's lock goes
with it (the operating system releases it), so there is nothing stale to clean up.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path

from desktop_rag.errors import DataFolderBusy

LOCK_FILE = "writer.lock"




process_role = "app"  # what this process is, for the message another one shows; the CLI sets its command
_held: dict[Path, list] = {}  # lock path → [open file, number of libraries holding it]
_guard = threading.Lock()


def acquire(data_dir: Path) -> Path:
    """Claim the folder for this process (again, if it already holds it). Raises DataFolderBusy with who holds
    it otherwise. Returns the key to release with."""
    path = (Path(data_dir) / LOCK_FILE).resolve()
    with _guard:
        if path in _held:
            _held[path][1] += 1
            return path
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 — held open: it is the lock
        try:
            _lock(handle)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another desktop-rag process"
            handle.close()
            raise DataFolderBusy(
                f"{holder} is writing to this data folder ({path.parent}); close it first, or use it to make "
                "this change (searching works meanwhile)"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"desktop-rag {process_role} (process {os.getpid()})")
        handle.flush()
        _held[path] = [handle, 1]
        return path


@contextmanager
def one_at_a_time(lock_path: Path):
    """Wait for, then hold, a lock that processes take for a moment: opening the embedded Chroma store creates
    its tables, and two processes opening a new data folder at once both tried ("table collections already
    exists")."""
    try:
        handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 — closed below, after the lock
    except OSError:  # a data folder one may only read: nobody creates tables in it either
        yield
        return
    with handle:
        _lock(handle, wait=True)
        try:
            yield
        finally:
            _unlock(handle)


def release(path: Path) -> None:
    with _guard:
        entry = _held.get(path)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            _unlock(entry[0])
            entry[0].close()
            del _held[path]


if os.name == "nt":
    import msvcrt

    def _lock(handle, wait: bool = False) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)

    def _unlock(handle) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _lock(handle, wait: bool = False) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(handle) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
