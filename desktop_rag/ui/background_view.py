"""The background LLM upgrade as the window shows it (issue 49): the service's write lane runs it (core/runs/lane.py:
one document a step, when the schedule allows and nothing else waits, cut short within a second for a saved file,
a run or an edit); the window shows its steps in the progress panel as the service's event stream tells them, and
a line under the panel says what waits and why it runs or not.

The person decides: Pause holds it (remembered across restarts until Resume), Cancel stops it until they start it
again (the `llm_upgrade_when_idle` setting), "Write LLM contexts now" runs it whatever the machine is doing. Each
is a settings change or a call the service carries out; the line follows what the service then says.
"""

from __future__ import annotations


import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_rag.core.indexing.report import Progress
from desktop_rag.core.indexing.upgrade import UpgradeSummary
from desktop_rag.documents import duration_words, upgrade_words
from desktop_rag.ui.errors import sentences
from desktop_rag.service import wire
from desktop_rag.service.activity import WORK_IN_PROGRESS, WRITING
from desktop_rag.service.remote_library import RemoteLibrary
from desktop_rag.ui.tasks import TaskRunner


RECOUNT_EVERY_S = 15.0  # what waits is counted again this often while work goes on
# A step ended and no next one began for this long: the upgrade stopped (the schedule, a pause, made way), and the
# panel says so. Between two steps the lane takes a fraction of a second.
STEP_GAP_S = 1.5


class UpgradeControl:
    """The panel's Pause and Cancel while an upgrade step shows: the person's Pause and Cancel of the upgrade."""

    def __init__(self, pause: Callable[[], None], stop: Callable[[], None]):
        self.pause, self.cancel = pause, stop
        self.paused = self.cancelled = False

    def resume(self) -> None:  # (the panel's Pause goes through on_pause: never called)
        pass

    @property
    def stopping(self) -> bool:
        return False


class BackgroundView(QObject):
    changed = Signal()  # the line or its button changed: the panel shows status_text() and action

    def __init__(self, library: RemoteLibrary, runner: TaskRunner,
                 panel, send: Callable[[wire.Request[Any]], None], parent: QObject | None = None,
                 clock=time.monotonic):
        """`send(request)`: a call to the service, off the window's thread."""
        super().__init__(parent)
        self.library, self.runner, self.panel = library, runner, panel
        self._send = send
        self._clock = clock
        self.status: dict = {}
        self.waiting: int | None = None
        self.seconds_per_chunk: float | None = None
        self._counting = False
        self._count_again = False
        self._counted_at = 0.0
        self.control: UpgradeControl | None = None  # while the panel shows a step
        self.read_only = False  # a library this process may not write: nothing is upgraded, nothing offered
        self._tally = UpgradeSummary()
        self._ended_at: float | None = None
        self._timer = QTimer(self, interval=500)
        self._timer.timeout.connect(self._tick)

    def begin(self) -> None:
        self._timer.start()
        self.count_waiting()

    def close(self) -> None:
        self._timer.stop()

    # -- what the service says --------------------------------------------------------------------------------

    def show_status(self, status: dict) -> None:
        self.status = status
        self.changed.emit()

    def step(self, event: dict) -> None:
        """A step of the upgrade (service/host.py): started, running (its progress), ended (what it wrote). Its
        first progress takes the panel: a step that finds nothing to do never shows."""
        state = event["state"]
        if state == "ended":
            if self.control is not None:
                self._ended(event.get("summary"))
            else:
                self.count_waiting()
            return
        if state != "running":
            return
        if self.control is None or self.panel.control is not self.control:
            if self.control is None:  # a new stretch of upgrading
                self._tally = UpgradeSummary()
            self.control = UpgradeControl(self.pause, self.stop)
            title = ("Writing LLM contexts (you asked for them now)…" if event.get("asked_now")
                     else "Writing LLM contexts in the background (search works meanwhile)…")
            self.panel.start(title, self.control, on_pause=self.pause, on_cancel=self.stop)
        self._ended_at = None
        self.panel.on_progress(Progress(**event["progress"]))

    def _ended(self, summary: dict | None) -> None:
        self._ended_at = self._clock()
        if summary is None:  # failed: the error event says why; the service tries again later
            self._finish_panel("LLM contexts stopped; they are tried again in a while.")
            return
        tally = self._tally
        tally.documents += summary["documents"]
        tally.upgraded_chunks += summary["upgraded_chunks"]
        tally.kept_rules += summary["kept_rules"]
        tally.notices += [n for n in summary["notices"] if n not in tally.notices]
        if summary["cancelled"] and self._stopped_by_the_person():
            self._finish_panel(self._summed_up(self._stopped_because()))
        elif not summary["documents"]:
            self._finish_panel(self._summed_up("Done"))
        self.count_waiting()

    def _tick(self) -> None:
        # The service still writing (its next step begun, its first progress not yet told: the document's prefix
        # read by the model takes seconds) keeps the panel as the status line and the tray say it.
        if self._ended_at is not None and self._clock() - self._ended_at >= STEP_GAP_S \
                and self.status.get("doing") != WRITING:
            self._ended_at = None
            self._finish_panel(self._summed_up(self._stopped_because() if self.waiting else "Done"))
        if self.status.get("doing") not in (None, "idle", "paused") and \
                self._clock() - self._counted_at > RECOUNT_EVERY_S:
            self.count_waiting()

    def _summed_up(self, verb: str) -> str:
        t = self._tally
        return (f"{verb}: {upgrade_words(t.upgraded_chunks, t.documents, t.kept_rules)}. "
                f"{sentences(t.notices)}").strip()

    def _finish_panel(self, message: str) -> None:
        control, self.control = self.control, None
        if control is not None and self.panel.control is control:
            self.panel.finish(message)
        self.changed.emit()

    def _stopped_by_the_person(self) -> str | None:
        """"Stopped" (Cancel), "Paused" (Pause), or None: the person did not stop it."""
        settings = self.library.settings
        if not settings.llm_upgrade_when_idle:
            return "Stopped"
        return "Paused" if settings.llm_upgrade_paused else None

    def _stopped_because(self) -> str:
        if stopped := self._stopped_by_the_person():
            return stopped
        if self.status.get("doing") in WORK_IN_PROGRESS:
            return "Made way for the work in progress; goes on after it"
        return "Paused while you work; goes on later"

    # -- what the person asks -----------------------------------------------------------------------------------

    def pause(self) -> None:  # every LLM work, `contextualize` runs included; an indexing run goes on
        self._send(wire.PauseBackground(paused=True, runs=False))

    def resume(self) -> None:
        self._send(wire.PauseBackground(paused=False, runs=False))

    def stop(self) -> None:
        """Cancel: no background LLM work until the person starts it again."""
        self._save(llm_upgrade_when_idle=False)

    def start(self) -> None:
        self._save(llm_upgrade_when_idle=True, llm_upgrade_paused=False)

    def run_now(self) -> None:
        self._send(wire.UpgradeNow())

    def _save(self, **values) -> None:
        self._send(wire.ChangeSettings(values=values))

    # -- what waits -----------------------------------------------------------------------------------------

    def count_waiting(self) -> None:
        if self._counting:
            self._count_again = True  # a count begun earlier may have read the catalog before the change
            return
        self._counting, self._count_again, self._counted_at = True, False, self._clock()

        def counted(numbers) -> None:
            self._counting = False
            if self._count_again:
                self.count_waiting()
                return
            self.waiting, self.seconds_per_chunk = numbers
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
        settings = self.library.settings
        if not self.waiting:
            return "LLM contexts: none waiting." + ("" if settings.llm_upgrade_when_idle
                                                   else " Background LLM contexts are off.")
        what = f"{self.waiting:,} passages wait for the language model's contexts"
        if self.read_only:
            return f"{what} · this library is read-only: none are written here"
        if self.seconds_per_chunk:  # from its recent pace; until it has one, no guess
            what += f" (about {duration_words(self.waiting * self.seconds_per_chunk)} of its work at its recent pace)"
        if self.status.get("doing") == WRITING:
            return f"{what} · writing now"
        if settings.contexts != "auto" and not self.status.get("asked_now"):
            return f"{what} · contexts are {settings.contexts} in Settings; “Write LLM contexts now” writes them anyway"
        if not settings.llm_upgrade_when_idle:
            return f"{what} · background LLM contexts are off"
        if settings.llm_upgrade_paused:
            return f"{what} · paused until you resume"
        if self.status.get("doing") in WORK_IN_PROGRESS:
            return f"{what} · after the work in progress"
        reason = self.status.get("upgrade_reason")
        if self.status.get("upgrade_may_run"):
            return f"{what} · starting in a moment"
        return f"{what} · {reason}" if reason else what

    @property
    def action(self) -> str | None:
        """The background button: "Resume", "Start", "Pause", or None while a step shows (the panel's own Pause
        and Cancel act on it then) or while contexts other than `auto` keep it from running at all."""
        settings = self.library.settings
        if self.read_only or self.control is not None:
            return None
        if settings.contexts != "auto" and not self.status.get("asked_now"):
            return None
        if settings.llm_upgrade_paused:
            return "Resume"
        if not settings.llm_upgrade_when_idle:
            return "Start"
        return "Pause"

    def act(self) -> None:
        if self.action is not None:
            {"Resume": self.resume, "Start": self.start, "Pause": self.pause}[self.action]()
