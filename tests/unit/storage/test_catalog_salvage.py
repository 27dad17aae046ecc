"""What can be read of a damaged catalog (storage/catalog_salvage.py), and its contexts given back as the same
passages are stored again."""

import sqlite3

from desktop_rag.documents import Chunk, ContextResult, text_hash
from desktop_rag.storage.catalog import Catalog
from desktop_rag.storage.catalog_salvage import salvage
from damaged_catalogs import cut_to_first_page, overwrite_pages_of


def save(catalog, path, texts, source="rules"):
    chunks = [Chunk(i, t, 0, len(t), None, ["H"], 3, text_hash(t)) for i, t in enumerate(texts)]
    contexts = [ContextResult(f"ctx {t}", source, "m" if source == "llm" else None) for t in texts]
    return catalog.save_document(path=path, size=10, mtime_ns=1, content_hash="h", parser="text", title="T",
                                 text=" ".join(texts), page_count=None, chunks=chunks, contexts=contexts)


def chunk_with(catalog, text: str) -> int:
    found = catalog.chunks_by_id(sorted(catalog.chunk_ids()))
    return next(chunk_id for chunk_id, chunk in found.items() if chunk.text == text)


def test_the_folders_and_the_costly_contexts_are_read_past_a_damaged_index_then_given_back(tmp_path):
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    catalog.add_folder("/home/me/notes")
    save(catalog, "/home/me/notes/a.md", ["alpha", "beta"], source="llm")
    save(catalog, "/home/me/notes/b.md", ["gamma"])  # rules: free to write again, not carried
    catalog.contexts.set_manual_context(chunk_with(catalog, "alpha"), "my own words", "what is this?")
    catalog.close()
    overwrite_pages_of(tmp_path / "catalog.sqlite3", "contexts_by_content", b"\xff")
    with sqlite3.connect(tmp_path / "catalog.sqlite3") as damaged:  # damaged indeed, as SQLite sees it
        assert damaged.execute("PRAGMA quick_check").fetchone()[0] != "ok"

    found = salvage(tmp_path / "catalog.sqlite3")
    assert found.folders == ["/home/me/notes"] and found.unreadable == []
    assert sorted((row[0], row[2], row[3], row[8]) for row in found.contexts) == [
        ("/home/me/notes/a.md", "ctx beta", "llm", ""),
        ("/home/me/notes/a.md", "my own words", "manual", "what is this?")]

    fresh = Catalog(tmp_path / "new.sqlite3")
    fresh.contexts.keep_salvaged(found.contexts)
    assert fresh.contexts.salvaged_waiting() == 2
    assert {h: c.text for h, c in fresh.contexts.salvaged_contexts("/home/me/notes/a.md").items()} == {
        text_hash("beta"): "ctx beta"}  # the model's (a person's go back through the hand-edit path)
    save(fresh, "/home/me/notes/a.md", ["alpha", "beta"])  # read again, with rules contexts
    alpha = fresh.contexts.context(chunk_with(fresh, "alpha"))
    assert (alpha["text"], alpha["source"], alpha["questions"]) == ("my own words", "manual", "what is this?")
    assert alpha["generated_text"] == "ctx alpha"  # revertible, to what was written now
    assert fresh.contexts.salvaged_waiting() == 0
    fresh.close()


def test_a_file_cut_to_its_header_gives_nothing_and_says_so(tmp_path):
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    catalog.add_folder("/home/me/notes")
    save(catalog, "/home/me/notes/a.md", ["alpha"])
    catalog.close()
    cut_to_first_page(tmp_path / "catalog.sqlite3")
    found = salvage(tmp_path / "catalog.sqlite3")
    assert found.folders == [] and found.contexts == [] and found.unreadable[0].startswith("the folders")
