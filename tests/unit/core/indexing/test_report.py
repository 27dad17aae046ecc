"""A run's sentence (core/indexing/report.py), as the window and the CLI say it."""

from desktop_rag.core.indexing.report import IndexSummary


def test_a_run_that_made_an_earlier_runs_passages_searchable_says_so():
    """After a killed run, the catch-up embedded 4,804 passages and said only "0 files indexed (0 passages)"."""
    caught_up = IndexSummary(unchanged=482, embedded=4_804, seconds=200)
    assert "4,804 passages made searchable by meaning" in caught_up.headline()
    first = IndexSummary(indexed=3, chunks=12, embedded=12, seconds=5)
    assert first.headline() == "Done: 3 files indexed (12 passages), 0 unchanged, 0 failed, 0 removed, in 5 s"
