"""One SQLite connection shared by threads, one user at a time.

The catalog's writing connection is used by the indexing run's thread and by the app's edit lane (a person saving
a context while a run goes on). sqlite3 itself keeps calls from corrupting the connection, but a transaction
belongs to the connection, not to a thread: a second thread's BEGIN inside the first one's failed with "cannot
start a transaction within a transaction" (438 of 600 tries), and its plain statements would have joined the
first thread's transaction and been rolled back with it. So every statement, and every transaction from BEGIN to
COMMIT, holds one re-entrant lock; results are read whole under it. Units of work are short (one file, one batch),
so an edit waits milliseconds, not for the run.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence


class Rows:
    """A statement's result, read while the connection was held: the parts of a cursor the catalog uses."""

    def __init__(self, cursor: sqlite3.Cursor):
        self._rows = cursor.fetchall()
        self.rowcount = cursor.rowcount
        self.lastrowid = cursor.lastrowid
        self._next = 0

    def __iter__(self):
        return iter(self._rows)

    def fetchone(self):
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list:
        rest, self._next = self._rows[self._next:], len(self._rows)
        return rest


class SerializedConnection:
    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection
        self.lock = threading.RLock()

    def execute(self, sql: str, params: Sequence = ()) -> Rows:
        with self.lock:
            return Rows(self._connection.execute(sql, params))

    @property
    def total_changes(self) -> int:
        return self._connection.total_changes

    def executemany(self, sql: str, rows) -> Rows:
        with self.lock:
            return Rows(self._connection.executemany(sql, rows))

    def blocks(self, sql: str, params: Sequence, size: int) -> Iterator[list]:
        """The result `size` rows at a time, the connection held only while a block is read: a long read (the
        keyword index's rebuild) lets other threads' units of work through between blocks."""
        with self.lock:
            cursor = self._connection.execute(sql, params)
        try:
            while True:
                with self.lock:
                    rows = cursor.fetchmany(size)
                if not rows:
                    return
                yield rows
        finally:
            cursor.close()

    def close(self) -> None:
        with self.lock:
            self._connection.close()
