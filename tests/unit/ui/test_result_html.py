"""The line over a search's hits, without a window (the hits' own HTML: tests/end2end/test_ui_rendering.py)."""

from desktop_rag.ui.result_html import results_line


def test_the_line_over_the_hits_says_each_thing_once_with_one_space_between():
    building = "The index is still being built (40% done)"
    line = results_line("3 results", "", keywords_only=True, building=building)
    assert line == ("3 results. Keyword matches for now: meaning search starts when its model has loaded. The index "
                    "is still being built (40% done): files not yet indexed are missing from these results.")
    assert results_line("No results.", "", keywords_only=False, building="") == "No results."
    assert results_line("2 results in 1 file", "Meaning search covers 5 of 9 passages so far.", False, "") == (
        "2 results in 1 file. Meaning search covers 5 of 9 passages so far.")
