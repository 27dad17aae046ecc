"""A reader's catalog connection (a client's, the service's searches: storage/catalog.py's `query_only`) cannot
write, makes nothing where no catalog is, and sees what the writer commits."""

from __future__ import annotations

import sqlite3

import pytest

from desktop_rag.errors import NoIndexError
from desktop_rag.storage.catalog import Catalog
from open_files import opened_for_writing


def test_a_reader_cannot_write_and_sees_what_the_writer_commits(tmp_path):
    path = tmp_path / "catalog.sqlite3"
    writer = Catalog(path)
    reader = Catalog(path, query_only=True)
    assert reader.read_only and len(opened_for_writing("self", path)) == 1  # the writer's alone
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader.add_folder("/home/ann/notes")
    writer.add_folder("/home/ann/notes")
    assert reader.folders() == ["/home/ann/notes"]
    reader.close()
    writer.close()


def test_a_reader_makes_nothing_where_no_catalog_is(tmp_path):
    path = tmp_path / "data" / "catalog.sqlite3"
    with pytest.raises(NoIndexError, match="nothing is indexed yet"):
        Catalog(path, query_only=True)
    assert not path.parent.exists()


def test_a_reader_of_a_catalog_the_service_has_not_upgraded_yet_is_told_to_try_again(tmp_path):
    from desktop_rag.errors import UserError

    path = tmp_path / "catalog.sqlite3"
    Catalog(path).close()
    older = sqlite3.connect(path)
    older.execute("PRAGMA user_version = 18")  # as a window reads it before its new service has upgraded it
    older.close()
    with pytest.raises(UserError, match="being upgraded by the background service: try again in a moment"):
        Catalog(path, query_only=True)
