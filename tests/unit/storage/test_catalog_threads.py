"""One writer for real: threads that share the catalog's connection never meet inside a transaction."""

import threading

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
            catalog.contexts.set_manual_context(chunk, f"hand context {n}")
            catalog.review.approve_context(chunk)
            if n % 3 == 0:
                catalog.contexts.revert_context(chunk)

    threads = [threading.Thread(target=run, args=(work,)) for work in (indexing, editing)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert catalog.contexts.context(chunk_ids[1])["text"] == "hand context 299"  # the last edit won, none was rolled back
    assert catalog._db.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 21
    catalog.close()


def test_threads_opening_a_new_catalog_at_once_all_succeed(tmp_path):
    """Each opener migrates a new file: the second one in used to create the tables again."""
    for attempt in range(5):
        path = tmp_path / f"new{attempt}.sqlite3"
        barrier = threading.Barrier(4)
        opened, errors = [], []

        def open_catalog(barrier=barrier, path=path, opened=opened, errors=errors):
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


def test_the_catalog_s_structure_check_does_not_wait_for_the_shared_connection(tmp_path):
    """PRAGMA quick_check reads every page (~1.2 s at 250 MB): on the connection searches share it held their reads
    that long while a service started (issue 49). It runs on a connection of its own."""
    import threading

    from desktop_rag.storage.catalog import Catalog

    catalog = Catalog(tmp_path / "c.sqlite3")
    held, release = threading.Event(), threading.Event()

    def hold_the_shared_connection():
        with catalog._db.lock:  # as a long query of another thread would
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_shared_connection)
    holder.start()
    held.wait(5)
    answers = []
    checker = threading.Thread(target=lambda: answers.append(catalog.damage()))
    checker.start()
    checker.join(5)
    release.set()
    holder.join()
    assert answers == [None]  # answered (whole) while the shared connection was held
    catalog.close()
