"""Who writes when: the one order in which the process writing a library (the service, `watch`, `serve`) writes.

0. A person's edits (a context written, approved, reverted, regenerated; a setting; a folder's mark): before
   anything else, and between the steps of a run in hand (its checkpoints): an edit waits for a step, not a run.
1. Change batches the folder watcher hands over (a saved file is searchable within seconds), also between two
   documents of a run in hand (issue 49).
2. Runs a person or an agent asked for (index, rebuild, repair, contextualize), one at a time.
3. At rest, the keyword index's segments merged (core/runs/rest_merge.py).
4. The LLM upgrade of rules contexts, one document at a time, when the schedule allows (core/runs/schedule.py:
   `auto`, not paused or off, idle, on mains, the hourly cap) and nothing else has arrived for MAKE_WAY_S.

Anything of 1 or 2 arriving makes way: the model's call in hand is cut short (what is finished is kept) and the
upgrade starts again MAKE_WAY_S after the last of them has arrived and ended. The model's memory is given back
RELEASE_MODEL_AFTER_S after its last use, whatever used it (desktop_rag/use_clock.py), or at once when nothing is
left to upgrade; so is the document reader's child. `UpgradeTurn` (upgrade_turn.py) holds those rules without
threads; `WriteLane` is the order itself, on a thread.

What fails in the lane does not end it (issue 39): a batch, a run or an upgrade that raises is logged once, told to
the front end (`on_error`), and the lane goes on; a failed batch is kept and tried again after RETRY_FIRST_S,
doubling up to RETRY_MAX_S while it keeps failing (a full disk, a locked file), and the upgrade waits as long.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
import time
from concurrent.futures import Future
from typing import Any, TYPE_CHECKING, TypeVar
from collections.abc import Callable

from desktop_rag.core.indexing.upgrade import UpgradeSummary
from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.runs.edit_queue import EditQueue
from desktop_rag.core.runs.rest_merge import RestMerge
from desktop_rag.core.runs.schedule import BackgroundSchedule, Decision
from desktop_rag.core.progress.pacing import (MAKE_WAY_S, RELEASE_MODEL_AFTER_S, RETRY_FIRST_S, RETRY_MAX_S,
                                             SCHEDULE_CHECK_S)
from desktop_rag.core.runs.upgrade_turn import UpgradeTurn
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.errors import user_message
from desktop_rag.logs import SHOWN

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library

log = logging.getLogger(__name__)

T = TypeVar("T")


class WriteLane:
    """The order above on one thread: `watch` runs it on its main thread, `serve` on a thread of its own.

    `upgrade`: "scheduled" (when the schedule allows), "now" (whatever the machine does: `watch --upgrade`) or
    "never". `on_batch(batch, summary)` and `on_upgrade(summary)` report what was done, `on_error(sentence)` what
    failed and what the lane does about it (without it, the log's terminal line is all a person sees)."""

    def __init__(self, library: Library, upgrade: str = "scheduled",
                 on_batch: Callable[[ChangeBatch, Any], None] = lambda batch, summary: None,
                 on_upgrade: Callable[[UpgradeSummary], None] = lambda summary: None,
                 on_error: Callable[[str], None] | None = None,
                 make_way_s: float = MAKE_WAY_S, clock: Callable[[], float] = time.monotonic,
                 schedule: BackgroundSchedule | None = None):
        self.library = library
        self.upgrade = upgrade
        self.turn = UpgradeTurn(schedule or BackgroundSchedule(library.settings), clock=clock, make_way_s=make_way_s)
        self.on_batch, self.on_upgrade, self.on_error = on_batch, on_upgrade, on_error
        # The app's panel follows each step of the upgrade (one document): its start with the control that Pause
        # and Cancel act on, its progress, and its end (the summary, even of an empty or cut-short step; None:
        # it failed, and on_error says why). None: not followed (`watch`, the service).
        self.on_upgrade_started: Callable[[RunControl], None] | None = None
        self.upgrade_progress: Callable[[Any], None] | None = None
        self.on_upgrade_step: Callable[[UpgradeSummary | None], None] | None = None
        self._clock = clock
        self._failed_batch: ChangeBatch | None = None  # kept for a retry at _retry_at
        self._retry_at = 0.0
        self._retry_after_s = RETRY_FIRST_S
        self._upgrade_after = 0.0  # after a failed upgrade: not before then
        self._upgrade_retry_s = RETRY_FIRST_S
        self.watcher = None  # a FolderWatcher feeding add_changes: told which files to look at again
        # After how long unused the embedding model's child ends (the background service, at rest); None: kept.
        self.release_embedder_after: float | None = None
        self.stop_requested = threading.Event()
        self._batches: queue.Queue[ChangeBatch] = queue.Queue()
        self._runs: queue.Queue[Callable[[], None]] = queue.Queue()
        self._edits = EditQueue()
        self.asked_now = False  # "Write LLM contexts now": until nothing waits, whatever the machine does
        # What every write the lane applies changed (batches, upgrade steps; edits and runs are reported by who
        # asked for them): the service's event stream (service/events.py). None: nobody follows.
        self.on_changes: Callable[[Any], None] | None = None
        self.on_failure: Callable[[str], None] | None = None  # and what failed (on_error is the front end's)
        self.on_applied: Callable[[Any], None] | None = None  # and each batch's summary (the window's status line)
        self._wake = threading.Event()
        self._nothing_to_upgrade = False  # until an upgrade finds nothing to do
        self.decision = Decision(False, "starting")  # the schedule's last word on the upgrade
        self.doing: str | None = None  # "changes", "run" or "upgrade" while the lane does it (the tray shows it)
        self._batch_control, self._applying = RunControl(), False  # of the batch in hand (whose steps apply none)
        self._thread: threading.Thread | None = None
        self.rest_merge = RestMerge(library, self.serve_edits, self._apply_batches, self._failed)

    # -- from any thread --------------------------------------------------------------------------------------

    def add_changes(self, batch: ChangeBatch) -> None:
        self._batches.put(batch)
        self._arrived()

    def edit(self, work: Callable[[], T]) -> Future[T]:
        """A person's write, before everything else (see the order above); its result or exception in the
        Future. The upgrade's step in hand is cut short for it."""
        future = self._edits.put(work)
        self._arrived()
        return future

    def serve_edits(self) -> None:  # on the lane's thread: its loop, and a run's checkpoints (between_steps)
        self._edits.serve()
        self.library.use_notes.write_waiting(self.library.catalog)  # (no second connection writes: issue 62)

    def apply_changes_waiting(self) -> None:
        """At a run's checkpoint between two documents (RunControl's between_documents), on the lane's thread:
        the file changes waiting — a file saved during a first run of minutes is searchable by its words in
        seconds, not when the run ends (issue 49: 19 minutes later); the run embeds it with the rest."""
        if not self._applying and not self.stop_requested.is_set():
            self._apply_batches(within_run=True)

    def ask_now(self) -> None:
        """"Write LLM contexts now": the upgrade runs whatever the machine does, until nothing waits."""
        self.asked_now = True
        self.turn.forget_made_way()
        self.wake_upgrade()

    def note_input(self) -> None:
        """The person used a window of ours: with "only when idle" the upgrade stops at once."""
        self.turn.schedule.note_input()
        if self.library.settings.llm_only_when_idle and not self._asked():
            self.turn.stop()

    def settings_changed(self) -> None:
        """Paused or turned off: the step in hand stops; otherwise the upgrade looks again at once."""
        settings = self.library.settings
        if settings.llm_upgrade_paused or not settings.llm_upgrade_when_idle:
            self.asked_now = self.asked_now and settings.llm_upgrade_paused  # kept for Resume, dropped by Off
            self.turn.stop()
        self.wake_upgrade()

    def _asked(self) -> bool:
        return self.upgrade == "now" or self.asked_now

    def submit(self, work: Callable[[], None]) -> None:
        """A person's or an agent's run: after the batches waiting, before the upgrade."""
        self._runs.put(work)
        self._arrived()

    def stop(self) -> None:
        """The loop ends, an upgrade or a batch in hand is cut short (what it finished is kept)."""
        self.stop_requested.set()
        self.turn.stop()
        self._batch_control.cancel()
        self.rest_merge.cancel()
        self._wake.set()
        self._edits.cancel_all()

    def wake_upgrade(self) -> None:
        """The settings or the person's wish changed (Resume, Start, "now"): the upgrade looks again at once,
        even if it found nothing to do before."""
        self._nothing_to_upgrade = False
        self._wake.set()

    def _arrived(self) -> None:
        self.turn.make_way()
        self.rest_merge.maybe_due = True
        self._nothing_to_upgrade = False  # new work may leave rules contexts to upgrade
        self._wake.set()

    # -- the loop ---------------------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="desktop-rag writes", daemon=True)
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self) -> None:
        """Until stop() (or KeyboardInterrupt)."""
        while not self.stop_requested.is_set():
            self._wake.wait(0.2)
            self._wake.clear()
            if self.stop_requested.is_set():
                return
            self.serve_edits()
            if self._apply_batches() or self._carry_out_run():
                continue
            if self.turn.rested() and self.rest_merge.run_if_due():
                continue
            if self._may_upgrade():
                self._upgrade_one()
            else:
                self.library.release_unused(RELEASE_MODEL_AFTER_S, self.release_embedder_after)

    def _apply_batches(self, within_run: bool = False) -> bool:
        batch = ChangeBatch()
        while not self._batches.empty():  # what piled up while the last one was applied: one batch
            batch.merge(self._batches.get_nowait())
        failed = self._failed_batch
        retrying = not batch and failed is not None and self._clock() >= self._retry_at
        if retrying and failed is not None:
            batch, self._failed_batch = failed, None
        if not batch:
            return False
        doing, self.doing, self._applying = self.doing, "changes", True
        self._batch_control = RunControl()  # stop() cuts the batch in hand short: the next start's scan does the rest
        if self.stop_requested.is_set():
            self._batch_control.cancel()
        try:
            summary = self.library.apply_changes(batch, control=self._batch_control, within_run=within_run)
        except Exception as exc:  # noqa: BLE001 — the batch is kept and tried again; the lane goes on
            if self._cut_short_by_stopping("a change batch", exc):
                return True
            self._keep_for_retry(batch, exc, retrying)
            return True
        finally:
            self.doing, self._applying = doing, False
        if retrying:
            self._retry_after_s = RETRY_FIRST_S
        self.turn.make_way()  # the upgrade waits MAKE_WAY_S from the end of the last write too
        if self.watcher is not None and summary.busy:
            self.watcher.retry_later(summary.busy)
        self._report(lambda: self.on_batch(batch, summary))
        if (applied := self.on_applied) is not None:
            self._report(lambda: applied(summary))
        self._tell_changes(summary.changes)
        self._wake.set()  # go on with what else waits
        return True

    def _keep_for_retry(self, batch: ChangeBatch, exc: Exception, retrying: bool) -> None:
        if self._failed_batch is not None:
            batch.merge(self._failed_batch)
        self._failed_batch = batch
        if retrying:
            self._retry_after_s = min(self._retry_after_s * 2, RETRY_MAX_S)
        self._retry_at = self._clock() + self._retry_after_s
        self._failed(f"Applying {len(batch)} file change(s) failed; trying again in {self._retry_after_s:.0f} s",
                     exc)

    def _carry_out_run(self) -> bool:
        try:
            work = self._runs.get_nowait()
        except queue.Empty:
            return False
        self.doing = "run"
        try:
            work()
        except Exception as exc:  # noqa: BLE001 — one run's failure is not the lane's
            if not self._cut_short_by_stopping("a run", exc):
                self._failed("A run failed", exc)
        finally:
            self.doing = None
            self.turn.make_way()  # (the person reads the run's end before the upgrade takes the panel)
        self._wake.set()
        return True

    def _cut_short_by_stopping(self, what: str, exc: Exception) -> bool:
        """A step that failed because the lane stops (the app quits and ends the children it waited on) is no
        error: what it finished is kept and the next start redoes the rest."""
        if not self.stop_requested.is_set():
            return False
        log.info("%s was cut short by stopping (%s); the next start redoes it", what, exc)
        return True

    def _failed(self, what: str, exc: Exception) -> None:
        """Logged once with its traceback; the front end gets the sentence (a person's words when there are)."""
        sentence = f"{what}: {user_message(exc) or f'internal error ({exc!r})'}"
        tell, also = self.on_error, self.on_failure
        log.error("%s", sentence, exc_info=exc, extra=SHOWN if tell else None)
        for told in (tell, also):
            if told is not None:
                self._report(functools.partial(told, sentence))

    def _tell_changes(self, changes) -> None:
        tell = self.on_changes
        if tell is not None and changes:
            self._report(lambda: tell(changes))

    def _report(self, tell: Callable[[], None]) -> None:
        try:
            tell()
        except Exception:
            log.exception("reporting to the front end failed")

    def _may_upgrade(self) -> bool:
        if self._nothing_to_upgrade or self.upgrade == "never" or self._clock() < self._upgrade_after:
            return False
        self.decision = self.turn.decide(asked_now=self._asked())
        return self.turn.may_start(self.decision, writes_waiting=False, something_waits=True)

    def _upgrade_one(self) -> None:
        control = self.turn.started()
        if not self._batches.empty() or not self._runs.empty() or self.stop_requested.is_set():
            control.cancel()  # arrived just before the upgrade could be told
        done = threading.Event()
        holding = threading.Thread(target=self._hold_to_schedule, args=(control, done), daemon=True)
        holding.start()
        self.doing = "upgrade"
        if self.on_upgrade_started is not None:
            started = self.on_upgrade_started
            self._report(lambda: started(control))
        try:
            upgraded = self.library.upgrade_contexts(limit=1, control=control, on_progress=self.upgrade_progress)
        except Exception as exc:  # noqa: BLE001 — the upgrade waits and tries again; the writes go on
            if self._cut_short_by_stopping("an LLM upgrade step", exc):
                self._step_ended(None)
                return
            self._failed(f"Writing LLM contexts failed; trying again in {self._upgrade_retry_s:.0f} s", exc)
            self._upgrade_after = self._clock() + self._upgrade_retry_s
            self._upgrade_retry_s = min(self._upgrade_retry_s * 2, RETRY_MAX_S)
            self._step_ended(None)
            return
        finally:
            self.doing = None
            self.turn.ended(control)
            done.set()
            holding.join()
        self._upgrade_retry_s = RETRY_FIRST_S
        self.rest_merge.maybe_due = True
        # No progress (nothing left, or no usable model): wait for the next change before trying again.
        self._nothing_to_upgrade = upgraded.upgraded_chunks == 0 and not upgraded.cancelled
        if self._nothing_to_upgrade:
            self.asked_now = False
            self.library.release_llm_model()
        if upgraded.documents:
            self._report(lambda: self.on_upgrade(upgraded))
            self._tell_changes(upgraded.changes)
        self._step_ended(upgraded)
        self._wake.set()

    def _step_ended(self, upgraded: UpgradeSummary | None) -> None:
        if self.on_upgrade_step is not None:
            ended = self.on_upgrade_step
            self._report(lambda: ended(upgraded))

    def _hold_to_schedule(self, control: RunControl, done: threading.Event) -> None:
        """While the upgrade runs: the person comes back, the laptop goes on battery, the cap is reached → stop."""
        while not done.wait(SCHEDULE_CHECK_S):
            if not self.turn.decide(asked_now=self._asked()).may_run:
                control.cancel()
                return
