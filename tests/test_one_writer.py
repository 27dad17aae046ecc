"""One writer for real: threads that share the catalog's connection never meet inside a transaction."""

import threading
import time

from test_catalog import save

from desktop_rag.storage.catalog import Catalog


def test_two_threads_writing_through_one_catalog_never_collide(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    save(catalog, "/edited.txt", ["alpha", "beta"])
    chunk_ids = [row[0] for row in catalog._db.execute("SELECT id FROM chunks ORDER BY id")]
    errors: list[BaseException] = []

    def run(work):
        try:
            work()
        except BaseException as exc:  # every failure is kept: the test says which
            errors.append(exc)

    def indexing():  # the run's thread: documents replaced one unit at a time
        for n in range(300):
            save(catalog, f"/doc{n % 20}.txt", [f"text {n}", f"more {n}"])

    def editing():  # the edit lane: a person's contexts, approvals and reverts
        for n in range(300):
            chunk = chunk_ids[n % 2]
            catalog.set_manual_context(chunk, f"hand context {n}")
            catalog.approve_context(chunk)
            if n % 3 == 0:
                catalog.revert_context(chunk)

    threads = [threading.Thread(target=run, args=(work,)) for work in (indexing, editing)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert catalog.context(chunk_ids[1])["text"] == "hand context 299"  # the last edit won, none was rolled back
    assert catalog._db.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 21
    catalog.close()


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
        library.catalog.set_manual_context(chunk, f"Zanzibar checklist {edits}")
        library.approve_context(chunk)
        edits += 1
    run.join()
    assert errors == []
    library.set_context(chunk, "Zanzibar checklist final")  # and the edit's own index update after the run
    assert library.search("zanzibar", k=1, mode="bm25").hits[0].chunk_id == chunk
    assert library.catalog.stats()["documents"]["indexed"] == 41
    assert all(library.search(f"crate number {n}", k=3, mode="bm25").hits for n in (0, 17, 39))


def test_threads_opening_a_new_catalog_at_once_all_succeed(tmp_path):
    """Each opener migrates a new file: the second one in used to create the tables again."""
    for attempt in range(5):
        path = tmp_path / f"new{attempt}.sqlite3"
        barrier = threading.Barrier(4)
        opened, errors = [], []

        def open_catalog():
            barrier.wait()
            try:
                opened.append(Catalog(path))
            except Exception as exc:
                errors.append(exc)

        threads = [threading.Thread(target=open_catalog) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert {c.schema_version for c in opened} == {opened[0].schema_version} and opened[0].schema_version >= 7
        for catalog in opened:
            catalog.close()


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
    while not library._lock.locked():  # the run holds the library
        time.sleep(0.005)
    started = time.monotonic()
    searchable_now = library.set_context(chunk, "Walrus tusk inventory").searchable
    returned_after = time.monotonic() - started
    still_running = run.is_alive()
    run.join()
    assert still_running and searchable_now is False  # it did not wait for the run…
    assert returned_after < 2.0
    assert library.search("walrus", k=1, mode="bm25").hits[0].chunk_id == chunk  # …which indexed it
    assert library.search("walrus tusk", k=1, mode="dense").hits[0].context == "Walrus tusk inventory"
    assert library.catalog.count_pending_embeddings() == 0
    # And with nothing running, searchable as it returns.
    assert library.set_context(chunk, "Narwhal tusk inventory").searchable is True
    assert library.search("narwhal", k=1, mode="bm25").hits[0].chunk_id == chunk
