"""A catalog damaged where SQLite keeps it, for the tests of what a damaged catalog does: one table's or index's
pages overwritten (found with SQLite's dbstat table), or the file cut to its first page."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def _page_size_after_checkpoint(catalog_file: Path) -> tuple[int, sqlite3.Connection]:
    db = sqlite3.connect(catalog_file)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every committed page in the file itself
    return db.execute("PRAGMA page_size").fetchone()[0], db


def overwrite_pages_of(catalog_file: Path, name: str, filler: bytes = b"\xde\xad") -> int:
    """The pages of the table or index `name` overwritten with `filler`; returns how many."""
    size, db = _page_size_after_checkpoint(catalog_file)
    pages = [row[0] for row in db.execute("SELECT pageno FROM dbstat WHERE name = ?", (name,))]
    db.close()
    with open(catalog_file, "r+b") as damaged:
        for page in pages:
            damaged.seek((page - 1) * size)
            damaged.write(filler * (size // len(filler)))
    return len(pages)


def cut_to_first_page(catalog_file: Path) -> None:
    """The header and the schema's first page kept, nothing else."""
    size, db = _page_size_after_checkpoint(catalog_file)
    db.close()
    with open(catalog_file, "r+b") as cut:
        cut.truncate(size)
