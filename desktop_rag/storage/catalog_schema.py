"""The catalog's schema: numbered migrations (storage/migrations/NNNN_name.sql), each applied once in its own
transaction and recorded in SQLite's user_version. A catalog written by a newer version is refused untouched (its
tables may mean what this version does not know: writing could lose data); one on a folder nobody may write is
read as it is, if it needs no migration."""

from __future__ import annotations

import sqlite3
from importlib import resources
from pathlib import Path

from desktop_rag.errors import DataFolderUnusable, UserError
from desktop_rag.storage.catalog_access import may_write
from desktop_rag.storage.catalog_connection import CatalogConnection


def migrations() -> list[tuple[int, str]]:
    folder = resources.files("desktop_rag.storage") / "migrations"
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            found.append((int(entry.name.split("_", 1)[0]), entry.read_text(encoding="utf-8")))
    return sorted(found)


def migrate(connection: CatalogConnection, path: Path, read_only: bool) -> None:
    db = connection.db
    current = db.execute("PRAGMA user_version").fetchone()[0]
    newest = migrations()[-1][0]
    if current > newest:
        raise DataFolderUnusable(f"the catalog {path} was written by a newer version of desktop-rag "
                                 f"(schema {current}; this version knows up to {newest}): open it with that "
                                 "version, or update this one")
    if read_only:
        if current < newest and may_write(path):  # a reader's connection: the writer upgrades it as it starts
            raise UserError(f"the catalog {path} is being upgraded by the background service: try again in a moment")
        if current < newest:
            raise DataFolderUnusable(f"the catalog {path} was made by an older version and must be "
                                     "upgraded, but its folder cannot be written: open it where it can be")
        return
    for number, sql in migrations():
        if number <= current:
            continue
        with connection.transaction():
            # Asked again inside the transaction: two processes opening a new data folder at once both saw
            # version 0, and the second, once let in, created the tables again ("table folders already exists").
            if db.execute("PRAGMA user_version").fetchone()[0] >= number:
                continue
            _run_script(db, sql)
            db.execute(f"PRAGMA user_version = {number}")


def _run_script(db, sql: str) -> None:
    # executescript() would COMMIT first and break the migration's atomicity; run statement by statement.
    statement = ""
    for line in sql.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""
    if statement.strip() and not all(line.strip().startswith("--") or not line.strip()
                                    for line in statement.splitlines()):
        raise ValueError(f"incomplete SQL statement in a migration: {statement[:80]!r}")
