"""What a person sees when something goes wrong, in one place for the CLI, the app and the agents' server.

A `UserError` is something a person can act on: its message says what happened and what to do, and it is shown as
it is, without a traceback. Operating-system errors a person can fix (a full disk, a permission, a missing path)
are put into words by `user_message`. Anything else is a bug: it is logged with its traceback and shown as an
internal error.
"""

from __future__ import annotations

import errno
import sqlite3

from desktop_rag.remedies import REBUILD_DAMAGED



class UserError(Exception):
    """Something a person can act on; the message says what to do, after `what` (what it is about)."""

    what = ""


class BadInput(UserError, ValueError):
    """An argument, a query, a setting's value or an input file that cannot be used as given."""


class NoIndexError(UserError):
    """Search was asked of a library that has nothing indexed yet."""


class DataFolderBusy(UserError):
    """Another process writes to this data folder."""


class DataFolderUnusable(UserError):
    """The data folder cannot hold a library: it is a file, or it cannot be written where writing is needed."""


class ChunkGone(UserError, KeyError):
    """A chunk a person or an agent names is no longer in the library (its file changed or went meanwhile)."""

    def __init__(self, chunk_id: int):
        super().__init__(f"passage {chunk_id} is no longer in the library: its file was changed or removed since; "
                         "search again")

    def __str__(self) -> str:  # KeyError's own would show the sentence in quotes
        return str(self.args[0])


class CatalogDamaged(UserError):
    """The catalog's file is not a database, or SQLite found it damaged."""


class IndexDamaged(UserError):
    """A search index disagrees with the catalog in a way only a rebuild mends."""


def as_sentence(message: str) -> str:
    """A message that begins a line: its first letter a capital."""
    return message[:1].upper() + message[1:]


def user_message(exc: BaseException) -> str | None:
    """A sentence for a person, or None when the exception is a bug."""
    if isinstance(exc, UserError):
        return exc.what + (str(exc).strip() or exc.__class__.__name__)
    if disk_full(exc):
        return DISK_FULL
    if isinstance(exc, sqlite3.DatabaseError) and any(words in str(exc).lower() for words in _DAMAGED_WORDS):
        return f"The catalog is damaged ({exc}). Your files are untouched: {REBUILD_DAMAGED}"
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return f"Permission denied{where}. Check that you may read (or write) it."
        if isinstance(exc, FileNotFoundError):
            return f"Not found{where}."
        if isinstance(exc, (IsADirectoryError, NotADirectoryError)):
            return f"{exc.strerror}{where}."
    return None


# How SQLite says a catalog's pages are damaged: read by a process that did not open it (the window's reads).
_DAMAGED_WORDS = ("database disk image is malformed", "file is not a database")
DISK_FULL = ("The disk is full. Free some space, or move the data folder to a bigger disk (--data-dir, or File → "
             "Data folder in the app), then run the task again; finished work is kept.")
# How a full disk (or a user's quota) reads when it comes from SQLite (SQLITE_FULL) or from Chroma's Rust core,
# which reports its own SQLite's and the file system's errors as text.
_DISK_FULL_WORDS = ("database or disk is full", "no space left on device", "disk quota exceeded")


def disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    return any(words in text for words in _DISK_FULL_WORDS)
