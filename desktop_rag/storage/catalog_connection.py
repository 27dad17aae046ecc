"""The catalog's SQLite connection: opened for writing (WAL), for reading alone (a reader's), or, on a folder one
may only read, immutable; one transaction at a time across threads; and its writes counted by what a view shows
(storage/catalog.py's `writes`).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from desktop_rag import remedies
from desktop_rag.errors import DataFolderUnusable, NoIndexError
from desktop_rag.remedies import REBUILD_DAMAGED
from desktop_rag.storage.catalog_access import may_write, read_only_uri
from desktop_rag.storage.serialized_connection import SerializedConnection

# The keyword index is to be made anew from every text (lost, damaged, another tokenizer); a change of a chunk is
# noted otherwise (catalog_keyword_changes.py). The meta key keeps its first name, so libraries made before keep
# their state.
KEYWORD_INDEX_DIRTY = "bm25_dirty"

# What a view shows, and the tables whose rows it is made of: a write to any of them is counted (`Catalog.writes`).
WRITTEN = {"documents": ("documents", "skipped_files", "scan_problems"), "contexts": ("contexts",),
            "folders": ("folders", "upgrade_first_folders")}


def count_writes(db) -> None:
    """Triggers of this connection alone (TEMP), counting every row inserted, updated or deleted in those tables
    (one UPDATE of a one-row temp table each: ~1 µs beside the write itself)."""
    db.execute("CREATE TEMP TABLE IF NOT EXISTS written (what TEXT PRIMARY KEY, count INTEGER NOT NULL)")
    for what, tables in WRITTEN.items():
        db.execute("INSERT OR IGNORE INTO temp.written VALUES (?, 0)", (what,))
        for table in tables:
            for event in ("INSERT", "UPDATE", "DELETE"):
                db.execute(f"CREATE TEMP TRIGGER IF NOT EXISTS {table}_{event.lower()}_counted AFTER {event} ON "
                           f"main.{table} BEGIN UPDATE written SET count = count + 1 WHERE what = '{what}'; "
                           "END")


def open_connection(path: Path, read_only: bool) -> sqlite3.Connection:
    # isolation_level=None: we open transactions explicitly, so a unit of work is exactly one BEGIN..COMMIT.
    if read_only:
        if not path.exists() and may_write(path):  # a reader's, before the service made the catalog
            raise NoIndexError(f"nothing is indexed yet: {remedies.INDEX_FIRST}")
        if not path.exists():
            raise DataFolderUnusable(f"{path.parent} has no library and cannot be written: choose another data folder")
        target, uri = read_only_uri(path), True  # immutable there (catalog_access.read_only_uri)
    else:
        target, uri = str(path), False
    connection = sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=30, uri=uri)
    connection.row_factory = sqlite3.Row
    return connection


def use_wal(db: SerializedConnection) -> None:
    """Switching a new file to WAL needs it to itself, and SQLite answers "database is locked" at once instead of
    waiting (its busy timeout does not apply): another process opening the same new folder is waited for."""
    for attempt in range(200):
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == 199:
                raise
            time.sleep(0.05)


def damaged_message(path: Path, problem: object = None) -> str:
    """`problem`: what SQLite said, when no other line says it."""
    found = "" if problem is None else f" ({problem})"
    return f"the catalog {path} is damaged{found}. Your files are untouched: {REBUILD_DAMAGED}"


class Transaction:
    """BEGIN IMMEDIATE .. COMMIT, ROLLBACK on any exception (KeyboardInterrupt included), holding the connection
    for this thread throughout: another thread's statements wait instead of landing inside this transaction."""

    def __init__(self, db: SerializedConnection):
        self._db = db

    def __enter__(self):
        self._db.lock.acquire()
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._db.lock.release()
            raise
        return self._db

    def __exit__(self, exc_type, exc, tb):
        try:
            self._db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self._db.lock.release()
        return False


class CatalogConnection:
    """The one connection the catalog's parts (its table groups) read and write through, with what they share: a
    transaction, the meta table, and the mark that the keyword index must be rebuilt."""

    def __init__(self, db: SerializedConnection):
        self.db = db

    def transaction(self) -> Transaction:
        return Transaction(self.db)

    def meta(self, key: str, default: str) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def mark_keyword_index_dirty(self) -> None:
        self.set_meta(KEYWORD_INDEX_DIRTY, "1")
