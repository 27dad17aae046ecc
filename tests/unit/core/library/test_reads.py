"""The window's reads in its own process (ClientReads) follow the catalog's file when it is replaced."""

from __future__ import annotations

from desktop_rag.core.library.reads import ClientReads
from desktop_rag.storage.catalog import Catalog


def _catalog_with_folder(path, folder: str) -> None:
    catalog = Catalog(path)
    try:
        catalog.add_folder(folder)
    finally:
        catalog.close()


def test_a_catalog_made_anew_is_read_not_the_one_set_aside(tmp_path):
    path = tmp_path / "catalog.sqlite3"
    _catalog_with_folder(path, "/home/someone/old")
    reads = ClientReads(path)
    try:
        assert reads.folders() == ["/home/someone/old"]
        (tmp_path / "damaged").mkdir()
        path.rename(tmp_path / "damaged" / path.name)  # as catalog_rebuild sets a damaged one aside
        assert reads.folders() == ["/home/someone/old"]  # nothing there yet: the connection in hand
        _catalog_with_folder(path, "/home/someone/new")
        assert reads.folders() == ["/home/someone/new"]
    finally:
        reads.close()
