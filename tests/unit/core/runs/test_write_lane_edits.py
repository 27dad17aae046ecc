"""A person's edits on the write lane (core/runs/lane.py): before anything waiting, and between the steps of a run
in hand, so an edit waits for a step, not for the run. The library and the run are fakes (this is the lane's
order); the service carrying out real edits is in end2end/test_service_writes.py."""

from __future__ import annotations

import threading
import time
from concurrent.futures import CancelledError
from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.indexing.report import IndexSummary
from desktop_rag.core.runs.lane import WriteLane
from desktop_rag.storage.use_notes import UseNotes
from desktop_rag.service.runs import RunQueue, RunRegistry



class NothingToMergeFake:
    """The library's index upkeep as the lane's rest step sees it: never a keyword merge due."""

    def merge_keywords(self, control) -> bool:
        return False

class QuietLibraryFake:
    def __init__(self):
        self.settings = Settings(contexts="rules")
        self.use_notes, self.catalog = UseNotes(), None  # (no search notes anything here)
        self.indexes = NothingToMergeFake()

    def release_unused(self, seconds, embedder_after=None) -> None:
        pass


@pytest.fixture
def lane():
    lane = WriteLane(QuietLibraryFake(), upgrade="never")
    lane.start()
    yield lane
    lane.stop()
    lane.join(5)


def test_an_edit_is_carried_out_between_the_steps_of_a_run_in_hand(lane):
    steps_done: list[int] = []
    edited_after: list[int] = []
    run_began = threading.Event()

    def long_run_fake(paths, contexts, report, control) -> IndexSummary:  # 40 steps of 50 ms: 2 s
        run_began.set()
        for step in range(40):
            control.checkpoint()
            time.sleep(0.05)
            steps_done.append(step)
        return IndexSummary(indexed=40)

    states: list[str] = []
    queue = RunQueue(RunRegistry(), lane, long_run_fake, on_state=lambda state, changes: states.append(state["state"]))
    queue.submit([str(Path("/somewhere"))], "rules")
    assert run_began.wait(5)
    asked = time.monotonic()
    result = lane.edit(lambda: edited_after.append(len(steps_done)) or "edited").result(timeout=5)
    waited = time.monotonic() - asked
    assert result == "edited"
    assert waited < 0.5, f"the edit waited {waited:.2f} s: for the run, not for a step"
    assert 0 < edited_after[0] < 40  # inside the run
    deadline = time.monotonic() + 10
    while "finished" not in states and time.monotonic() < deadline:
        time.sleep(0.05)
    assert states[0] == "queued" and "running" in states and states[-1] == "finished"


def test_edits_go_before_a_run_waiting_and_in_the_order_asked(lane):
    order: list[str] = []
    gate = threading.Event()
    lane.submit(lambda: gate.wait(5))  # the lane is busy with a run that has no checkpoints
    lane.submit(lambda: order.append("second run"))
    first, second = lane.edit(lambda: order.append("edit 1")), lane.edit(lambda: order.append("edit 2"))
    gate.set()
    first.result(timeout=5), second.result(timeout=5)
    time.sleep(0.5)
    assert order == ["edit 1", "edit 2", "second run"]


def test_an_edits_failure_is_its_askers_and_the_lane_goes_on(lane):
    with pytest.raises(ValueError, match="no such chunk"):
        lane.edit(lambda: (_ for _ in ()).throw(ValueError("no such chunk"))).result(timeout=5)
    assert lane.edit(lambda: 7).result(timeout=5) == 7


def test_edits_not_begun_when_the_lane_stops_are_cancelled_not_left_waiting():
    lane = WriteLane(QuietLibraryFake(), upgrade="never")  # never started: nothing serves the edit
    waiting = lane.edit(lambda: "never")
    lane.stop()
    with pytest.raises(CancelledError):
        waiting.result(timeout=1)


def test_a_queued_run_can_be_cancelled_before_it_starts(lane):
    gate = threading.Event()
    lane.submit(lambda: gate.wait(5))
    registry = RunRegistry()
    queue = RunQueue(registry, lane, lambda *a: pytest.fail("a cancelled run must not start"))
    run = queue.submit(["/x"], "rules")
    assert queue.cancel(run.run_id) == [run.run_id]
    gate.set()
    deadline = time.monotonic() + 5
    while registry.state_of(run.run_id)["state"] == "queued" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert registry.state_of(run.run_id)["state"] == "cancelled"
