"""What a process may do with a library, light enough for a command's first moments (no numpy, no catalog): whether
it may write the library, and the name others are shown when they find the data folder held. Imported through the
search and the catalog, these took half of `desktop-rag stop`'s start beside busy processes (issue 61)."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.storage import writer_lock
from desktop_rag.storage.catalog_access import CATALOG_FILE, may_write

# The data folder's two indexes derived from the catalog, by their folders' names (the catalog's: CATALOG_FILE).
MEANING_INDEX_FOLDER = "chroma"
KEYWORD_INDEX_FOLDER = "bm25"


def library_writable(data_dir: Path) -> bool:
    """Whether this process may write the library in `data_dir`."""
    return may_write(data_dir / CATALOG_FILE)


def name_this_process(role: str) -> None:
    """What this process is ("index", "watch"…), for the message another one shows when it finds the data folder
    held (the app is "app" unless told otherwise)."""
    writer_lock.process_role = role
