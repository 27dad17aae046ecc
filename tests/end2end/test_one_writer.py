"""One writer for real: threads that share the catalog's connection never meet inside a transaction."""

import subprocess
import sys
import textwrap
import threading
import time

import pytest

from desktop_rag.errors import DataFolderBusy


def indexed_chunk_and_notes_to_index(library, docs, tmp_path, notes: int) -> int:
    """A chunk indexed already (the one a person edits), and `notes` files waiting in `docs` for a run."""
    edited = tmp_path / "edited"
    edited.mkdir()
    (edited / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n\nDrain it for winter.\n")
    library.index([edited], contexts="rules")
    for n in range(notes):
        (docs / f"note{n}.md").write_text(f"# Note {n}\n\nThe warehouse keeps crate number {n} on shelf {n % 7}.\n")
    return library.search("prime", k=1, mode="bm25").hits[0].chunk_id


def test_a_person_edits_contexts_while_a_real_index_runs(library, docs, tmp_path):
    chunk = indexed_chunk_and_notes_to_index(library, docs, tmp_path, 40)
    errors: list[BaseException] = []

    def indexing():
        try:
            library.index([docs], contexts="rules")
        except BaseException as exc:
            errors.append(exc)

    run = threading.Thread(target=indexing)
    run.start()
    edits = 0
    while run.is_alive() or edits < 5:  # the catalog's edits, as the app's edit lane makes them during a run
        library.catalog.contexts.set_manual_context(chunk, f"Zanzibar checklist {edits}")
        library.edits.approve_context(chunk)
        edits += 1
    run.join()
    assert errors == []
    library.edits.set_context(chunk, "Zanzibar checklist final")  # and the edit's own index update after the run
    assert library.search("zanzibar", k=1, mode="bm25").hits[0].chunk_id == chunk
    assert library.catalog.stats()["documents"]["indexed"] == 41
    assert all(library.search(f"crate number {n}", k=3, mode="bm25").hits for n in (0, 17, 39))


def test_two_commands_started_at_once_on_a_new_data_folder_both_work(tmp_path):
    """Separate processes: the catalog's tables and Chroma's are each created once."""
    import subprocess
    import sys

    for attempt in range(3):
        data = tmp_path / f"data{attempt}"
        commands = [subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data), "stats", "--json"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        for command in commands:
            out, err = command.communicate(timeout=180)
            assert command.returncode == 0, err
            assert '"chunks": 0' in out


def test_an_edit_during_a_run_returns_at_once_and_the_run_indexes_it(library, docs, tmp_path):
    chunk = indexed_chunk_and_notes_to_index(library, docs, tmp_path, 60)
    run = threading.Thread(target=lambda: library.index([docs], contexts="rules"))
    run.start()
    while not library.writer.lock.locked():  # the run holds the library
        time.sleep(0.005)
    started = time.monotonic()
    searchable_now = library.edits.set_context(chunk, "Walrus tusk inventory").searchable
    returned_after = time.monotonic() - started
    still_running = run.is_alive()
    run.join()
    assert still_running and searchable_now is False  # it did not wait for the run…
    assert returned_after < 2.0
    assert library.search("walrus", k=1, mode="bm25").hits[0].chunk_id == chunk  # …which indexed it
    assert library.search("walrus tusk", k=1, mode="dense").hits[0].context == "Walrus tusk inventory"
    assert library.catalog.count_pending_embeddings() == 0
    # And with nothing running, searchable as it returns.
    assert library.edits.set_context(chunk, "Narwhal tusk inventory").searchable is True
    assert library.search("narwhal", k=1, mode="bm25").hits[0].chunk_id == chunk


def _held_by_another_process(data_dir):
    """A process holding the data folder's writer lock, as `desktop-rag watch` would; ended by the caller."""
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from desktop_rag.storage import writer_lock
        writer_lock.acquire(Path({str(data_dir)!r}))
        print("held", flush=True)
        sys.stdin.read()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_approving_a_context_or_marking_a_folder_while_another_process_writes_is_refused(library, docs, tmp_path):
    chunk = indexed_chunk_and_notes_to_index(library, docs, tmp_path, 0)
    library.writer.release()
    holder = _held_by_another_process(library.data_dir)
    try:
        with pytest.raises(DataFolderBusy):
            library.edits.approve_context(chunk)
        with pytest.raises(DataFolderBusy):
            library.mark_upgrade_first(str(tmp_path / "edited"))
    finally:
        holder.communicate("")
    assert library.reads.context(chunk)["reviewed_at"] is None  # nothing written beside the other writer
