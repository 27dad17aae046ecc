"""What fails in the write lane (core/runs/lane.py) does not end it: a failed batch is reported once, kept and
applied on its retry, a failed run or upgrade is reported and the lane goes on. The library is a fake (this is the
lane's orchestration); the lane with the real library is in end2end/test_write_lane.py."""

from __future__ import annotations

import errno
import logging

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.indexing.upgrade import UpgradeSummary
from desktop_rag.core.indexing.report import IndexSummary
from desktop_rag.core.progress.pacing import RETRY_FIRST_S
from desktop_rag.core.runs.lane import WriteLane
from desktop_rag.storage.use_notes import UseNotes
from desktop_rag.core.runs.schedule import BackgroundSchedule
from desktop_rag.core.watching.changes import ChangeBatch
from fake_models import ANY_TIME, FakeClock
from waiting import eventually



class NothingToMergeFake:
    """The library's index upkeep as the lane's rest step sees it: never a keyword merge due."""

    def merge_keywords(self, control) -> bool:
        return False

class FailingLibraryFake:
    """Fails its first `failures` calls of each write; records what it applied."""

    def __init__(self, failures: int = 1):
        self.settings = Settings(contexts="auto", **ANY_TIME)
        self.use_notes, self.catalog = UseNotes(), None  # (no search notes anything here)
        self.indexes = NothingToMergeFake()
        self.failures = {"apply": failures, "upgrade": failures}
        self.applied: list[set[str]] = []
        self.upgrade_calls = 0
        self.released: list[tuple[float, float | None]] = []

    def _fail(self, what: str) -> None:
        if self.failures[what] > 0:
            self.failures[what] -= 1
            raise OSError(errno.ENOSPC, "No space left on device")

    def apply_changes(self, batch: ChangeBatch, control=None, within_run: bool = False) -> IndexSummary:
        self._fail("apply")
        self.applied.append(set(batch.dirty))
        return IndexSummary()

    def upgrade_contexts(self, limit, control, on_progress=None) -> UpgradeSummary:
        self.upgrade_calls += 1
        if self.upgrade_calls == 1:
            raise RuntimeError("the model's process ended")
        return UpgradeSummary()  # nothing left: the lane waits for the next change

    def release_unused(self, seconds, embedder_after=None) -> None:
        self.released.append((seconds, embedder_after))

    def release_llm_model(self) -> None:
        pass


@pytest.fixture
def clock():
    return FakeClock(1000.0)


@pytest.fixture
def running_lane(clock):
    lanes = []

    def start(library, upgrade="never", **callbacks) -> WriteLane:
        schedule = BackgroundSchedule(library.settings, clock=clock, input_idle=lambda: None, load=lambda: 0.0,
                                      battery=lambda: False)
        lane = WriteLane(library, upgrade=upgrade, make_way_s=0.0, clock=clock, schedule=schedule, **callbacks)
        lane.start()
        lanes.append(lane)
        return lane

    yield start
    for lane in lanes:
        lane.stop()
        lane.join(5)


def test_a_failed_batch_is_reported_once_kept_and_applied_when_its_retry_is_due(running_lane, clock, caplog):
    library, errors = FailingLibraryFake(), []
    lane = running_lane(library, on_error=errors.append)
    with caplog.at_level(logging.ERROR, logger="desktop_rag.core.runs.lane"):
        lane.add_changes(ChangeBatch(dirty={"/docs/a.txt"}))
        eventually(lambda: errors)
        lane.add_changes(ChangeBatch(dirty={"/docs/b.txt"}))  # the lane goes on with what comes next
        eventually(lambda: library.applied)
    assert library.applied == [{"/docs/b.txt"}]  # the failed one waits for its retry
    assert errors == [f"Applying 1 file change(s) failed; trying again in {RETRY_FIRST_S:.0f} s: The disk is "
                      "full. Free some space, or move the data folder to a bigger disk (--data-dir, or File → Data "
                      "folder in the app), then run the task again; finished work is kept."]
    assert len([r for r in caplog.records if r.exc_info]) == 1
    clock.now += RETRY_FIRST_S
    eventually(lambda: len(library.applied) == 2)
    assert library.applied[1] == {"/docs/a.txt"} and len(errors) == 1


def test_a_batch_failing_again_waits_twice_as_long(running_lane, clock):
    library, errors = FailingLibraryFake(failures=2), []
    running_lane(library, on_error=errors.append).add_changes(ChangeBatch(dirty={"/docs/a.txt"}))
    eventually(lambda: errors)
    clock.now += RETRY_FIRST_S
    eventually(lambda: len(errors) == 2)
    assert f"trying again in {2 * RETRY_FIRST_S:.0f} s" in errors[1]
    clock.now += RETRY_FIRST_S
    with pytest.raises(AssertionError):
        eventually(lambda: library.applied, timeout=0.5)
    clock.now += RETRY_FIRST_S
    eventually(lambda: library.applied == [{"/docs/a.txt"}])


def test_a_failed_run_is_reported_and_the_next_one_runs(running_lane):
    errors, done = [], []
    lane = running_lane(FailingLibraryFake(), on_error=errors.append)

    def failing_run():
        raise ValueError("a bug in a run")

    lane.submit(failing_run)
    lane.submit(lambda: done.append("the next run"))
    eventually(lambda: done)
    assert errors == ["A run failed: internal error (ValueError('a bug in a run'))"]


def test_a_failed_upgrade_is_reported_and_tried_again_later(running_lane, clock):
    library, errors = FailingLibraryFake(), []
    running_lane(library, upgrade="now", on_error=errors.append)
    eventually(lambda: errors)
    assert errors[0].startswith("Writing LLM contexts failed; trying again in 5 s: internal error (RuntimeError(")
    with pytest.raises(AssertionError):
        eventually(lambda: library.upgrade_calls > 1, timeout=0.5)
    clock.now += RETRY_FIRST_S
    eventually(lambda: library.upgrade_calls == 2)


def test_a_front_end_that_cannot_report_does_not_stop_the_writes(running_lane):
    library = FailingLibraryFake(failures=0)

    def broken_report(batch, summary):
        raise BrokenPipeError

    lane = running_lane(library, on_batch=broken_report)
    lane.add_changes(ChangeBatch(dirty={"/docs/a.txt"}))
    eventually(lambda: library.applied)
    lane.add_changes(ChangeBatch(dirty={"/docs/b.txt"}))
    eventually(lambda: len(library.applied) == 2)


def test_a_lane_at_rest_lets_go_of_the_embedding_model_only_where_asked(running_lane):
    """The service sets release_embedder_after (its models' memory back after a rest); watch and serve keep it."""
    kept, released = FailingLibraryFake(), FailingLibraryFake()
    running_lane(kept)
    lane = running_lane(released)
    lane.release_embedder_after = 180.0
    eventually(lambda: kept.released and released.released)
    assert {after for _, after in kept.released} == {None}
    eventually(lambda: (60.0, 180.0) in released.released)
