"""Whether the catalog's file is whole, as SQLite itself judges it: asked by `doctor --repair` before anything
opens the library, and by the window when its service cannot start (core/catalog_rebuild.py makes a new one)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from desktop_rag.storage.catalog_access import CATALOG_FILE


def catalog_damage(data_dir: Path) -> str | None:
    """SQLite's own word on the catalog file, read-only (PRAGMA quick_check: ~1 s per 200 MB); None when it is
    whole, absent, or cannot be asked now (locked: not damage)."""
    path = Path(data_dir) / CATALOG_FILE
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            found = [row[0] for row in db.execute("PRAGMA quick_check(20)")]
        finally:
            db.close()
    except sqlite3.OperationalError:
        return None
    except sqlite3.DatabaseError as exc:  # "file is not a database", "database disk image is malformed"
        return str(exc)
    return None if found == ["ok"] else "; ".join(found)
