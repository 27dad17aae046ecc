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


def test_a_report_left_untold_by_the_half_second_limit_is_told_when_it_is_over():
    """The window showed a busy bar under "Catching up 48%" for as long as the run then went without a report: the
    last state it was told was the listing's, the share's report having come within the same half second."""
    import time
    from types import SimpleNamespace

    from desktop_rag.service.runs import RunQueue

    told: list[dict] = []
    runs = RunRegistry()
    queue = RunQueue(runs, SimpleNamespace(), run=lambda *args: None, on_state=lambda state, changes: told.append(state))
    run = runs.new(["/docs"], "rules", kind="catch-up")
    runs.started(run.run_id)
    report = queue._reporter(run.run_id)
    report(Progress("scan", 484, 484))
    report(Progress("parse", 0, 484, overall=0.48))
    assert [state["share_done"] for state in told] == [None]  # within the half second: not yet
    time.sleep(0.8)
    assert [state["share_done"] for state in told] == [None, 0.48]


def test_a_report_owed_when_the_run_ends_is_not_told_after_its_end():
    """The owed state's timer fired after the run had ended, and a client heard "running" last (the suite's
    test_service_writes.py caught it)."""
    import time
    from types import SimpleNamespace

    from desktop_rag.core.indexing.report import IndexSummary
    from desktop_rag.service.runs import RunQueue

    told: list[str] = []
    runs = RunRegistry()
    queue = RunQueue(runs, SimpleNamespace(), run=lambda *args: None,
                     on_state=lambda state, changes: told.append(state["state"]))
    run = runs.new(["/docs"], "rules")
    runs.started(run.run_id)
    report = queue._reporter(run.run_id)
    report(Progress("parse", 1, 2))
    report(Progress("parse", 2, 2))  # owed: told when the half second is over
    runs.finished(run.run_id, IndexSummary(indexed=2))
    queue._tell(run.run_id)
    time.sleep(0.8)
    assert told == ["running", "finished"]
