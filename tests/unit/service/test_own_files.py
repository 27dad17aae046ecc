"""The service notices its own files going (issue 61: it lived on holding a deleted catalog, and wrote into a
data folder it made anew)."""

from __future__ import annotations

import shutil
import threading

import pytest

from desktop_rag.service.own_files import OwnFiles, OwnFilesWatch


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
    said = files.gone()
    assert said is not None and "meaning index" in said and "deleted" in said and "doctor --repair" in said


def test_a_catalog_replaced_and_a_data_folder_deleted_are_said(folder):
    files = OwnFiles(folder)
    (folder / "catalog.new").write_bytes(b"another")
    (folder / "catalog.new").replace(folder / "catalog.sqlite3")
    assert "the catalog" in (files.gone() or "") and "replaced" in (files.gone() or "")
    files = OwnFiles(folder)
    shutil.rmtree(folder)
    folder.mkdir()  # (made anew, as the old service did; the system may give it the old folder's inode)
    said = files.gone() or ""
    assert ("the data folder" in said or "the catalog" in said) and "deleted" in said


def test_the_watch_tells_once(folder):
    told: list[str] = []
    heard = threading.Event()
    watch = OwnFilesWatch(OwnFiles(folder), lambda said: (told.append(said), heard.set()), every_s=0.02)
    watch.start()
    shutil.rmtree(folder)
    assert heard.wait(5)
    threading.Event().wait(0.1)
    watch.stop()
    assert len(told) == 1 and "the data folder" in told[0]
