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


def test_a_finished_phase_shows_its_count_without_a_rate(qtbot):
    clock = [100.0]
    panel = ProgressPanel(clock=lambda: clock[0])
    qtbot.addWidget(panel)
    panel.start("Indexing /docs", RunControl())
    for done in (0, 200, 484):
        panel.on_progress(Progress("parse", done, 484))
        clock[0] += 5
    for _ in range(10):  # the run's state told again twice a second while it embeds: the reading's count stands
        panel.on_progress(Progress("parse", 484, 484))
        clock[0] += 0.5
    assert panel.counts["parse"].text() == "484 / 484"
    panel.on_progress(Progress("embed", 100, 900))
    clock[0] += 2
    panel.on_progress(Progress("embed", 150, 900))
    assert panel.counts["embed"].text().startswith("150 / 900 · ")
