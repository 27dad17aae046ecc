"""Search filters by folder, type, date and sender: the query's filter words, the catalog's side, and both
retrievers honouring them (core/search/filters.py, storage/catalog_filters.py, core/search/filtered_dense.py)."""

from pathlib import Path

import numpy as np
import pytest

from desktop_rag.core.search.filters import make_filters
from desktop_rag.errors import BadInput
from office_documents import write_boiler_folder, write_xlsx


# -- the query's filter words ----------------------------------------------------------------------------------


# -- through the library ---------------------------------------------------------------------------------------


@pytest.fixture
def mixed(docs):
    return write_boiler_folder(docs)


def names(result):
    return sorted({Path(h.path.split(" › ")[0]).name + (" › " + h.title if " › " in h.path else "")
                   for h in result.hits})


def test_each_filter_alone_and_combined(library, mixed):
    library.index([mixed], contexts="rules")
    everything = library.search("boiler service", k=20)
    assert len(names(everything)) == 5
    assert names(library.search("boiler service", k=20, filters=make_filters(types=["pdf"]))) == [
        "boiler-invoice.pdf"]
    assert names(library.search("boiler service", k=20, filters=make_filters(folders=[str(mixed / "tax")]))) == [
        "boiler-invoice.pdf"]
    assert names(library.search("boiler service", k=20, filters=make_filters(folders=["house"],
                                                                             types=["mail"]))) == [
        "Inbox.mbox › Boiler quote", "Inbox.mbox › Boiler service on Friday"]
    # A mail's date is its sent date, any other file's its modification time.
    march = library.search("boiler service", k=20, filters=make_filters(after="2025-03", before="2025-03"))
    assert names(march) == ["Inbox.mbox › Boiler service on Friday", "boiler-invoice.pdf"]
    assert names(library.search("boiler", k=20, filters=make_filters(sender="carl"))) == ["Inbox.mbox › Boiler quote"]
    by_typing = library.search("boiler service from:anna type:mail after:2025-01")
    assert names(by_typing) == ["Inbox.mbox › Boiler service on Friday"]
    assert by_typing.filters.types == ("mail",) and by_typing.filters.sender == "anna"


def test_both_retrievers_honour_a_filter(library, mixed):
    library.index([mixed], contexts="rules")
    only_sheets = make_filters(types=["spreadsheet"])
    for mode in ("dense", "bm25", "hybrid"):
        result = library.search("boiler service", k=10, mode=mode, filters=only_sheets)
        assert names(result) == ["costs.xlsx"], mode
        assert all(h.family == "spreadsheet" for h in result.hits)


def test_a_filter_that_leaves_nothing_says_so(library, mixed):
    library.index([mixed], contexts="rules")
    result = library.search("boiler type:slides")
    assert result.hits == [] and result.nothing_left
    assert result.notices == ["no indexed document is Slides"]
    words_missing = library.search('"heat pump" type:pdf')
    assert words_missing.hits == [] and not words_missing.nothing_left
    assert "nothing matches among the" in words_missing.notices[0]


def test_filters_alone_list_their_documents_newest_first(library, mixed):
    library.index([mixed], contexts="rules")
    result = library.search("in:house")
    assert [Path(h.path.split(" › ")[0]).name for h in result.hits] == [
        "costs.xlsx", "Inbox.mbox", "Inbox.mbox", "boiler.md"]
    assert not any(h.scores.ranked for h in result.hits)  # listed, not searched for: no strength to show
    assert all(h.scores.ranked for h in library.search("boiler", k=3).hits)
    oldest_first = library.search("in:house", sort="oldest")
    assert [h.dated for h in oldest_first.hits] == sorted(h.dated for h in result.hits)


def test_sorting_by_date_and_facets_per_type(library, mixed):
    library.index([mixed], contexts="rules")
    newest = library.search("boiler service", k=5, sort="newest")
    assert [h.dated for h in newest.hits] == sorted((h.dated for h in newest.hits), reverse=True)
    result = library.search("boiler service type:pdf", k=5, facets=True)
    assert names(result) == ["boiler-invoice.pdf"]
    # The counts leave the type filter out: they say what choosing another type would give.
    assert result.facets == {"pdf": 1, "text": 1, "spreadsheet": 1, "mail": 2}


def test_similar_returns_the_chunks_neighbours(library, docs):
    (docs / "cats.md").write_text("# Cats\n\nCats purr and sleep most of the day on a warm windowsill.")
    (docs / "kittens.md").write_text("# Kittens\n\nA kitten sleeps for hours in the sun and purrs when stroked.")
    (docs / "tax.md").write_text("# Taxes\n\nThe annual tax return is due on the first of May.")
    (docs / "router.md").write_text("# Router\n\nSet the WiFi channel to 11 and update the firmware.")
    library.index([docs], contexts="rules")
    cat = library.search("cats purr", k=1).hits[0]
    similar = library.similar(cat.chunk_id, k=3)
    assert cat.chunk_id not in [h.chunk_id for h in similar.hits]
    assert Path(similar.hits[0].path).name == "kittens.md"
    assert similar.query == "similar to: Cats" and similar.mode == "dense"
    narrowed = library.similar(cat.chunk_id, k=3, filters=make_filters(folders=[str(docs)], types=["text"]))
    assert Path(narrowed.hits[0].path).name == "kittens.md"
    with pytest.raises(BadInput, match="no passage 999999"):
        library.similar(999999)


def test_a_rare_type_is_found_among_100k_other_chunks(library, docs):
    """The filter is applied inside retrieval: the one spreadsheet chunk comes back though 100,000 chunks of
    text that hold the same words would fill any top-k before it."""
    write_xlsx(docs / "budget.xlsx", {"Budget": [["Item", "Euros"], ["Garden shed paint", 45]]})
    library.index([docs], contexts="rules")
    catalog = library.catalog
    rng = np.random.default_rng(5)
    dimension = len(library.embedder.embed_query("x"))
    from desktop_rag.documents import Chunk, ContextResult

    for d in range(1000):  # 1,000 notes of 100 chunks, each about painting the garden shed
        chunks = [Chunk(text=f"Paint the garden shed green, coat {i} of note {d}.", index=i, start_char=0,
                        end_char=10, page=None, heading_path=[], token_count=12, text_hash=f"{d}-{i}")
                  for i in range(100)]
        catalog.save_document(path=str(docs / f"note{d}.md"), size=1, mtime_ns=1, content_hash=f"h{d}",
                              parser="markdown", title=f"note {d}", text="x", page_count=None, chunks=chunks,
                              contexts=[ContextResult(text="", source="none") for _ in chunks])
    ids = sorted(catalog.chunk_ids(embedded=False))
    vectors = rng.normal(size=(len(ids), dimension)).astype(np.float32)
    catalog.mark_embedded(ids, ids, vectors)  # stored for the exact path; Chroma keeps the real chunks only
    library.keywords.rebuild(catalog.iter_keyword_texts())
    catalog.keyword_changes.rebuilt_up_to(catalog.keyword_changes.latest())
    assert catalog.chunk_count() > 100_000
    for mode in ("hybrid", "bm25", "dense"):
        result = library.search("garden shed paint type:spreadsheet", k=10, mode=mode)
        assert [Path(h.path).name for h in result.hits] == ["budget.xlsx"], mode
    # A filter leaving many documents maps them to chunks through an array kept until the catalog changes.
    reader, everything = library.reader, make_filters(folders=[str(docs)])
    assert len(reader.filters.filtered_chunk_ids(everything)) == catalog.chunk_count()
    catalog.remove_documents([catalog.document(str(docs / "note0.md")).id])
    assert len(reader.filters.filtered_chunk_ids(everything)) == catalog.chunk_count() == 100_000 - 100 + 1  # the notes less one, the sheet
    hits = library.search("garden shed paint", k=5, filters=make_filters(folders=[str(docs)], after="1970"))
    assert len(hits.hits) == 5


def test_vectors_of_a_library_embedded_before_they_were_kept_are_copied_from_chroma(library, mixed):
    library.index([mixed], contexts="rules")
    catalog = library.catalog
    embedded = sorted(catalog.chunk_ids(embedded=True))
    dimension = library.embedder.dimension
    kept = catalog.filters.chunk_vectors(embedded, dimension)
    # As a library indexed before migration 0011 has it:
    catalog._db.execute("DELETE FROM chunk_vectors")
    catalog._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('vectors_to_copy', '1')")
    only_pdf = make_filters(types=["pdf"])
    assert library.search("boiler service", mode="dense", filters=only_pdf).hits == []  # nothing to score yet
    library.index([mixed], contexts="rules")  # nothing changed on disk: the run copies the vectors from Chroma
    copied = catalog.filters.chunk_vectors(embedded, dimension)
    assert sorted(copied) == embedded
    assert all(np.allclose(copied[c], kept[c], atol=2e-3) for c in embedded)
    assert names(library.search("boiler service", mode="dense", filters=only_pdf)) == ["boiler-invoice.pdf"]
    assert catalog.filters.chunks_without_vectors(10) == [] and catalog._connection.meta("vectors_to_copy", "") == "0"
