"""Whether the catalog's file is whole, as SQLite itself judges it: asked by `doctor --repair` before anything
opens the library, and by the window when its service cannot start (core/damaged_catalog/rebuild.py makes a new one)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from desktop_rag.storage.catalog_access import CATALOG_FILE, read_only_uri, structure_damage


def catalog_damage(data_dir: Path) -> str | None:
    """SQLite's own word on the catalog file, read-only (catalog_access.structure_damage); None when it is whole,
    absent, or cannot be asked now (locked: not damage)."""
    path = Path(data_dir) / CATALOG_FILE
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            return structure_damage(db)
        finally:
            db.close()
    except sqlite3.OperationalError:  # locked by a writer, or cannot be opened now: not known to be damaged
        return None
