"""The background LLM upgrade in the app: the window's WriteLane runs it (core/runs/lane.py: one document a step,
when the schedule allows and nothing else waits, cut short within a second for a saved file, a person's run or
edit, Quit), as `watch` and the service do; this is its view and its controls. The panel follows each step; the
line under it says what waits and why it runs or not, asked once a second.

The person decides: Pause holds it (remembered across restarts until Resume), Cancel stops it until they start it
again (the `llm_upgrade_when_idle` setting, also in the Settings dialog), "Write LLM contexts now" runs it whatever
the machine is doing. The model's memory, and the document reader's, are given back when they have had nothing to
do for a while (the lane does it).
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

from desktop_rag.core.indexing.upgrade import UpgradeSummary
from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.runs.schedule import Decision
from desktop_rag.documents import duration_words
from desktop_rag.ui.errors import sentences

POLL_MS = 1000
RECOUNT_EVERY_S = 15.0  # what waits is counted again this often while work goes on
# A step ended and no next one began for this long: the upgrade stopped (the schedule, a pause, made way), and the
# panel says so. Between two steps the lane takes a fraction of a second.
STEP_GAP_S = 1.5
_INPUT_EVENTS = {QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.Wheel}


class BackgroundUpgrade(QObject):
    changed = Signal()  # the state or what waits changed: the panel shows status_text()
    finished = Signal(object)  # an UpgradeSummary, after each document the lane upgraded
    # From the lane's thread, received in the window's (queued connections).
    _step_started = Signal(object)  # the step's RunControl
    _step_progress = Signal(object)
    _step_ended = Signal(object)  # its UpgradeSummary, or None when it failed

    def __init__(self, library, runner, lane, panel, parent: QObject | None = None, clock=time.monotonic):
        super().__init__(parent)
        self.library, self.runner, self.lane, self.panel = library, runner, lane, panel
        self._clock = clock
        self.turn = lane.turn
        self.schedule = lane.turn.schedule
        self.decision = Decision(False, "starting")
        self.waiting: int | None = None  # chunks with rules contexts no model has tried
        self.seconds_per_chunk: float | None = None
        self._counting = False
        self._count_again = False
        self._counted_at = 0.0
        self._shown: RunControl | None = None  # the step the panel shows
        self._step: RunControl | None = None  # the step running
        self._step_ended_at = 0.0
        self._tally = UpgradeSummary()  # what the steps the panel showed in a row wrote
        self._timer = QTimer(self, interval=POLL_MS)
        self._timer.timeout.connect(self._tick)
        runner.writes_wanted.connect(self.make_way)
        lane.on_upgrade_started = self._step_started.emit
        lane.upgrade_progress = self._step_progress.emit
        lane.on_upgrade_step = self._step_ended.emit
        self._step_started.connect(self._started)
        self._step_progress.connect(self._progress)
        self._step_ended.connect(self._ended)

    # -- life -----------------------------------------------------------------------------------------------

    def begin(self) -> None:
        """Start (the window calls this once its start-up work is queued: the lane does that first)."""
        self.lane.upgrade = "scheduled"
        self.lane.wake_upgrade()
        self._timer.start()
        self.count_waiting()

    @property
    def control(self) -> RunControl | None:
        """The upgrade's step while it runs."""
        return self.turn.control

    @property
    def asked_now(self) -> bool:
        """"Write LLM contexts now": until nothing waits, whatever the machine does."""
        return self.lane.upgrade == "now"

    def close(self) -> None:
        self._timer.stop()
        self.lane.upgrade = "never"
        self.turn.stop()

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        """Input to the app: the person is here. With "only when idle", the upgrade stops at once."""
        if event.type() in _INPUT_EVENTS:
            self.schedule.note_input()
            if self.control is not None and self.library.settings.llm_only_when_idle and not self.asked_now:
                self.turn.stop()
        return False

    # -- what the person asks -------------------------------------------------------------------------------

    def make_way(self) -> None:
        """Something else needs the write lane (a saved file, a run, an edit): stop now, go on later."""
        self.turn.make_way()

    def pause(self) -> None:
        self._save(llm_upgrade_paused=True)
        self.turn.stop()
        self._redecide()

    def resume(self) -> None:
        self._save(llm_upgrade_paused=False, llm_upgrade_when_idle=True)
        self.settings_changed()

    def stop(self) -> None:
        """Cancel: no background LLM work until the person starts it again."""
        self.lane.upgrade = "scheduled"
        self._save(llm_upgrade_when_idle=False)
        self.turn.stop()
        self._release_model()
        self._redecide()

    def start(self) -> None:
        self._save(llm_upgrade_when_idle=True, llm_upgrade_paused=False)
        self.settings_changed()

    def run_now(self) -> None:
        self.lane.upgrade = "now"
        self.turn.forget_made_way()
        self._save(llm_upgrade_paused=False)
        self.settings_changed()

    def settings_changed(self) -> None:
        """Saved in the Settings dialog, or Resume/Start/now: the lane looks again at once (a model change has
        closed the old model already)."""
        self.lane.wake_upgrade()
        self._tick()

    # -- the lane's steps, in the window's thread -------------------------------------------------------------

    def _started(self, control: RunControl) -> None:
        self._step = control

    def _progress(self, progress) -> None:
        """The step's progress; its first takes the panel (a step that finds nothing to do never shows)."""
        step = self._step
        if step is None:
            return
        if self.panel.control is not step:
            if self._shown is None or self.panel.control is not self._shown:  # a new stretch of upgrading
                self._tally = UpgradeSummary()
            title = ("Writing LLM contexts (you asked for them now)…" if self.asked_now
                     else "Writing LLM contexts in the background (search works meanwhile)…")
            self.panel.start(title, step, on_pause=self.pause, on_cancel=self.stop)
            self._shown = step
        self.panel.on_progress(progress)

    def _ended(self, summary: UpgradeSummary | None) -> None:
        self._step = None
        self._step_ended_at = self._clock()
        if summary is None:  # failed: the lane said why (on_error) and tries again later
            self._finish_panel("LLM contexts stopped; they are tried again in a while.")
            return
        tally = self._tally
        tally.documents += summary.documents
        tally.upgraded_chunks += summary.upgraded_chunks
        tally.kept_rules += summary.kept_rules
        tally.notices += [n for n in summary.notices if n not in tally.notices]
        if summary.documents:
            self.finished.emit(summary)
        if summary.cancelled:
            self._finish_panel(self._summed_up(self._stopped_because()))
        elif not summary.documents:  # nothing left (or no usable model)
            if self.asked_now:
                self.lane.upgrade = "scheduled"
            self._finish_panel(self._summed_up("Done"))
        self.count_waiting()
        self._redecide()

    def _summed_up(self, verb: str) -> str:
        t = self._tally
        return (f"{verb}: {t.upgraded_chunks} contexts written by the LLM in {t.documents} documents; "
                f"{t.kept_rules} kept their rules context. {sentences(t.notices)}").strip()

    def _finish_panel(self, message: str) -> None:
        """The panel's stretch of upgrading ends, in one line (if the panel is still its)."""
        shown, self._shown = self._shown, None
        if shown is not None and self.panel.control is shown:
            self.panel.finish(message)

    # -- deciding what to show --------------------------------------------------------------------------------

    def _redecide(self) -> None:
        self.decision = self.schedule.decide(self.asked_now)
        self.changed.emit()

    def _tick(self) -> None:
        """Once a second: the line under the panel, and a stretch of upgrading that ended without a cut-short
        step (a step finished and the schedule or the person let no next one begin)."""
        self.decision = self.schedule.decide(self.asked_now)
        if (self._shown is not None and self._step is None
                and self._clock() - self._step_ended_at >= STEP_GAP_S):
            self._finish_panel(self._summed_up(self._stopped_because() if self.waiting else "Done"))
        if (self.control is not None or self.runner.busy) and self._clock() - self._counted_at > RECOUNT_EVERY_S:
            self.count_waiting()  # the upgrade writes, or a run adds rules contexts
        self.changed.emit()

    def _stopped_because(self) -> str:
        s = self.library.settings
        if not s.llm_upgrade_when_idle:
            return "Stopped"
        if s.llm_upgrade_paused:
            return "Paused"
        return "Made way, goes on later"

    def _release_model(self) -> None:
        """Give the model's memory back; it loads again (seconds) when next needed."""
        if self.control is None:
            self.runner.load(self.library.release_llm_model)

    def _save(self, **values) -> None:
        self.library.set_settings(values)  # (nothing else shows these: the Changes are not passed on)

    # -- what waits -----------------------------------------------------------------------------------------

    def count_waiting(self) -> None:
        if self._counting:
            # A count begun earlier may have read the catalog before the change that asks for this one (the end
            # of an indexing run): count again when it is back, or a stale 0 would keep the upgrade from starting.
            self._count_again = True
            return
        self._counting = True
        self._count_again = False
        self._counted_at = self._clock()

        def counted(numbers) -> None:
            self._counting = False
            if self._count_again:
                self.count_waiting()
                return
            self.waiting, self.seconds_per_chunk = numbers
            if not self.waiting and self.control is None:
                self._release_model()  # nothing left to do
            self.changed.emit()

        def failed(message: str) -> None:
            self._counting = False

        reads = self.library.reads
        self.runner.read(lambda: (reads.contexts_awaiting_upgrade(), reads.llm_seconds_per_chunk()),
                         on_done=counted, on_error=failed)

    def status_text(self) -> str:
        """One line for the progress panel: what waits, at what cost, and what happens to it now."""
        if self.waiting is None:
            return ""
        if not self.waiting:
            return "LLM contexts: none waiting." + (
                "" if self.library.settings.llm_upgrade_when_idle else " Background LLM contexts are off.")
        what = f"{self.waiting:,} passages wait for the language model's contexts"
        if self.seconds_per_chunk:  # from its recent pace; until it has one, no guess
            what += f" (about {duration_words(self.waiting * self.seconds_per_chunk)} of its work at its recent pace)"
        if self.control is not None:
            return f"{what} · writing now"
        reason = self.decision.reason
        if self._contexts_not_auto():
            return f"{what} · {reason} in Settings; “Write LLM contexts now” writes them anyway"
        if reason == "off":
            return f"{what} · background LLM contexts are off"
        if reason == "paused":
            return f"{what} · paused until you resume"
        if self.runner.busy:
            return f"{what} · after the work in progress"
        if self.decision.may_run:
            return f"{what} · starting in a moment"
        return f"{what} · {reason}"

    @property
    def action(self) -> str | None:
        """What the panel's background button does now: "Resume", "Start", "Pause", or None while the upgrade
        runs (the panel's own Pause and Cancel act on it then) or while contexts other than `auto` keep it from
        running at all (Start would change nothing)."""
        if self.control is not None or self._contexts_not_auto():
            return None
        if self.library.settings.llm_upgrade_paused:
            return "Resume"
        if not self.library.settings.llm_upgrade_when_idle:
            return "Start"
        return "Pause"

    def _contexts_not_auto(self) -> bool:
        return self.library.settings.contexts != "auto" and not self.asked_now

    def act(self) -> None:
        if self.action is not None:  # None: the button is hidden
            {"Resume": self.resume, "Start": self.start, "Pause": self.pause}[self.action]()

