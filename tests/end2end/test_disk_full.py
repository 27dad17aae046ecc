"""A full disk stops a run with a message a person can act on — never an internal error — and loses nothing: the
checkup finds the library consistent, and the next run, with room again, finishes what was left and redoes
nothing finished. On a real small disk (a tmpfs, where this user may mount one) through the CLI, and with the
fault injected into the catalog's writes in-process (everywhere)."""

from __future__ import annotations

import json
import sqlite3
import subprocess

import pytest

from cli_runner import cli, cli_json
from desktop_rag.errors import DISK_FULL, user_message
from desktop_rag.storage.catalog import Catalog
from test_resume import counts, make_notes


def mount_tmpfs(folder, size: str) -> bool:
    folder.mkdir(exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(folder)],
                             capture_output=True)
    return mounted.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    disk = tmp_path / "small-disk"
    if not mount_tmpfs(disk, "2m"):
        pytest.skip("mounting a tmpfs is not allowed here (the in-process fault test covers the same path)")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def assert_doctor_clean(data_dir, work_left_allowed: bool = False):
    """Nothing damaged; `work_left_allowed`: what a run cut short leaves for the next one (passages to embed, the
    keyword index to build) may be found, and nothing else (issue 50: the doctor says what waits)."""
    report = json.loads(cli(data_dir, "doctor", "--json", check=False).stdout)
    left_work = ("wait to be made searchable by meaning", "the keyword index is missing")
    assert [f for f in report["found"] if not (work_left_allowed and any(w in f for w in left_work))] == [], report


def test_a_run_that_fills_a_small_disk_stops_clearly_and_the_next_one_finishes(small_disk, docs):
    make_notes(docs, 300)
    data_dir = small_disk / "data"
    full = cli(data_dir, "index", str(docs), "--contexts", "rules", check=False)
    assert full.returncode == 1 and DISK_FULL in full.stderr, full.stderr[-2000:]
    assert "internal error" not in full.stderr and "Traceback" not in full.stderr
    done_before = counts(data_dir)

    subprocess.run(["mount", "-o", "remount,size=256m", str(small_disk)], check=True)  # room again
    assert_doctor_clean(data_dir, work_left_allowed=True)
    summary = cli_json(data_dir, "index", str(docs), "--contexts", "rules", "--json")
    assert summary["failed"] == [] and summary["indexed"] == 300 - done_before[0]  # nothing finished redone
    assert summary["unchanged"] == done_before[0]
    assert_doctor_clean(data_dir)
    for i in (0, 150, 299):
        found = cli_json(data_dir, "search", f"omega{i}", "-k", "1", "--json", "--local")["results"]
        assert found[0]["path"].endswith(f"note{i:04d}.md")


def test_a_full_disk_met_by_the_catalog_mid_run_loses_nothing(make_library, docs, monkeypatch):
    make_notes(docs, 40)
    library = make_library()
    saved = {"documents": 0}
    real_save = Catalog.save_document

    def save_until_the_disk_fills(self, *args, **kwargs):  # the fault: SQLite's SQLITE_FULL on the 25th file
        saved["documents"] += 1
        if saved["documents"] == 25:
            raise sqlite3.OperationalError("database or disk is full")
        return real_save(self, *args, **kwargs)

    monkeypatch.setattr(Catalog, "save_document", save_until_the_disk_fills)
    with pytest.raises(sqlite3.OperationalError) as stopped:
        library.index([docs], contexts="rules")
    assert user_message(stopped.value) == DISK_FULL
    monkeypatch.setattr(Catalog, "save_document", real_save)

    summary = library.index([docs], contexts="rules")
    assert summary.failed == [] and summary.indexed == 16 and summary.unchanged == 24
    from desktop_rag.core.library import doctor

    assert doctor.examine(library).findings() == []
    assert library.search("omega39", k=1).hits[0].path.endswith("note0039.md")


def test_chromas_own_words_for_a_full_disk_are_said_as_one_and_reads_go_on(make_library, docs, monkeypatch):
    """Issue 61: a filled 30 MB data folder ended a run with "InternalError: Error in compaction: Failed to apply
    logs to the hnsw segment writer" (Chroma's Rust core, which does not say why). The fault injected: Chroma's
    upsert raising those words while the disk (as free_bytes tells it) has no room — the real store otherwise."""
    from chromadb.api.models.Collection import Collection

    from desktop_rag.storage import disk_space

    make_notes(docs, 12)
    library = make_library()
    real_upsert = Collection.upsert
    room = {"free": 10 * 2**30}

    def upsert_on_a_full_disk(self, *args, **kwargs):
        if room["free"] < disk_space.LOW_SPACE_BYTES:
            raise RuntimeError("Error in compaction: Failed to apply logs to the hnsw segment writer")
        return real_upsert(self, *args, **kwargs)

    monkeypatch.setattr(Collection, "upsert", upsert_on_a_full_disk)
    monkeypatch.setattr(disk_space, "free_bytes", lambda folder: room["free"])
    library.index([docs], contexts="rules")  # room enough: the store works as it is
    make_notes(docs, 20)
    room["free"] = 3 * 2**20  # the disk fills
    with pytest.raises(OSError) as stopped:
        library.index([docs], contexts="rules")
    assert user_message(stopped.value) == DISK_FULL and "hnsw segment writer" in str(stopped.value)
    assert library.search("omega3", k=1, mode="bm25").hits[0].path.endswith("note0003.md")  # reads go on
    assert library.stats()["documents"]["indexed"] >= 12

    room["free"] = 10 * 2**30  # space freed: the next run finishes
    summary = library.index([docs], contexts="rules")
    assert summary.failed == [] and summary.unchanged + summary.indexed == 20
    assert library.search("omega17", k=1).hits[0].path.endswith("note0017.md")


def test_an_error_with_room_on_the_disk_stays_what_it_is(tmp_path, monkeypatch):
    from desktop_rag.storage import disk_space

    monkeypatch.setattr(disk_space, "free_bytes", lambda folder: 10 * 2**30)
    with pytest.raises(RuntimeError, match="a bug"), disk_space.full_disk_said(tmp_path):
        raise RuntimeError("a bug")
    monkeypatch.setattr(disk_space, "free_bytes", lambda folder: 2**20)
    with pytest.raises(OSError) as said, disk_space.full_disk_said(tmp_path):
        raise RuntimeError("Error executing plan: backfill request to compactor")
    assert user_message(said.value) == DISK_FULL
