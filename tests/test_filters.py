"""Search filters by folder, type, date and sender: the query's filter words, the catalog's side, and both
retrievers honouring them (core/search/filters.py, storage/catalog_filters.py, core/search/filtered_dense.py)."""

import datetime as dt
import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.core.search.filtered_dense import exact_nearest
from desktop_rag.core.search.filters import (FAMILIES, SearchFilters, family_named, family_of_parser, make_filters,
                                             parse_day)
from desktop_rag.core.search.query import parse_query
from desktop_rag.errors import BadInput
from office_documents import local_day as local
from office_documents import write_boiler_folder, write_xlsx


# -- the query's filter words ----------------------------------------------------------------------------------


def test_filter_words_come_out_of_the_query_and_quoted_ones_stay_words():
    parsed = parse_query('tax return type:pdf in:"~/My Docs" "type:x in quotes" after:2025-03 FROM:anna')
    assert parsed.filters == [("type", "pdf"), ("in", "~/My Docs"), ("after", "2025-03"), ("from", "anna")]
    assert parsed.text == "tax return type:x in quotes"
    assert parsed.phrases == ["type:x in quotes"]


def test_a_key_without_a_value_or_inside_a_word_is_text():
    parsed = parse_query("from: here http://example.org intype:pdf 「東京 in:y」")
    assert parsed.filters == []
    assert "from:" in parsed.text and "intype:pdf" in parsed.text and parsed.phrases == ["東京 in:y"]


def test_days_months_and_years_include_the_period_they_name():
    assert parse_day("2025-03", end=False) == local(2025, 3, 1)
    assert parse_day("2025-03", end=True) == local(2025, 4, 1)
    assert parse_day("2025-06-30", end=True) == local(2025, 7, 1)
    assert parse_day("2024", end=True) == local(2025, 1, 1)
    today = dt.date(2025, 3, 31)
    assert parse_day("1m", end=False, today=today) == local(2025, 2, 28)  # the month before has no 31st
    assert parse_day("week", end=False, today=today) == local(2025, 3, 24)
    assert parse_day("1y", end=False, today=today) == local(2024, 3, 31)
    for wrong in ("March", "2025-13", "2025-02-30", "yesterday"):
        with pytest.raises(BadInput, match="not a date"):
            parse_day(wrong, end=False)


def test_types_are_named_by_family_extension_or_program():
    assert [family_named(w) for w in ("PDF", ".docx", "excel", "eml", "scan", "py", "md")] == [
        "pdf", "word", "spreadsheet", "mail", "image", "code", "text"]
    with pytest.raises(BadInput, match="unknown type 'movie': pick one of pdf, word"):
        family_named("movie")


def test_filters_merge_and_describe_themselves():
    home = os.path.expanduser("~")
    typed = make_filters(folders=["~/Work/tax"], types=["pdf"], after="2025-03", sender="anna")
    assert typed.folders == (os.path.join(home, "Work", "tax"),)
    bar = SearchFilters(types=("mail",), after=local(2025, 1, 1), before=local(2025, 6, 1))
    both = bar.merged(typed)
    assert both.types == ("mail", "pdf") and both.after == local(2025, 3, 1) and both.before == local(2025, 6, 1)
    assert both.describe() == ["in ~/Work/tax", "Mail", "PDF", "from 2025-03-01", "until 2025-05-31",
                               "sent by anna"]
    assert SearchFilters.from_dict(both.to_dict()) == both
    assert SearchFilters().empty and not both.empty


def test_the_catalogs_family_column_agrees_with_the_python_table():
    migration = (Path(__file__).parent.parent / "desktop_rag/storage/migrations/0011_filters_and_vectors.sql")
    family_sql = migration.read_text().split("ADD COLUMN family TEXT GENERATED ALWAYS AS", 1)[1].split("VIRTUAL;")[0]
    db = sqlite3.connect(":memory:")
    parsers = [p for f in FAMILIES for p in f.parsers] + ["code", "some-future-parser", None]
    for parser in parsers:
        found = db.execute(f"SELECT {family_sql.replace('parser', '?')}", [parser] * family_sql.count("parser"))
        assert found.fetchone()[0] == family_of_parser(parser), parser


def test_exact_nearest_scores_a_chunk_by_its_best_window():
    owners = np.array([7, 7, 8, 9])
    matrix = np.array([[0, 1], [1, 0], [0.8, 0.6], [-1, 0]], dtype=np.float32)
    found = exact_nearest(np.array([1, 0], dtype=np.float32), owners, matrix, n=2)
    assert [chunk for chunk, _ in found] == [7, 8]
    assert found[0][1] == pytest.approx(1.0) and found[1][1] == pytest.approx(0.8)


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
    with pytest.raises(BadInput, match="no chunk 999999"):
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
    library.rebuild_keyword_index()
    assert catalog.chunk_count() > 100_000
    for mode in ("hybrid", "bm25", "dense"):
        result = library.search("garden shed paint type:spreadsheet", k=10, mode=mode)
        assert [Path(h.path).name for h in result.hits] == ["budget.xlsx"], mode
    # A filter leaving many documents maps them to chunks through an array kept until the catalog changes.
    reader, everything = library.reader, make_filters(folders=[str(docs)])
    assert len(reader.filtered_chunk_ids(everything)) == catalog.chunk_count()
    catalog.remove_documents([catalog.document(str(docs / "note0.md")).id])
    assert len(reader.filtered_chunk_ids(everything)) == catalog.chunk_count() == 100_000 - 100 + 1  # the notes less one, the sheet
    hits = library.search("garden shed paint", k=5, filters=make_filters(folders=[str(docs)], after="1970"))
    assert len(hits.hits) == 5


def test_a_chip_removes_its_own_filter_word_from_the_query():
    from desktop_rag.core.search.query import without_filter_word

    query = 'boiler type:mail "type:mail in quotes" from:carl type:mail'
    assert without_filter_word(query, "type", "mail") == 'boiler "type:mail in quotes" from:carl type:mail'
    assert without_filter_word('x in:"~/My Docs"', "in", "~/My Docs") == "x"


def test_vectors_of_a_library_embedded_before_they_were_kept_are_copied_from_chroma(library, mixed):
    library.index([mixed], contexts="rules")
    catalog = library.catalog
    embedded = sorted(catalog.chunk_ids(embedded=True))
    dimension = library.embedder.dimension
    kept = catalog.chunk_vectors(embedded, dimension)
    # As a library indexed before migration 0011 has it:
    catalog._db.execute("DELETE FROM chunk_vectors")
    catalog._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('vectors_to_copy', '1')")
    only_pdf = make_filters(types=["pdf"])
    assert library.search("boiler service", mode="dense", filters=only_pdf).hits == []  # nothing to score yet
    library.index([mixed], contexts="rules")  # nothing changed on disk: the run copies the vectors from Chroma
    copied = catalog.chunk_vectors(embedded, dimension)
    assert sorted(copied) == embedded
    assert all(np.allclose(copied[c], kept[c], atol=2e-3) for c in embedded)
    assert names(library.search("boiler service", mode="dense", filters=only_pdf)) == ["boiler-invoice.pdf"]
    assert catalog.chunks_without_vectors(10) == [] and catalog._get_meta("vectors_to_copy", "") == "0"
