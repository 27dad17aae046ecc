"""The background LLM upgrade in the app: when it may run, when it makes way and when its model goes back are the
rules every front end shares (core/runs/lane.py `UpgradeTurn`); here they are asked once a second from a Qt timer
and the work runs on the task runner's write lane. It makes way within a second for anything else — a saved file,
a person's run or edit, Quit — by cutting the model's call short.

The person decides: Pause holds it (remembered across restarts until Resume), Cancel stops it until they start it
again (the `llm_upgrade_when_idle` setting, also in the Settings dialog), "Write LLM contexts now" runs it whatever
the machine is doing. The model's memory, and the document reader's, are given back when they have had nothing to
do for a while.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.runs.lane import RELEASE_MODEL_AFTER_S, UpgradeTurn
from desktop_rag.core.runs.schedule import BackgroundSchedule, Decision
from desktop_rag.documents import duration_words
from desktop_rag.ui.errors import sentences

POLL_MS = 1000
RECOUNT_EVERY_S = 15.0  # what waits is counted again this often while work goes on
_INPUT_EVENTS = {QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.Wheel}


class BackgroundUpgrade(QObject):
    changed = Signal()  # the state or what waits changed: the panel shows status_text()
    finished = Signal(object)  # an UpgradeSummary, after each run of the upgrade

    def __init__(self, library, runner, panel, parent: QObject | None = None, clock=time.monotonic):
        super().__init__(parent)
        self.library, self.runner, self.panel = library, runner, panel
        self._clock = clock
        self.schedule = BackgroundSchedule(library.settings, clock=clock)
        self.turn = UpgradeTurn(self.schedule, clock=clock)
        self.asked_now = False  # "Write LLM contexts now": until nothing waits, whatever the machine does
        self.decision = Decision(False, "starting")
        self.waiting: int | None = None  # chunks with rules contexts no model has tried
        self.seconds_per_chunk: float | None = None
        self._counting = False
        self._count_again = False
        self._counted_at = 0.0
        self._timer = QTimer(self, interval=POLL_MS)
        self._timer.timeout.connect(self._tick)
        runner.writes_wanted.connect(self.make_way)

    # -- life -----------------------------------------------------------------------------------------------

    def begin(self) -> None:
        """Start deciding (the window calls this once its start-up work is queued)."""
        self._timer.start()
        self.count_waiting()

    @property
    def control(self) -> RunControl | None:
        """The upgrade while it runs."""
        return self.turn.control

    def close(self) -> None:
        self._timer.stop()
        self.turn.stop()

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        """Input to the app: the person is here. With "only when idle", the upgrade stops at once."""
        if event.type() in _INPUT_EVENTS:
            self.schedule.note_input()
            if self.control is not None and self.library.settings.llm_only_when_idle and not self.asked_now:
                self._stop_run()
        return False

    # -- what the person asks -------------------------------------------------------------------------------

    def make_way(self) -> None:
        """Something else needs the write lane (a saved file, a run, an edit): stop now, go on later."""
        self.turn.make_way()

    def pause(self) -> None:
        self._save(llm_upgrade_paused=True)
        self._stop_run()
        self._redecide()

    def resume(self) -> None:
        self._save(llm_upgrade_paused=False, llm_upgrade_when_idle=True)
        self._tick()

    def stop(self) -> None:
        """Cancel: no background LLM work until the person starts it again."""
        self.asked_now = False
        self._save(llm_upgrade_when_idle=False)
        self._stop_run()
        self._release_model()
        self._redecide()

    def start(self) -> None:
        self._save(llm_upgrade_when_idle=True, llm_upgrade_paused=False)
        self._tick()

    def run_now(self) -> None:
        self.asked_now = True
        self.turn.forget_made_way()
        self._save(llm_upgrade_paused=False)
        self._tick()

    def settings_changed(self) -> None:
        """Saved in the Settings dialog: decide again now (a model change has closed the old model already)."""
        self._tick()

    # -- deciding -------------------------------------------------------------------------------------------

    def _redecide(self) -> None:
        self.decision = self.schedule.decide(self.asked_now)
        self.changed.emit()

    def _tick(self) -> None:
        self.decision = self.turn.decide(self.asked_now)
        if self.control is not None:
            if not self.decision.may_run:
                self._stop_run()
        elif self.turn.may_start(self.decision, self.runner.busy, bool(self.waiting)):
            self._start_run()
        elif self.library.has_unused_parts(RELEASE_MODEL_AFTER_S):  # after an upgrade, a regeneration, a run…
            self.runner.load(lambda: self.library.release_unused(RELEASE_MODEL_AFTER_S))
        if (self.control is not None or self.runner.busy) and self._clock() - self._counted_at > RECOUNT_EVERY_S:
            self.count_waiting()  # the upgrade writes, or a run adds rules contexts
        self.changed.emit()

    def _start_run(self) -> None:
        control = self.turn.started()
        title = ("Writing LLM contexts (you asked for them now)…" if self.asked_now
                 else "Writing LLM contexts in the background (search works meanwhile)…")
        self.panel.start(title, control, on_pause=self.pause, on_cancel=self.stop)

        def report(progress):
            if self.panel.control is control:
                self.panel.on_progress(progress)

        self.runner.write(lambda report_: self.library.upgrade_contexts(on_progress=report_, control=control),
                          on_done=lambda summary: self._done(control, summary),
                          on_error=lambda message: self._failed(control, message), on_progress=report,
                          background=True)

    def _stop_run(self) -> None:
        self.turn.stop()

    def _done(self, control: RunControl, summary) -> None:
        self.turn.ended(control)
        if not summary.cancelled:
            self.asked_now = False
        if not self.library.settings.llm_upgrade_when_idle:
            self._release_model()  # stopped by the person: the memory goes back now, not in a minute
        if self.panel.control is control:
            verb = self._stopped_because() if summary.cancelled else "Done"
            self.panel.finish(f"{verb}: {summary.upgraded_chunks} contexts written by the LLM in "
                              f"{summary.documents} documents; {summary.kept_rules} kept their rules context. "
                              f"{sentences(summary.notices)}".strip())
        self.finished.emit(summary)
        self._redecide()  # the line under the panel says "writing now" no longer, from this moment
        self.count_waiting()

    def _failed(self, control: RunControl, message: str) -> None:
        self.turn.ended(control)
        self.asked_now = False
        if self.panel.control is control:
            self.panel.finish(f"LLM contexts stopped: {message}")
        self._redecide()
        self.count_waiting()

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

