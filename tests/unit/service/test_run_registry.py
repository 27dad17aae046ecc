"""A run's state as the service keeps it (service/runs.py): the line saying what is in hand follows the step."""

from desktop_rag.core.indexing.report import WORK_ON_NO_FILE, Progress
from desktop_rag.service.runs import RunRegistry


def test_the_line_in_hand_says_the_step_when_the_step_is_no_one_file_s():
    """Issue 60, 3: the line froze on the last file read for the whole of the embedding after it."""
    runs = RunRegistry()
    run = runs.new(["/docs"], "rules")
    report = runs.reporter(run.run_id)
    report(Progress("parse", 1, 2, path="/docs/last.pdf"))
    assert runs.state_of(run.run_id)["current"] == "/docs/last.pdf"
    report(Progress("embed", 0, 40))
    assert runs.state_of(run.run_id)["current"] == WORK_ON_NO_FILE["embed"]
    report(Progress("contextualize", 1, 2))  # a step with no words of its own keeps the last
    assert runs.state_of(run.run_id)["current"] == WORK_ON_NO_FILE["embed"]
