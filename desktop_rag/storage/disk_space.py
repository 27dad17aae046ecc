"""A full disk said as one, whatever part of the library met it. SQLite says "database or disk is full", but Chroma's
Rust core reported a filled 30 MB data folder as "InternalError: Error in compaction: Failed to apply logs to the
hnsw segment writer" (and its reads, which apply pending writes first, as "Error executing plan… backfill request
to compactor"), and numpy's save as "OSError: 689227 requested and 630752 written" (issue 61): an error met by the
vector store or the keyword index while the data folder's disk has almost no room left is that full disk."""

from __future__ import annotations

import errno
import functools
import shutil
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from desktop_rag.errors import disk_full

# Below this much free room a library's write is taken to have failed for want of it: Chroma's compaction writes
# a segment of ~2 KB a passage at once, and a disk left with less than this is full for a person's purposes.
LOW_SPACE_BYTES = 64 * 2**20

_Method = TypeVar("_Method", bound=Callable[..., Any])


def free_bytes(folder: Path) -> int | None:
    """The room left on the disk holding `folder` (or its nearest existing parent); None when it cannot be told."""
    for place in (folder, *folder.parents):
        try:
            return shutil.disk_usage(place).free
        except OSError:
            continue
    return None


def room_is_short(folder: Path) -> bool:
    free = free_bytes(folder)
    return free is not None and free < LOW_SPACE_BYTES


@contextmanager
def full_disk_said(folder: Path):
    """Within it, an error met while `folder`'s disk is (nearly) full is raised as the full disk it is
    (OSError ENOSPC, said by errors.DISK_FULL), its own words kept in the message."""
    try:
        yield
    except Exception as exc:
        if disk_full(exc) or not room_is_short(folder):
            raise
        raise OSError(errno.ENOSPC, f"No space left on device ({exc.__class__.__name__}: {exc})") from exc


def says_full_disk(folder_of: Callable[[Any], Path | None]) -> Callable[[_Method], _Method]:
    """A method decorated so (`folder_of(self)`: where it writes, None for a server's store) says a full disk."""
    def decorate(method: _Method) -> _Method:
        @functools.wraps(method)
        def said(self, *args, **kwargs):
            folder = folder_of(self)
            if folder is None:
                return method(self, *args, **kwargs)
            with full_disk_said(folder):
                return method(self, *args, **kwargs)

        return said  # type: ignore[return-value]

    return decorate
