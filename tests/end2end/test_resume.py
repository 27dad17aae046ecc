"""A killed `desktop-rag index` loses nothing and redoes nothing finished when run again."""

import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from cli_runner import cli_json

FILES = 600  # two chunks each: enough that embedding runs in several committed batches


def make_notes(docs, files=FILES):
    """`files` notes; note i holds the words alpha{i} and omega{i} and nowhere else."""
    for i in range(files):
        first = " ".join(f"alpha{i} note text" for _ in range(15))
        second = " ".join(f"omega{i} other words" for _ in range(15))
        (docs / f"note{i:04d}.md").write_text(f"# Note {i}\n\n{first}\n\n## Part two\n\n{second}\n")


def counts(data_dir):
    """(documents, chunks, embedded chunks) as committed; read-only, so the catalog is never created here."""
    path = data_dir / "catalog.sqlite3"
    if not path.exists():
        return 0, 0, 0
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        docs = db.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        chunks, embedded = db.execute("SELECT COUNT(*), COALESCE(SUM(embedded), 0) FROM chunks").fetchone()
        return docs, chunks, embedded
    except sqlite3.OperationalError:  # the catalog is still being created
        return 0, 0, 0
    finally:
        db.close()


def start_index(data_dir, docs):
    return subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "index", str(docs),
                             "--contexts", "rules", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # A test run started in the background ignores SIGINT, and children inherit that.
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_until_some_embedded(data_dir, process, timeout=240):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail("the indexing run finished before it could be interrupted")
        if (data_dir / "catalog.sqlite3").exists() and counts(data_dir)[2] > 0:
            return
        time.sleep(0.05)
    pytest.fail("no chunk was embedded in time")


@pytest.mark.parametrize("stop_signal", [signal.SIGKILL, signal.SIGINT])
def test_interrupted_index_resumes_without_redoing_work(tmp_path, docs, data_dir, stop_signal):
    make_notes(docs)
    process = start_index(data_dir, docs)
    wait_until_some_embedded(data_dir, process)
    process.send_signal(stop_signal)
    process.wait(timeout=60)
    if stop_signal == signal.SIGINT:
        assert process.returncode == 130
        assert "interrupted: finished work is saved" in process.stderr.read()

    docs_done, _chunks_done, embedded_done = counts(data_dir)
    assert 0 < embedded_done < FILES * 2  # really stopped midway

    summary = cli_json(data_dir, "index", str(docs), "--contexts", "rules", "--json")
    assert summary["unchanged"] == docs_done
    assert summary["indexed"] == FILES - docs_done
    assert summary["embedded"] == FILES * 2 - embedded_done
    assert summary["failed"] == []

    final_docs, final_chunks, final_embedded = counts(data_dir)
    assert (final_docs, final_chunks, final_embedded) == (FILES, FILES * 2, FILES * 2)
    stats = cli_json(data_dir, "stats", "--json")
    assert stats["dense_index_vectors"] == stats["keyword_index_chunks"] == FILES * 2
    hit = cli_json(data_dir, "search", "omega599", "--mode", "bm25", "-k", "1", "--json")["results"][0]
    assert hit["path"].endswith("note0599.md") and hit["heading_path"][-1] == "Part two"


def test_ctrl_c_while_the_reader_starts_ends_the_run_at_once_with_its_json_and_no_file_failed(docs, data_dir):
    """Issue 51, 9: in a run's first seconds Ctrl-C waited 5-8 s for the reader's child to start and read a file,
    and a child interrupted as it started made "the document reader did not start" a file's failure."""
    import psutil

    make_notes(docs)
    process = start_index(data_dir, docs)
    deadline = time.monotonic() + 120
    while not psutil.Process(process.pid).children() and time.monotonic() < deadline:
        time.sleep(0.01)
    # Past the ~20 ms in which the parent ignores Ctrl-C while it spawns the child (platform/processes.py): the
    # child is importing its modules, the parent waiting for it.
    time.sleep(0.3)
    assert process.poll() is None, "the run ended before a child started"
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert time.monotonic() - sent < 3  # (the reader's start is ~1-2 s idle, 5-8 s under load)
    assert process.returncode == 130, err
    summary = json.loads(out)
    assert summary["cancelled"] is True and summary["failed"] == []
