import sqlite3

import pytest

from desktop_rag.documents import Chunk, ContextResult, text_hash
from desktop_rag.errors import DataFolderUnusable
from desktop_rag.storage.catalog import Catalog


def save(catalog, path, texts, source="rules"):
    chunks = [Chunk(i, t, 0, len(t), None, ["H"], 3, text_hash(t)) for i, t in enumerate(texts)]
    contexts = [ContextResult(f"ctx {t}", source) for t in texts]
    return catalog.save_document(path=path, size=10, mtime_ns=1, content_hash="h", parser="text", title="T",
                                 text=" ".join(texts), page_count=None, chunks=chunks, contexts=contexts)


def test_schema_is_migrated_once_and_uses_wal(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    assert catalog.schema_version >= 1
    catalog.close()
    again = Catalog(tmp_path / "c.sqlite3")  # re-opening must not re-run migrations (tables exist)
    assert again.schema_version >= 1
    mode = sqlite3.connect(tmp_path / "c.sqlite3").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    again.close()


def test_a_catalog_written_by_a_newer_version_is_refused_not_opened(tmp_path):
    path = tmp_path / "c.sqlite3"
    catalog = Catalog(path)
    newest = catalog.schema_version
    catalog.close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {newest + 1}")
    with pytest.raises(DataFolderUnusable, match=f"newer version of desktop-rag \\(schema {newest + 1}; this "
                                                 f"version knows up to {newest}\\)"):
        Catalog(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == newest + 1  # left as it was


def test_writes_are_counted_by_what_a_view_shows(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    before = catalog.writes()
    save(catalog, "/data/a.md", ["alpha"])
    after_save = catalog.writes()
    assert after_save["documents"] > before["documents"] and after_save["folders"] == before["folders"]
    catalog.save_failure(path="/data/a.md", size=5, mtime_ns=2, content_hash=None, error="now unreadable")
    assert catalog.writes()["documents"] > after_save["documents"]  # a failure changes what the views show too
    unchanged = catalog.writes()
    catalog.stats(), catalog.failures()  # reads write nothing
    assert catalog.writes() == unchanged
    catalog.add_folder("/data")
    assert catalog.writes()["folders"] == unchanged["folders"] + 1
    catalog.close()


def test_replacing_a_document_tombstones_its_embedded_chunks(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    save(catalog, "/a.txt", ["one", "two"])
    pending = catalog.pending_embeddings(10)
    assert [(c, t) for _, c, t in pending] == [("ctx one", "one"), ("ctx two", "two")]
    catalog.mark_embedded([pending[0][0]])
    save(catalog, "/a.txt", ["three"])
    # Only the chunk that reached the dense index needs deleting there; the other never did.
    assert catalog.pending_dense_deletions() == [pending[0][0]]
    assert [t for _, _, t in catalog.iter_index_texts()] == ["three"]
    assert catalog.keyword_index_dirty
    catalog.close()


def test_vectors_are_kept_only_while_their_chunk_is_in_the_dense_index(tmp_path):
    import numpy as np

    catalog = Catalog(tmp_path / "c.sqlite3")
    save(catalog, "/a.txt", ["one", "two", "three"])
    ids = [chunk_id for chunk_id, _, _ in catalog.pending_embeddings(10)]
    catalog.mark_embedded(ids, [ids[0], ids[0], ids[1], ids[2]], np.eye(4, dtype=np.float32))  # two windows
    assert [len(v) for v in catalog.filters.chunk_vectors(ids, 4).values()] == [2, 1, 1]
    catalog.mark_unembedded([ids[1]])
    assert sorted(catalog.filters.chunk_vectors(ids, 4)) == [ids[0], ids[2]]
    catalog.contexts.set_manual_context(ids[2], "a person's own words")  # a new context: embedded again, old vectors gone
    assert sorted(catalog.filters.chunk_vectors(ids, 4)) == [ids[0]]
    catalog.mark_all_unembedded()
    assert catalog.filters.chunk_vectors(ids, 4) == {}
    catalog.close()


def test_failure_keeps_the_reason_and_drops_old_chunks_for_its_name_card(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    save(catalog, "/data/plans/a.pdf", ["old text"])
    catalog.save_failure(path="/data/plans/a.pdf", size=5, mtime_ns=2, content_hash=None, error="encrypted PDF")
    record = catalog.document("/data/plans/a.pdf")
    assert (record.status, record.error) == ("failed", "encrypted PDF")
    assert catalog.failures() == [("/data/plans/a.pdf", "encrypted PDF")]
    (chunk,) = catalog.chunks_by_id([c for c, _, _ in catalog.chunk_positions()]).values()
    assert chunk.text == "a.pdf\n/data/plans" and chunk.unread == "encrypted PDF"  # found by its name, said why
    catalog.move_path("/data/plans/a.pdf", "/data/plans/budget.pdf")  # renamed: found by its new name
    (chunk,) = catalog.chunks_by_id([c for c, _, _ in catalog.chunk_positions()]).values()
    assert chunk.text == "budget.pdf\n/data/plans"
    catalog.close()


def test_documents_under_a_folder_does_not_match_sibling_prefixes(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    save(catalog, "/data/docs/a.txt", ["a"])
    save(catalog, "/data/docs2/b.txt", ["b"])
    assert [d.path for d in catalog.documents_under("/data/docs")] == ["/data/docs/a.txt"]
    catalog.close()


def test_a_failed_transaction_leaves_nothing_behind(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    bad_contexts = [ContextResult("c", "not-a-source")]  # violates the CHECK constraint mid-transaction
    chunk = Chunk(0, "t", 0, 1, None, [], 1, "h")
    try:
        catalog.save_document(path="/x.txt", size=1, mtime_ns=1, content_hash="h", parser="text", title="x",
                              text="t", page_count=None, chunks=[chunk], contexts=bad_contexts)
    except sqlite3.IntegrityError:
        pass
    assert catalog.document("/x.txt") is None and catalog.chunk_count() == 0
    catalog.close()


def older_catalog(path, version: int) -> sqlite3.Connection:
    """A catalog as `version` left it (its migrations only), open for a test to fill in."""
    from desktop_rag.storage.catalog_schema import migrations as _migrations

    old = sqlite3.connect(path)
    for number, sql in _migrations():
        if number <= version:
            old.executescript(sql)
    old.execute(f"PRAGMA user_version = {version}")
    return old


def test_mail_read_as_plain_text_by_an_older_version_is_read_again_after_the_upgrade(tmp_path):
    path = tmp_path / "catalog.sqlite3"
    old = older_catalog(path, 9)
    rows = [("/m/lunch.eml", "text", "From: a@b.org"), ("/m/Inbox", "text", "From - Fri Mar 14\nFrom: a@b.org"),
            ("/m/notes.md", "markdown", "From the start")]
    for doc_path, parser, text in rows:
        old.execute("INSERT INTO documents(path, size, mtime_ns, content_hash, status, parser, title, text, updated_at)"
                    " VALUES (?, 10, 20, 'hash', 'indexed', ?, 't', ?, 0)", (doc_path, parser, text))
    old.commit()
    old.close()
    catalog = Catalog(path)
    try:
        read_again = {p: catalog.document(p).content_hash is None and catalog.document(p).mtime_ns == -1
                      for p, _, _ in rows}
        assert read_again == {"/m/lunch.eml": True, "/m/Inbox": True, "/m/notes.md": False}
    finally:
        catalog.close()


def test_an_older_catalog_gains_family_date_and_a_flag_to_copy_its_vectors(tmp_path):
    path = tmp_path / "catalog.sqlite3"
    old = older_catalog(path, 10)
    for doc_path, parser, metadata, mtime_ns in (
            ("/m/a.pdf", "pdf", None, 1_700_000_000_000_000_000),
            ("/m/Inbox › 2025-03-14 Lunch", "email", '{"date": "2025-03-14T09:30:00+01:00"}', 5),
            ("/m/page.html", "html", None, 1_600_000_000_000_000_000)):
        old.execute("INSERT INTO documents(path, size, mtime_ns, content_hash, status, parser, title, text, updated_at,"
                    " metadata) VALUES (?, 10, ?, 'hash', 'indexed', ?, 't', 'x', 0, ?)",
                    (doc_path, mtime_ns, parser, metadata))
    old.execute("INSERT INTO chunks(document_id, idx, text, text_hash, start_char, end_char, token_count, embedded)"
                " VALUES (1, 0, 'x', 'h', 0, 1, 1, 1)")
    old.commit()
    old.close()
    catalog = Catalog(path)
    try:
        rows = catalog._db.execute("SELECT path, family, dated FROM documents ORDER BY id").fetchall()
        assert [tuple(r) for r in rows] == [("/m/a.pdf", "pdf", 1_700_000_000.0),
                                            ("/m/Inbox › 2025-03-14 Lunch", "mail", 1_741_941_000.0),
                                            ("/m/page.html", "text", 1_600_000_000.0)]
        assert catalog.filters.chunks_without_vectors(10) == [1]  # embedded before vectors were kept: to be copied
    finally:
        catalog.close()


def test_the_questions_a_chunk_answers_are_stored_and_keyword_indexed_after_its_context(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    chunks = [Chunk(i, t, 0, len(t), None, [], 3, text_hash(t)) for i, t in enumerate(["one", "two"])]
    contexts = [ContextResult("ctx one", "llm", "m", "v", questions="Why one?\nHow one?"),
                ContextResult("ctx two", "rules")]
    catalog.save_document(path="/q.txt", size=10, mtime_ns=1, content_hash="h", parser="text", title="T",
                          text="one two", page_count=None, chunks=chunks, contexts=contexts)
    assert [t for _, t in catalog.iter_keyword_texts()] == ["ctx one\n\none\n\nWhy one?\nHow one?", "ctx two\n\ntwo"]
    cached = catalog.contexts.cached_contexts("h", "T", "m", "v")
    assert cached[text_hash("one")].questions == "Why one?\nHow one?"  # a copy of the file reuses them too
    catalog.close()


def test_stats_count_the_documents_whose_encoded_data_was_left_out(tmp_path):
    from desktop_rag.documents import documents_sentence

    catalog = Catalog(tmp_path / "c.sqlite3")
    chunks = [Chunk(0, "A note with a picture.", 0, 22, None, [], 5, text_hash("A note with a picture."))]
    for path, metadata in (("/a.md", {"encoded_chars_left_out": "4096"}), ("/b.md", {"encoded_chars_left_out": "300"}),
                           ("/c.md", {"author": "Ana"})):
        catalog.save_document(path=path, size=10, mtime_ns=1, content_hash=path, parser="markdown", title="T",
                              text="A note with a picture.", page_count=None, chunks=chunks,
                              contexts=[ContextResult("ctx", "rules")], metadata=metadata)
    documents = catalog.stats()["documents"]
    assert (documents["encoded_left_out"], documents["encoded_chars_left_out"]) == (2, 4396)
    assert "; 2 documents held encoded data (base64 or hex, 4,396 characters), left out" in documents_sentence(documents)
    catalog.close()
