"""Search filters by folder, type, date and sender, without an index: the query's filter words, the filters'
own logic, and the catalog's table of families (the filters at work in searches: end2end/test_filters.py)."""

import datetime as dt
import os

import numpy as np
import pytest

from desktop_rag.core.search.filtered_dense import exact_nearest
from desktop_rag.core.search.filters import (SearchFilters, family_named, make_filters,
                                             parse_day)
from desktop_rag.core.search.query import parse_query
from desktop_rag.errors import BadInput
from office_documents import local_day as local


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


def test_exact_nearest_scores_a_chunk_by_its_best_window():
    owners = np.array([7, 7, 8, 9])
    matrix = np.array([[0, 1], [1, 0], [0.8, 0.6], [-1, 0]], dtype=np.float32)
    found = exact_nearest(np.array([1, 0], dtype=np.float32), owners, matrix, n=2)
    assert [chunk for chunk, _ in found] == [7, 8]
    assert found[0][1] == pytest.approx(1.0) and found[1][1] == pytest.approx(0.8)


# -- through the library ---------------------------------------------------------------------------------------


def test_a_chip_removes_its_own_filter_word_from_the_query():
    from desktop_rag.core.search.query import without_filter_word

    query = 'boiler type:mail "type:mail in quotes" from:carl type:mail'
    assert without_filter_word(query, "type", "mail") == 'boiler "type:mail in quotes" from:carl type:mail'
    assert without_filter_word('x in:"~/My Docs"', "in", "~/My Docs") == "x"
