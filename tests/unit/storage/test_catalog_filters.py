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
