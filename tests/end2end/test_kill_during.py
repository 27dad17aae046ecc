"""SIGKILL in the middle of three things a person's day holds: OCR of a long scan, a hand edit made while a run
indexes, and `watch` taking a burst of 2,000 new files. After each kill `doctor` finds the library consistent,
nothing stored is lost (recognised pages, the edit, catalogued files), and the next run redoes nothing finished.
Kills are placed by watching the catalog (read-only), not by timers."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from cli_runner import cli, cli_json
from documents import LEASE, write_scanned_pdf
from test_kill import assert_doctor_clean, run_until
from test_resume import counts, make_notes


def catalog_rows(data_dir, query: str) -> list[tuple]:
    path = data_dir / "catalog.sqlite3"
    if not path.exists():
        return []
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute(query).fetchall()
    except sqlite3.OperationalError:  # the catalog is still being created
        return []
    finally:
        db.close()


def ocr_pages(data_dir) -> dict[int, float]:
    """Recognised pages as the catalog keeps them: {page: when it was recognised}."""
    return dict(catalog_rows(data_dir, "SELECT page, created_at FROM ocr_pages"))


PAGE_WORDS = ["marigold", "juniper", "lantern", "harbour", "violet", "thunder"]  # one on each page


def test_a_kill_during_the_ocr_of_a_long_scan_keeps_the_pages_read(docs, data_dir):
    pages = [(f"Annex {word.title()}. " + LEASE, False) for word in PAGE_WORDS]
    write_scanned_pdf(docs / "lease.pdf", pages)
    make_notes(docs, 3)
    index = ["index", str(docs), "--contexts", "rules"]
    assert run_until(data_dir, index, lambda before, gens: len(ocr_pages(data_dir)) >= 2)
    read_before = ocr_pages(data_dir)
    assert 2 <= len(read_before) < 6, read_before
    assert_doctor_clean(data_dir, "during OCR")

    summary = cli_json(data_dir, *index, "--json")
    assert summary["failed"] == []
    read_after = ocr_pages(data_dir)
    assert sorted(read_after) == [1, 2, 3, 4, 5, 6]
    assert {page: read_after[page] for page in read_before} == read_before  # those pages were not read again
    assert_doctor_clean(data_dir, "after the next run")
    for page, word in enumerate(PAGE_WORDS, start=1):
        hit = cli_json(data_dir, "search", word, "-k", "1", "--json", "--local", "--mode", "bm25")["results"][0]
        assert hit["path"].endswith("lease.pdf") and hit["page"] == page, (word, hit["text"])


# A person editing contexts in the app while it indexes: the run on a worker thread, the edits on the window's.
EDITING_WHILE_INDEXING = textwrap.dedent("""
    import sys, threading, time
    from pathlib import Path
    from desktop_rag.core.library.library import Library

    data_dir, more, chunks = Path(sys.argv[1]), Path(sys.argv[2]), [int(c) for c in sys.argv[3:]]
    library = Library(data_dir)
    run = threading.Thread(target=lambda: library.index([more], contexts="rules"))
    run.start()
    while library.stats()["documents"]["indexed"] < 25:
        time.sleep(0.01)
    for n, chunk_id in enumerate(chunks):
        library.edits.set_context(chunk_id, f"Hand written note zebra{n} about chunk {chunk_id}")
        print(f"edited {chunk_id}", flush=True)
        time.sleep(0.5)  # a person's pace
    run.join()
""")


def test_a_kill_while_a_hand_edit_races_an_index_run_loses_neither(tmp_path, docs, data_dir):
    make_notes(docs, 20)
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    more = tmp_path / "more"
    more.mkdir()
    for i in range(300):
        (more / f"extra{i:04d}.md").write_text(f"# Extra {i}\n\n" + " ".join(f"delta{i} extra words" for _ in range(20)))
    chunks = [str(row[0]) for row in catalog_rows(data_dir, "SELECT id FROM chunks ORDER BY id LIMIT 5")]
    process = subprocess.Popen([sys.executable, "-c", EDITING_WHILE_INDEXING, str(data_dir), str(more), *chunks],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    edited = []
    for line in process.stdout:
        edited.append(int(line.split()[1]))
        if len(edited) == 3:
            process.send_signal(signal.SIGKILL)  # the run in progress, the third edit just stored
            break
    process.wait(timeout=60)
    assert len(edited) == 3, process.stderr.read()[-2000:]
    documents_before, chunks_before, embedded_before = counts(data_dir)
    assert documents_before >= 25 and embedded_before < chunks_before  # killed before the run ended
    assert_doctor_clean(data_dir, "with hand edits and a run cut short")
    manual = dict(catalog_rows(data_dir, "SELECT chunk_id, text FROM contexts WHERE source = 'manual'"))
    assert set(edited) <= set(manual) <= {int(c) for c in chunks}  # every edit said stored is there

    summary = cli_json(data_dir, "index", str(docs), str(more), "--contexts", "rules", "--json")
    assert summary["failed"] == [] and summary["indexed"] == 320 - documents_before  # nothing finished redone
    assert summary["embedded"] == counts(data_dir)[1] - embedded_before
    assert_doctor_clean(data_dir, "after the next run")
    for chunk_id, text in manual.items():  # the edits survived the run, and are what search finds
        word = text.split()[3]  # zebraN
        found = cli_json(data_dir, "search", word, "-k", "1", "--json", "--local")["results"][0]
        assert found["chunk_id"] == chunk_id and found["context"] == text, found


@pytest.mark.slow
def test_a_kill_while_watch_takes_a_burst_of_2000_new_files_loses_nothing(docs, data_dir):
    make_notes(docs, 5)
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    log = data_dir.parent / "watch.log"
    with open(log, "w") as output:  # a file, not a pipe: a pipe nobody reads would stall watch when full
        watch = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "watch",
                                  str(docs)], stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while "Watching" not in log.read_text():  # it has caught up and watches
            assert watch.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.1)
        burst = docs / "burst"
        burst.mkdir()
        for i in range(2000):
            (burst / f"b{i:04d}.md").write_text(f"# Burst {i}\n\nkappa{i} arrived in a burst of new files.\n")
        deadline = time.monotonic() + 600
        while counts(data_dir)[0] < 5 + 300:
            assert watch.poll() is None and time.monotonic() < deadline, "watch did not take the burst"
            time.sleep(0.05)
        watch.send_signal(signal.SIGKILL)
        watch.wait(timeout=60)
    finally:
        if watch.poll() is None:
            watch.kill()
    documents_before = counts(data_dir)[0]
    assert documents_before < 2005, "watch finished the burst before it could be killed"
    assert_doctor_clean(data_dir, "in watch during a burst")

    summary = cli_json(data_dir, "index", str(docs), "--contexts", "rules", "--json")
    assert summary["failed"] == [] and summary["indexed"] == 2005 - documents_before  # nothing finished redone
    assert counts(data_dir)[0] == 2005
    assert_doctor_clean(data_dir, "after the next run")
    for i in (0, 999, 1999):
        found = cli_json(data_dir, "search", f"kappa{i}", "-k", "1", "--json", "--local", "--mode", "bm25")
        assert found["results"][0]["path"].endswith(f"b{i:04d}.md")
