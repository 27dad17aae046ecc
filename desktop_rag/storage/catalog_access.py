"""Where a library's catalog is, and whether this process may write it: a library it may not (a read-only disk, a
copy, another user's) is searched as it is, never written (issue 50)."""

from __future__ import annotations

import os
from pathlib import Path

CATALOG_FILE = "catalog.sqlite3"  # in the data folder


def may_write(path: Path) -> bool:
    """Whether this process may write the catalog at `path` (its folder, and the file if it is there)."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:  # a data folder still to be made: where it would be
        folder = folder.parent
    return os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))
