"""The background LLM line and panel (ui/background_view.py) with a fake service: the panel says what the service's
status says, between two steps of the upgrade as well."""

from types import SimpleNamespace

from desktop_rag.ui.background_view import STEP_GAP_S, WRITING, BackgroundView


class FakePanel:
    def __init__(self):
        self.control = None
        self.title = self.finished = None

    def start(self, title, control, on_pause, on_cancel):
        self.control, self.title, self.finished = control, title, None

    def on_progress(self, progress):
        pass

    def finish(self, message):
        self.finished = message


class FakeRunnerReadingAtOnce:
    def read(self, work, on_done, on_error):
        on_done(work())


class FakeClock:
    now = 100.0

    def __call__(self):
        return self.now


def _view(waiting=5, **settings):
    values = dict(llm_upgrade_when_idle=True, llm_upgrade_paused=False, contexts="auto") | settings
    library = SimpleNamespace(settings=SimpleNamespace(**values), reads=SimpleNamespace(
        contexts_awaiting_upgrade=lambda: waiting, llm_seconds_per_chunk=lambda: 2.0))
    clock, panel = FakeClock(), FakePanel()
    view = BackgroundView(library, FakeRunnerReadingAtOnce(), panel, send=lambda method, params: None, clock=clock)
    return view, panel, clock


def _step(view, state, **summary):
    progress = {"phase": "contextualize", "done": 1, "total": 3}
    ended = dict(documents=1, upgraded_chunks=3, kept_rules=0, cancelled=False, notices=[]) | summary
    view.step({"state": state, "progress": progress, "asked_now": True, "summary": ended})


def test_the_panel_keeps_writing_while_the_service_says_it_writes_its_next_step():
    view, panel, clock = _view()
    view.show_status({"doing": WRITING, "asked_now": True})
    _step(view, "running")
    _step(view, "ended")
    clock.now += STEP_GAP_S * 4  # the next step's model reads the document's start: no progress told yet
    view._tick()
    assert panel.finished is None  # (before: "Paused while you work; goes on later", the tray saying writing)
    view.show_status({"doing": "idle"})
    view._tick()
    assert panel.finished == "Paused while you work; goes on later: 3 contexts written by the LLM in 1 document; " \
                             "0 kept their rules context."


def test_a_step_that_made_way_for_a_saved_file_says_so_and_the_persons_pause_ends_the_panel_at_once():
    view, panel, clock = _view()
    view.show_status({"doing": WRITING})
    _step(view, "running")
    _step(view, "ended", cancelled=True, upgraded_chunks=1, kept_rules=1)
    assert panel.finished is None
    view.show_status({"doing": "applying changes"})
    clock.now += STEP_GAP_S
    view._tick()
    assert panel.finished.startswith("Made way for the work in progress; goes on after it: 1 context written by "
                                     "the LLM in 1 document; 1 kept its rules context")

    view, panel, clock = _view(llm_upgrade_paused=True)
    view.show_status({"doing": WRITING})
    _step(view, "running")
    _step(view, "ended", cancelled=True)
    assert panel.finished.startswith("Paused: 3 contexts")
