"""When background LLM work may run (core/runs/schedule.py), decided against a machine played by fakes: a clock the
test moves, and probes for input, CPU load and battery that say what the test wants."""

from types import SimpleNamespace

from desktop_rag.config import Settings
from desktop_rag.core.progress.pacing import BUSY_SHARE
from desktop_rag.core.runs.schedule import BackgroundSchedule


class FakeMachine:
    """The clock and the probes a schedule reads, set by the test."""

    def __init__(self):
        self.now = 1000.0
        self.input_idle: float | None = None  # None: the desktop's input cannot be read (as on Wayland)
        self.load: float | None = 0.0
        self.battery: bool | None = False

    def schedule(self, **settings) -> BackgroundSchedule:
        return BackgroundSchedule(Settings(**settings), clock=lambda: self.now, input_idle=lambda: self.input_idle,
                                  load=lambda: self.load, battery=lambda: self.battery)


def test_by_default_it_waits_for_an_idle_computer_on_mains_power():
    machine = FakeMachine()
    schedule = machine.schedule()
    assert not schedule.decide().may_run and "idle for 3 min" in schedule.decide().reason
    machine.now += 181
    assert schedule.decide().may_run  # quiet for three minutes since the start

    schedule.note_input()  # a key pressed in the app
    assert not schedule.decide().may_run
    machine.now += 181
    machine.input_idle = 20.0  # …but the desktop saw input 20 s ago (another program)
    assert not schedule.decide().may_run and schedule.decide().wait_s == 160
    machine.input_idle = 600.0
    assert schedule.decide().may_run

    machine.load = BUSY_SHARE + 0.1  # a build in another program
    schedule.observe()
    assert not schedule.decide().may_run
    machine.load = 0.05
    machine.now += 181
    schedule.observe()
    assert schedule.decide().may_run

    machine.battery = True
    assert schedule.decide().reason == "waiting for mains power (on battery)"


def test_off_and_paused_hold_it_and_a_request_now_overrides_only_the_machine():
    machine = FakeMachine()
    assert machine.schedule(llm_upgrade_when_idle=False).decide().reason == "off"
    assert machine.schedule(llm_upgrade_paused=True).decide().reason == "paused"
    machine.battery = True
    asked = machine.schedule(llm_only_when_idle=True)
    assert not asked.decide().may_run and asked.decide(asked_now=True).may_run
    # A pause holds even a request now (which the lane keeps for Resume: issue 60, 3).
    assert machine.schedule(llm_upgrade_paused=True).decide(asked_now=True).reason == "paused"


def test_the_hourly_cap_counts_running_time_and_says_when_it_frees_up():
    machine = FakeMachine()
    schedule = machine.schedule(llm_only_when_idle=False, llm_cap_minutes_per_hour=10)
    schedule.running(True)
    machine.now += 6 * 60
    schedule.running(False)
    machine.now += 60
    schedule.running(True)
    machine.now += 4 * 60
    assert schedule.used_seconds() == 600
    decision = schedule.decide()
    assert not decision.may_run and "10 min are used" in decision.reason
    schedule.running(False)
    assert decision.wait_s == 60 * 60 - 11 * 60 + 30  # the first run starts leaving the hour (half-minute steps)
    machine.now += decision.wait_s
    assert schedule.decide().may_run


def test_a_request_now_paused_goes_on_at_resume_and_is_dropped_when_turned_off():
    """Issue 60, 3: pausing "Write LLM contexts now" dropped the request; Resume went back to the idle schedule."""
    from desktop_rag.core.runs.lane import WriteLane

    library = SimpleNamespace(settings=Settings(contexts="rules"), release_unused=lambda *a, **k: None)
    lane = WriteLane(library, upgrade="never")
    lane.ask_now()
    library.settings.llm_upgrade_paused = True
    lane.settings_changed()
    assert lane.asked_now and lane.turn.decide(asked_now=True).reason == "paused"
    library.settings.llm_upgrade_paused = False
    lane.settings_changed()
    assert lane.asked_now  # Resume: on with the request
    library.settings.llm_upgrade_when_idle = False
    lane.settings_changed()
    assert not lane.asked_now  # Cancel: no background LLM work until started again
