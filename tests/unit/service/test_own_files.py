"""The service notices its own files going (issue 61: it lived on holding a deleted catalog, and wrote into a
data folder it made anew)."""

from __future__ import annotations

import shutil
import threading

import pytest

from desktop_rag.service.own_files import Gone, OwnFiles, OwnFilesWatch


@pytest.fixture
def folder(tmp_path):
    made = tmp_path / "data"
    made.mkdir()
    (made / "catalog.sqlite3").write_bytes(b"catalog")
    return made


def test_nothing_gone_while_the_files_stay_and_a_meaning_index_made_later_is_taken(folder):
    files = OwnFiles(folder)
    assert files.gone() is None
    (folder / "chroma").mkdir()  # a first run makes it
    (folder / "catalog.sqlite3").write_bytes(b"catalog, written")  # written in place: the same file
    assert files.gone() is None and files.gone() is None


def test_the_meaning_index_deleted_is_said_with_the_repair(folder):
    (folder / "chroma").mkdir()
    files = OwnFiles(folder)
    shutil.rmtree(folder / "chroma")
    gone = files.gone()
    assert gone is not None and gone.ends
    assert "meaning index" in gone.sentence and "deleted" in gone.sentence and "doctor --repair" in gone.sentence


def test_a_catalog_replaced_and_a_data_folder_deleted_are_said(folder):
    files = OwnFiles(folder)
    (folder / "catalog.new").write_bytes(b"another")
    (folder / "catalog.new").replace(folder / "catalog.sqlite3")
    gone = files.gone()
    assert gone is not None and gone.ends and "the catalog" in gone.sentence and "replaced" in gone.sentence
    files = OwnFiles(folder)
    shutil.rmtree(folder)
    folder.mkdir()  # (made anew, as the old service did; the system may give it the old folder's inode)
    said = (files.gone() or Gone("")).sentence
    assert ("the data folder" in said or "the catalog" in said) and "deleted" in said


def test_the_keyword_index_deleted_is_rebuilt_and_told_once(folder):
    (folder / "bm25").mkdir()
    files = OwnFiles(folder)
    shutil.rmtree(folder / "bm25")
    gone = files.gone()
    assert gone is not None and not gone.ends and "keyword index" in gone.sentence and "rebuilt" in gone.sentence
    assert files.gone() is None  # told once
    (folder / "bm25").mkdir()  # made again by the rebuild: taken as it is
    assert files.gone() is None


def test_the_watch_goes_on_after_a_rebuilt_index_and_tells_an_end_once(folder):
    (folder / "bm25").mkdir()
    told: list[Gone] = []
    heard = threading.Event()
    watch = OwnFilesWatch(OwnFiles(folder), lambda gone: (told.append(gone), heard.set()), every_s=0.02)
    watch.start()
    shutil.rmtree(folder / "bm25")
    assert heard.wait(5)
    heard.clear()
    shutil.rmtree(folder)
    assert heard.wait(5)
    threading.Event().wait(0.1)
    watch.stop()
    assert [gone.ends for gone in told] == [False, True]
    assert "the keyword index" in told[0].sentence and "the data folder" in told[1].sentence
