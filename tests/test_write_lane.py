"""Who writes when (core/runs/lane.py): the rules shared by the app, `watch` and `serve`, and the two front ends
that run them on a plain thread. The app's own agreement is in test_ui_background.py."""

from __future__ import annotations

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.runs.lane import RELEASE_MODEL_AFTER_S, UpgradeTurn, WriteLane
from desktop_rag.core.runs.schedule import BackgroundSchedule
from desktop_rag.service.host import LibraryHost
from fake_models import SlowFakeModel
from test_watch import eventually

# The machine's conditions allow the upgrade (no idle wait, no battery rule): only `contexts` decides.
ANY_TIME = dict(llm_only_when_idle=False, llm_only_on_mains=False, llm_run_budget_seconds=0)


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_the_upgrade_waits_after_making_way_and_gives_its_model_back_a_minute_after_use():
    clock = FakeClock()
    schedule = BackgroundSchedule(Settings(**ANY_TIME), clock=clock, input_idle=lambda: None, load=lambda: 0.0,
                                  battery=lambda: False)
    turn = UpgradeTurn(schedule, clock=clock, make_way_s=3.0)
    allowed = turn.decide()
    assert allowed.may_run and turn.may_start(allowed, writes_waiting=False, something_waits=True)
    assert not turn.may_start(allowed, writes_waiting=True, something_waits=True)  # a run is queued: it goes first
    assert not turn.may_start(allowed, writes_waiting=False, something_waits=False)
    control = turn.started()
    turn.make_way()  # a saved file arrives
    assert control.cancelled
    turn.ended(control)
    clock.now += 2.9
    assert not turn.may_start(allowed, False, True)  # a burst of saves passes first
    clock.now += 0.2
    assert turn.may_start(allowed, False, True)
    assert not turn.release_due()
    clock.now += RELEASE_MODEL_AFTER_S + 1
    assert turn.release_due()
    turn.released()
    assert not turn.release_due()


def test_contexts_other_than_auto_keep_the_schedule_from_running_the_upgrade_unless_asked_now():
    schedule = BackgroundSchedule(Settings(contexts="rules", **ANY_TIME), input_idle=lambda: None,
                                  load=lambda: 0.0, battery=lambda: False)
    assert schedule.decide().reason == "contexts are set to rules"
    assert schedule.decide(asked_now=True).may_run  # "Write LLM contexts now", `watch --upgrade`


def _indexed_with_rules(make_library, docs, contexts: str):
    (docs / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap every two weeks.\n")
    library = make_library(Settings(contexts=contexts, **ANY_TIME))
    library.index([docs], contexts="rules")
    model = SlowFakeModel(seconds=0)
    library.llm_backend = lambda: model
    assert library.reader.stats()["contexts_awaiting_upgrade"] > 0
    return library, model


def _lane_of_watch(library) -> WriteLane:
    lane = WriteLane(library, make_way_s=0.2)  # as `desktop-rag watch` makes it, without --upgrade
    lane.start()
    return lane


def _lane_of_serve(library) -> WriteLane:
    host = LibraryHost(library, "test serve", upgrade="scheduled")  # as `desktop-rag serve` makes it
    host._own_lane.turn.make_way_s = 0.2
    return host._own_lane


@pytest.mark.parametrize("front_end", [_lane_of_watch, _lane_of_serve], ids=["watch", "serve"])
def test_watch_and_serve_upgrade_rules_contexts_only_when_contexts_are_auto(make_library, docs, front_end):
    library, model = _indexed_with_rules(make_library, docs, "rules")
    lane = front_end(library)
    try:
        eventually(lambda: lane.decision.reason == "contexts are set to rules")
        assert model.calls == 0 and library.reader.stats()["contexts_awaiting_upgrade"] > 0
    finally:
        lane.stop()
        lane.join(30)


@pytest.mark.parametrize("front_end", [_lane_of_watch, _lane_of_serve], ids=["watch", "serve"])
def test_watch_and_serve_upgrade_with_auto_contexts(make_library, docs, front_end):
    library, model = _indexed_with_rules(make_library, docs, "auto")
    lane = front_end(library)
    try:
        eventually(lambda: library.reader.stats()["contexts_awaiting_upgrade"] == 0, timeout=60)
        assert model.calls > 0 and library.reader.stats()["contexts_by_source"].get("llm", 0) > 0
    finally:
        lane.stop()
        lane.join(30)


def test_a_run_submitted_to_the_lane_goes_before_the_upgrade(make_library, docs):
    library, model = _indexed_with_rules(make_library, docs, "auto")
    model.seconds, model.fast_calls = 120.0, 0  # every model call lasts until cut short
    lane = _lane_of_watch(library)
    done = []
    try:
        eventually(model.working.is_set, timeout=60)
        lane.submit(lambda: done.append("the run"))
        eventually(lambda: done, timeout=10)  # the model's call was cut short for it
        assert model.interrupted >= 1
    finally:
        lane.stop()
        lane.join(30)
