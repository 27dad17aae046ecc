"""A damaged catalog rebuilt from the person's folders (issue 50, 6): `doctor --repair` when SQLite finds the
catalog's file damaged (its header, or pages inside it). The catalog is the source of truth, so nothing derived
from it can mend it; the files it describes can. What costs something and can still be read of it — the folders,
a person's edited contexts and the model's contexts (storage/catalog_salvage.py) — is carried into a new catalog;
the damaged file is kept aside, untouched, and both indexes, derived from it, are dropped. The folders are then
read again by the next run (the service's catch-up at its start), and each salvaged context goes back to the
passage with the same text in the same file."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from desktop_rag.core.library.access import KEYWORD_INDEX_FOLDER, MEANING_INDEX_FOLDER
from desktop_rag.errors import DataFolderBusy
from desktop_rag.storage import writer_lock
from desktop_rag.storage.catalog import Catalog
from desktop_rag.storage.catalog_access import CATALOG_FILE
from desktop_rag.storage.catalog_salvage import salvage

DAMAGED_FOLDER = "damaged"  # in the data folder: each damaged catalog in a folder named by when it was set aside
_DERIVED = (MEANING_INDEX_FOLDER, KEYWORD_INDEX_FOLDER)  # the local indexes, built from the catalog: dropped with it


@dataclass
class Rebuilt:
    kept_at: Path  # the damaged catalog, moved here
    folders: list[str] = field(default_factory=list)
    hand_edited: int = 0
    by_the_model: int = 0
    unreadable: list[str] = field(default_factory=list)

    def sentences(self) -> list[str]:
        said = [f"the damaged catalog is kept at {self.kept_at} (untouched: sqlite3's .recover may read more of it)"]
        if self.folders:
            contexts = f"{self.hand_edited:,} hand-edited and {self.by_the_model:,} LLM contexts"
            said.append(f"read from it: {len(self.folders)} folders and {contexts}, given back to their passages "
                        "as the folders are read again")
        else:
            said.append("no folder could be read from it: add your folders again to index them")
        if self.unreadable:
            said.append(f"not readable: {'; '.join(self.unreadable)}")
        return said


def _empty_the_chroma_server(data_dir: Path) -> None:
    """A library whose vectors live in a Chroma server: its collection emptied too. The new catalog numbers its
    passages from 1 again, and an old vector under a number given anew would be found for another passage."""
    from desktop_rag.config import Settings
    from desktop_rag.storage.vector_store import VectorStore

    server = Settings.load(data_dir).chroma_server
    if server:
        store = VectorStore(data_dir / MEANING_INDEX_FOLDER, server=server)
        try:
            store.reset()
        finally:
            store.close()


def rebuild_damaged_catalog(data_dir: Path) -> Rebuilt:
    """Move the damaged catalog aside, carry what can be read of it into a new one, drop the derived indexes.
    Holds the data folder's writer lock throughout (DataFolderBusy when another process writes to it)."""
    data_dir = Path(data_dir)
    key = writer_lock.acquire(data_dir)
    try:
        aside = data_dir / DAMAGED_FOLDER / time.strftime("%Y%m%d-%H%M%S")
        aside.mkdir(parents=True, mode=0o700)
        for suffix in ("", "-wal", "-shm"):  # the write-ahead log holds committed pages: it goes with the file
            part = data_dir / (CATALOG_FILE + suffix)
            if part.exists():
                part.rename(aside / part.name)
        for derived in _DERIVED:
            shutil.rmtree(data_dir / derived, ignore_errors=True)
        _empty_the_chroma_server(data_dir)
        found = salvage(aside / CATALOG_FILE)
        catalog = Catalog(data_dir / CATALOG_FILE)
        try:
            for folder in found.folders:
                catalog.add_folder(folder)
            catalog.contexts.keep_salvaged(found.contexts)
        finally:
            catalog.close()
    finally:
        writer_lock.release(key)
    return Rebuilt(aside, found.folders, found.count("manual"), found.count("llm"), found.unreadable)


def rebuild_if_damaged(data_dir: Path, wait_s: float) -> tuple[str, Rebuilt] | None:
    """(what SQLite found, what was rebuilt) when the catalog is damaged; None when it is whole. Judged holding the
    data folder's lock, waited for up to `wait_s` (DataFolderBusy past it): the window's "Rebuild from my folders"
    starts a service while the last one that met the damage may still be ending, and its lock made the rebuild
    fail, or SQLite's made the check answer "not known to be damaged" (the window's test in CI, 1 run in 2)."""
    from desktop_rag.core.damaged_catalog.health import catalog_damage

    deadline = time.monotonic() + wait_s
    while True:
        try:
            key = writer_lock.acquire(data_dir)
            break
        except DataFolderBusy:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)
    try:
        damage = catalog_damage(data_dir)
        # (the lock taken again inside: this process holds it already)
        return (damage, rebuild_damaged_catalog(data_dir)) if damage else None
    finally:
        writer_lock.release(key)
