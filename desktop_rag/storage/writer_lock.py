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
from pathlib import Path

from desktop_rag.errors import DataFolderBusy
from desktop_rag.platform.file_locks import lock as _lock
from desktop_rag.platform.file_locks import open_lock_file
from desktop_rag.platform.file_locks import unlock as _unlock

LOCK_FILE = "writer.lock"

process_role = "app"  # what this process is, for the message another one shows; the CLI sets its command
_held: dict[Path, list] = {}  # lock path → [open file, number of libraries holding it]
_guard = threading.Lock()


def acquire(data_dir: Path) -> Path:
    """Claim the folder for this process (again, if it already holds it). Raises DataFolderBusy with who holds
    it otherwise. Returns the key to release with."""
    path = Path(data_dir).resolve() / LOCK_FILE  # (the folder's link followed, never the lock's: open_lock_file)
    with _guard:
        if path in _held:
            _held[path][1] += 1
            return path
        handle = open_lock_file(path)  # held open: it is the lock
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
