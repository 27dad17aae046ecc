"""Where a library's catalog is, and whether this process may write it: a library it may not (a read-only disk, a
copy, another user's) is searched as it is, never written (issue 50)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

CATALOG_FILE = "catalog.sqlite3"  # in the data folder


class _Queried(Protocol):  # a sqlite3 connection, or the catalog's SerializedConnection around one
    def execute(self, sql: str, /) -> Iterable[tuple]: ...


def may_write(path: Path) -> bool:
    """Whether this process may write the catalog at `path` (its folder, and the file if it is there)."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:  # a data folder still to be made: where it would be
        folder = folder.parent
    return os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


def structure_damage(db: _Queried, say_what_stopped_it: bool = False) -> str | None:
    """SQLite's own check of a catalog's structure (PRAGMA quick_check: every page read, ~1 s per 200 MB): None
    when whole, else what it found (its first 20 findings, or the error that stopped it). OperationalError (locked,
    busy, cannot be read now) is raised, or said when `say_what_stopped_it`: whether that is damage is the caller's
    call."""
    try:
        found = [row[0] for row in db.execute("PRAGMA quick_check(20)")]
    except sqlite3.OperationalError as exc:
        if say_what_stopped_it:
            return str(exc)
        raise
    except sqlite3.DatabaseError as exc:  # "file is not a database", "database disk image is malformed"
        return str(exc)
    # One line: a finding is itself several ("*** in database main ***\nPage 5: …"), and a status line showing
    # the first line of the advice lost what to do (the window's test, under load).
    return None if found == ["ok"] else "; ".join(" ".join(row.split()) for row in found)


def read_only_uri(path: Path) -> str:
    """An SQLite URI opening `path` read-only (its name percent-encoded: a '#' or '?' in a folder's name is kept).
    Immutable where this process may not write it: nobody writes a folder nobody may write, and a WAL catalog read
    otherwise needs its -shm file, which cannot be made there ("unable to open database file")."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    return uri if may_write(Path(path)) else uri + "&immutable=1"


def file_damage(path: Path, shared: _Queried) -> str | None:
    """structure_damage of the catalog at `path`, what stopped it said, on a read-only connection of its own:
    PRAGMA quick_check reads every page (~1.2 s for a 250 MB catalog), and on the catalog's shared connection it
    held every search's reads that long while a service started (issue 49). `shared` is asked where no connection
    of its own opens."""
    try:
        own = sqlite3.connect(read_only_uri(path), uri=True)
    except sqlite3.Error:
        return structure_damage(shared, say_what_stopped_it=True)
    try:
        return structure_damage(own, say_what_stopped_it=True)
    finally:
        own.close()
