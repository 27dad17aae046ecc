"""What the process answering is doing (service/activity.py) and the `status` operation's long poll: it answers at
once when the client's version is old, waits for a change when it is current, and lets go when the endpoint
stops. The library and the lane are fakes (named so): this is the orchestration, not the indexing."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

from desktop_rag.core.indexing.report import Progress
from desktop_rag.config import Settings
from desktop_rag.service import wire
from desktop_rag.service.activity import Activity, LaneActivity
from desktop_rag.service.runs import RunRegistry
from desktop_rag.service.tools import LibraryTools


class FakeLibrarySettings:
    def __init__(self):
        self.settings = Settings()

    def set_settings(self, values):
        for name, value in values.items():
            setattr(self.settings, name, value)


class SwitchableActivity:
    def __init__(self):
        self.doing = "idle"

    def now(self) -> Activity:
        return Activity(self.doing)


def tools_with(activity) -> LibraryTools:
    tools = LibraryTools(FakeLibrarySettings(), RunRegistry(), lambda paths, contexts: "run-1", "test process")
    tools.activity = activity
    return tools


def test_a_status_asked_with_an_old_version_is_answered_at_once():
    tools = tools_with(SwitchableActivity())
    started = time.monotonic()
    status = tools.status(wire.Status(after="not-this-one", wait_s=10))
    assert status["doing"] == "idle" and time.monotonic() - started < 1


def test_a_status_asked_with_the_current_version_waits_for_the_change():
    activity = SwitchableActivity()
    tools = tools_with(activity)
    current = tools.status(wire.Status())["version"]
    threading.Timer(0.4, lambda: setattr(activity, "doing", "applying changes")).start()
    started = time.monotonic()
    status = tools.status(wire.Status(after=current, wait_s=10))
    waited = time.monotonic() - started
    assert status["doing"] == "applying changes" and status["version"] != current
    assert 0.3 < waited < 5, waited


def test_a_waiting_status_lets_go_when_the_endpoint_stops():
    tools = tools_with(SwitchableActivity())
    current = tools.status(wire.Status())["version"]
    threading.Timer(0.2, tools.closing.set).start()
    started = time.monotonic()
    assert tools.status(wire.Status(after=current, wait_s=20))["version"] == current
    assert time.monotonic() - started < 5


def test_the_lane_says_what_it_does_catch_up_first_then_its_step_then_paused():
    lane = SimpleNamespace(doing=None, turn=SimpleNamespace(stop=lambda: None))
    library = FakeLibrarySettings()
    runs = RunRegistry()
    activity = LaneActivity(lane, runs, library)
    assert activity.now() == Activity("idle")
    activity.catching_up()
    assert activity.now() == Activity("catching up", 0.0)
    activity.catching_up(SimpleNamespace(overall=0.4))
    lane.doing = "changes"
    assert activity.now() == Activity("catching up", 0.4)
    activity.caught_up()
    assert activity.now() == Activity("applying changes")
    lane.doing = "upgrade"
    assert activity.now() == Activity("writing LLM contexts")
    run = runs.new(["/x"], "rules")
    runs.started(run.run_id)
    lane.doing = "run"
    assert activity.now().doing == "indexing"
    lane.doing = None
    library.set_settings({"llm_upgrade_paused": True})  # (the tray's and the window's Pause: write_tools.py)
    assert activity.now() == Activity("paused", llm_paused=True)


def test_a_run_paused_anywhere_is_said_paused_with_its_share_and_no_estimate():
    """The one state's words (issue 60: the tray said "Catching up 7%" of a run the window had paused)."""
    lane = SimpleNamespace(doing="run")
    runs = RunRegistry()
    activity = LaneActivity(lane, runs, FakeLibrarySettings())
    run = runs.new(["/x"], "rules")
    runs.started(run.run_id)
    run.share_done, run.seconds_left = 0.42, 300.0
    assert activity.now().sentence() == "Indexing 42%"  # its estimate is not told in its first seconds
    run.started_at -= 10
    assert activity.now().sentence() == "Indexing 42%, about 5 min left"
    run.paused = True
    assert activity.now().sentence() == "Pausing: indexing 42%, after the step in hand"
    run.held = True
    said = activity.now().as_dict()
    assert said["paused"] and said["run_id"] == run.run_id and said["seconds_left"] == 300
    assert said["words"] == "Paused: indexing, 42% done; nothing moves until you resume"
    activity.catching_up(SimpleNamespace(overall=0.07))
    assert activity.now().sentence().startswith("Paused: catching up with changes made while nothing watched, 42%")


def test_the_status_words_are_the_same_for_every_front_end():
    assert Activity("indexing", 0.42).sentence() == "Indexing 42%"
    assert Activity("writing LLM contexts").sentence() == "Writing LLM contexts"
    assert Activity("idle").sentence() == "Idle: the index is up to date"
    assert Activity("paused", llm_paused=True).as_dict()["words"] == "Background work paused"
    assert Activity("paused", llm_paused=True).as_dict()["paused"]


def test_the_time_left_counts_down_between_the_runs_reports_but_not_while_it_is_paused():
    """A run says its time left at its steps, seconds apart while it embeds: held still, "about 50 s left" was told
    for five seconds of a run that ended 34 s later (issue 60)."""
    runs = RunRegistry()
    activity = LaneActivity(SimpleNamespace(doing="run"), runs, FakeLibrarySettings())
    run = runs.new(["/x"], "rules")
    runs.started(run.run_id)
    run.started_at -= 60
    run.share_done, run.seconds_left, run.left_told_at = 0.5, 100.0, time.time() - 30
    assert activity.now().as_dict()["seconds_left"] == 70
    run.paused = True
    assert activity.now().seconds_left == 100.0


def test_a_process_with_no_lane_of_its_own_says_a_pause_as_the_service_does():
    """`serve` answers without a write lane: it said "Idle: the index is up to date" while the LLM was paused."""
    tools = tools_with(None)
    tools.library.settings.llm_upgrade_paused = True
    assert tools.status(wire.Status())["words"] == "Background work paused"
    tools.library.settings.llm_upgrade_paused = False
    assert tools.status(wire.Status())["words"] == "Idle: the index is up to date"


def test_a_run_in_hand_is_never_said_to_be_done():
    """A run's estimate at 99.6% with seven passages still to embed was told as "100%" (issue 60's one-state test,
    in CI): the share is told to the percent below, and a running run's share stops short of the end."""
    lane = SimpleNamespace(doing="run")
    runs = RunRegistry()
    activity = LaneActivity(lane, runs, FakeLibrarySettings())
    run = runs.new(["/x"], "rules")
    runs.started(run.run_id)
    runs.reporter(run.run_id)(Progress("embed", 993, 1_000, overall=1.0, seconds_left=0.1))
    said = activity.now().as_dict()
    assert said["share_done"] == 0.99 and said["words"] == "Indexing 99%"
    run.share_done = 0.996
    assert activity.now().as_dict()["share_done"] == 0.99 and activity.now().sentence() == "Indexing 99%"
