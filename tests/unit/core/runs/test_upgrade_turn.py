"""Who writes when (core/runs/lane.py): the rules the app, `watch` and `serve` share, on a clock moved by hand. The
front ends that follow them are tested in end2end/test_write_lane.py and end2end/test_ui_background.py."""

from __future__ import annotations

from desktop_rag.config import Settings
from desktop_rag.core.runs.upgrade_turn import UpgradeTurn
from desktop_rag.core.runs.schedule import BackgroundSchedule
from fake_models import ANY_TIME, FakeClock


def turn_at_any_time(clock: FakeClock) -> UpgradeTurn:
    """A turn whose schedule always allows the upgrade, waiting 3 s after making way."""
    schedule = BackgroundSchedule(Settings(**ANY_TIME), clock=clock, input_idle=lambda: None, load=lambda: 0.0,
                                  battery=lambda: False)
    return UpgradeTurn(schedule, clock=clock, make_way_s=3.0)


def test_the_upgrade_waits_after_making_way():
    clock = FakeClock(1000.0)
    turn = turn_at_any_time(clock)
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


def test_contexts_other_than_auto_keep_the_schedule_from_running_the_upgrade_unless_asked_now():
    schedule = BackgroundSchedule(Settings(contexts="rules", **ANY_TIME), input_idle=lambda: None,
                                  load=lambda: 0.0, battery=lambda: False)
    assert schedule.decide().reason == "contexts are set to rules"
    assert schedule.decide(asked_now=True).may_run  # "Write LLM contexts now", `watch --upgrade`


def test_a_person_s_question_stops_the_upgrade_and_holds_it_until_answered():
    clock = FakeClock(1000.0)
    turn = turn_at_any_time(clock)
    allowed = turn.decide()
    control = turn.started()
    with turn.person_uses_the_model():
        assert control.cancelled  # the step in hand: cut short at once
        turn.ended(control)
        clock.now += 60  # a long answer
        assert not turn.may_start(allowed, False, True)
        slipped = turn.started()
        assert slipped.cancelled  # one that slipped past may_start starts cancelled (the lane ends it at once)
        turn.ended(slipped)
    clock.now += 2.9
    assert not turn.may_start(allowed, False, True)  # and it waits after the answer as after any write
    clock.now += 0.2
    assert turn.may_start(allowed, False, True)
