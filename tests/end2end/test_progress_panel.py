"""The run's panel (ui/progress_panel.py) says of a count what it is: no share made of a listing, no bare number
read as a total (issue 60)."""

from desktop_rag.core.indexing.report import Progress
from desktop_rag.core.progress.control import RunControl
from desktop_rag.ui.progress_panel import ProgressPanel


def test_files_found_are_no_share_of_the_run_and_a_count_without_a_total_says_so_far(qtbot):
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start("Indexing /docs", RunControl())
    panel.on_progress(Progress("scan", 1_500, 1_500))  # the listing done: the run's share not known yet
    assert panel.overall.maximum() == 0 and panel.overall_label.text() == ""  # a busy bar, not 100%
    panel.on_progress(Progress("index", 1, None))  # the keyword index made again: one passage so far
    assert panel.counts["index"].text() == "1 so far"
    panel.on_progress(Progress("parse", 3, 10, overall=0.25))
    assert panel.overall_label.text().startswith("25%")
