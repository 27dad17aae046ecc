"""The catalog's families (storage/catalog_filters.py, migration 0019): each document given its parser's family as
it is written, from the table the writer keeps as the formats say; a change of that table reaches the documents
already stored, and a document read again by another reader changes family."""

from __future__ import annotations

from desktop_rag.documents import Chunk, ContextResult, text_hash
from desktop_rag.storage.catalog import Catalog


def _save(catalog: Catalog, path: str, parser: str) -> None:
    chunks = [Chunk(0, "Pears ripen in September.", 0, 25, None, [], 5, text_hash("Pears ripen in September."))]
    catalog.save_document(path=path, size=10, mtime_ns=1, content_hash=path + parser, parser=parser, title="T",
                          text="Pears ripen in September.", page_count=None, chunks=chunks,
                          contexts=[ContextResult("ctx", "rules")])


def _families(catalog: Catalog) -> dict[str, str | None]:
    return dict(catalog._db.execute("SELECT path, family FROM documents").fetchall())


def test_documents_take_the_family_of_their_parser_as_the_writer_s_table_says(tmp_path):
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    try:
        assert catalog.filters.follow_families({"pdf": "pdf", "csv": "spreadsheet"}, "text") == 0  # nothing stored
        for path, parser in (("/a.pdf", "pdf"), ("/b.csv", "csv"), ("/c.md", "markdown")):
            _save(catalog, path, parser)
        assert _families(catalog) == {"/a.pdf": "pdf", "/b.csv": "spreadsheet", "/c.md": "text"}

        # a new format's parser, and CSV moved: the stored documents follow, once
        assert catalog.filters.follow_families({"pdf": "pdf", "csv": "text", "markdown": "notes"}, "text") == 2
        assert _families(catalog) == {"/a.pdf": "pdf", "/b.csv": "text", "/c.md": "notes"}
        assert catalog.filters.follow_families({"pdf": "pdf", "csv": "text", "markdown": "notes"}, "text") == 0

        _save(catalog, "/a.pdf", "markdown")  # the same file read again by another reader
        assert _families(catalog)["/a.pdf"] == "notes"
    finally:
        catalog.close()


def test_what_a_filter_allows_is_read_again_when_what_filters_see_changes_and_only_then(tmp_path, monkeypatch):
    """A filtered search's map of every chunk to its document (a million rows: ~2.5 s) and the chunks a filter
    allows are kept while the catalog changes in other ways: the use notes written between two searches made each
    one read them again (issue 64)."""
    from desktop_rag.core.search.filters import make_filters
    from desktop_rag.storage import catalog_filters

    monkeypatch.setattr(catalog_filters, "_FEW_DOCUMENTS", 0)  # the map's way, whatever the number of documents
    writer = Catalog(tmp_path / "catalog.sqlite3")
    reader = Catalog(tmp_path / "catalog.sqlite3", query_only=True)
    everything = make_filters(folders=["/"])
    try:
        for path in ("/a.md", "/b.md"):
            _save(writer, path, "markdown")
        first = reader.filters.filtered_chunk_ids(everything)
        made = reader.filters._chunk_map
        with writer._connection.transaction():  # a write that leaves every chunk where it was
            writer._db.execute("UPDATE documents SET title = 'Pears' WHERE path = '/a.md'")
        assert reader.filters.filtered_chunk_ids(everything) is first and reader.filters._chunk_map is made
        with writer._connection.transaction():  # a file moved out of the folder: what the filter allows changes
            writer._db.execute("UPDATE documents SET path = '/elsewhere/b.md' WHERE path = '/b.md'")
        assert len(reader.filters.filtered_chunk_ids(make_filters(folders=["/elsewhere"]))) == 1
        assert len(reader.filters.filtered_chunk_ids(everything)) == 2  # ("/" holds "/elsewhere")
        assert reader.filters.filtered_chunk_ids(everything) is not first

        _save(writer, "/c.md", "markdown")  # a chunk added
        added = reader.filters.filtered_chunk_ids(everything)
        assert len(added) == len(first) + 1 and reader.filters._chunk_map is not made
        writer.remove_documents([writer._db.execute("SELECT id FROM documents WHERE path = '/a.md'").fetchone()[0]])
        assert len(reader.filters.filtered_chunk_ids(everything)) == len(first)  # one removed
    finally:
        reader.close()
        writer.close()
