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


def test_the_meaning_search_total_is_the_passages_made_so_far_and_grows_with_the_reading():
    """Issue 60, 2: "0 / 165,740" when 10,270 passages were made (the unread files' guess); told only by the
    embedding's own reports, the total stood still through the reading after the first measure."""
    runs = RunRegistry()
    run = runs.new(["/docs"], "rules")
    report = runs.reporter(run.run_id)
    report(Progress("contextualize", 3, 100, passages_made=49))
    assert "embed" not in runs.state_of(run.run_id)["phases"]  # nothing to say before the embedding begins
    report(Progress("embed", 0, 49, passages_made=49))
    report(Progress("embed", 32, 49, passages_made=49))
    report(Progress("contextualize", 60, 100, passages_made=1_210))
    assert runs.state_of(run.run_id)["phases"]["embed"] == {"done": 32, "total": 1_210, "per_second": None}
    report(Progress("embed", 1_200, 1_200, passages_made=1_210))  # its own count (the catalog's) wins at its step
    report(Progress("index", 1, 1, passages_made=1_210))  # nor does a step after the reading change it
    assert runs.state_of(run.run_id)["phases"]["embed"]["total"] == 1_200
