"""Indexing runs asked for by agents and scripts: started at once with an id, followed by progress, one at a time
(the library has one writer), the next ones queued."""

from __future__ import annotations

import itertools
import logging
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import cast

from desktop_rag.core.indexing.changes import Changes
from desktop_rag.core.indexing.report import PHASES, WORK_ON_NO_FILE, IndexSummary, Progress
from desktop_rag.core.progress.control import RunControl
from desktop_rag.service.answers import RunProgress

log = logging.getLogger(__name__)

# Finished runs remembered for get_reindexing_progress: enough for a session of an agent's work.
_KEPT_RUNS = 50
# A running run's state is told to the clients following the events at most this often (its file in hand changes
# many times a second); a change of state, and what a step made searchable, are told at once.
_STATE_EVERY_S = 0.5
# A run in hand is never said to be done: its end (finished) says 1.0. Its estimate reached 0.996 with seven
# passages still to embed, told as "100%" (test_one_state.py, in CI's full suite).
SHARE_RUNNING_AT_MOST = 0.999
READING = ("parse", "contextualize", "ocr")  # the phases whose reports say how many passages reading has made


@dataclass
class RunState:
    run_id: str
    paths: list[str]
    contexts: str
    state: str = "queued"  # queued, running, finished, cancelled, failed
    # "index": files read, asked for; "catch-up": what changed while nobody watched, at the start; "rebuild": the
    # indexes made again from the catalog; "repair": doctor's; "upgrade": LLM contexts written (`contextualize`)
    kind: str = "index"
    queued_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None
    phases: dict[str, dict] = field(default_factory=dict)  # phase -> done, total, per_second
    share_done: float | None = None
    seconds_left: float | None = None
    left_told_at: float | None = None  # when the run last said its time left (time.time())
    current: str | None = None  # the file in hand, or what the run waits for
    errors: list[dict] = field(default_factory=list)  # {"path", "reason"}: files that could not be indexed
    paused: bool = False
    held: bool = False  # paused and stopped at a checkpoint: nothing moves until it is resumed
    summary: str | None = None  # the finished run in one sentence
    notices: list[str] = field(default_factory=list)  # what it noticed (an index rebuilt, a model missing)
    indexed: int | None = None
    error: str | None = None  # why a failed run failed
    result: dict | None = None  # a run's summary as its command prints it with --json (service/run_kinds.py)
    _first_seen: dict[str, tuple[float, int]] = field(default_factory=dict, repr=False)

    def as_dict(self) -> RunProgress:
        values = asdict(self)
        values.pop("_first_seen")
        return cast(RunProgress, values)


class RunRegistry:
    """Every run's state, fed by the run's progress reports; read from any thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._runs: dict[str, RunState] = {}
        self._ids = itertools.count(1)

    def new(self, paths: list[str], contexts: str, kind: str = "index") -> RunState:
        with self._lock:
            run = RunState(f"run-{int(time.time())}-{next(self._ids)}", paths, contexts, kind=kind)
            self._runs[run.run_id] = run
            for old in [r for r in self._runs.values() if r.finished_at][:-_KEPT_RUNS]:
                del self._runs[old.run_id]
            return run

    def started(self, run_id: str) -> None:
        with self._lock:
            run = self._runs[run_id]
            run.state, run.started_at = "running", time.time()

    def reporter(self, run_id: str) -> Callable[[Progress], None]:
        """A run's on_progress: phases with counts and rates, the whole run's share done and time left."""

        def report(progress: Progress) -> None:
            with self._lock:
                run = self._runs[run_id]
                now = time.monotonic()
                first = run._first_seen.setdefault(progress.phase, (now, progress.done))
                elapsed = now - first[0]
                run.phases[progress.phase] = {
                    "done": progress.done, "total": progress.total,
                    "per_second": round((progress.done - first[1]) / elapsed, 2) if elapsed > 1 else None}
                embedding = run.phases.get("embed")
                if embedding is not None and progress.passages_made is not None and progress.phase in READING:
                    # What reading made since the embedding's last own report (which counts the catalog's).
                    embedding["total"] = max(embedding["done"], progress.passages_made)
                run.share_done = None if progress.overall is None else min(progress.overall, SHARE_RUNNING_AT_MOST)
                run.seconds_left = progress.seconds_left
                run.left_told_at = time.time()
                run.current = progress.note or progress.path or WORK_ON_NO_FILE.get(progress.phase, run.current)

        return report

    def finished(self, run_id: str, summary: IndexSummary | RunOutcome) -> None:
        with self._lock:
            run = self._runs[run_id]
            run.state = "cancelled" if summary.cancelled else "finished"
            run.finished_at = time.time()
            run.summary = summary.headline("Cancelled")
            run.notices = list(summary.notices)
            if isinstance(summary, IndexSummary):
                run.indexed = summary.indexed
                run.errors = [{"path": f.path, "reason": f.reason} for f in summary.failed]
                run.result = asdict(summary)  # `index --json` prints it as a run of its own would
            else:
                run.result = summary.result
            run.current, run.seconds_left = None, 0.0 if not summary.cancelled else None
            if not summary.cancelled:
                run.share_done = 1.0

    def failed(self, run_id: str, message: str) -> None:
        with self._lock:
            run = self._runs[run_id]
            run.state, run.finished_at, run.error, run.current = "failed", time.time(), message, None

    def get(self, run_id: str | None = None) -> RunState | None:
        """A run by id; without one, the one running, else the latest."""
        with self._lock:
            if run_id is not None:
                return self._runs.get(run_id)
            running = [r for r in self._runs.values() if r.state == "running"]
            return running[-1] if running else (list(self._runs.values())[-1] if self._runs else None)

    def active(self) -> list[RunProgress]:
        """The states of the runs queued or running, oldest first: what a client that just connected is shown."""
        with self._lock:
            return [r.as_dict() for r in self._runs.values() if r.state in ("queued", "running")]

    def state_of(self, run_id: str | None = None) -> RunProgress | None:
        run = self.get(run_id)
        if run is None:
            return None
        with self._lock:
            return run.as_dict()


def phases_in_order(phases: dict[str, dict]) -> dict[str, dict]:
    return {name: phases[name] for name in PHASES if name in phases}


@dataclass
class RunOutcome:
    """How a run that indexes no files ended (a rebuild, a repair, an upgrade): its sentence and its result."""
    sentence: str
    cancelled: bool = False
    notices: list[str] = field(default_factory=list)
    result: dict | None = None
    changes: Changes | None = None

    def headline(self, stopped: str = "Cancelled") -> str:
        return f"{stopped}: {self.sentence}" if self.cancelled else self.sentence


# A run's work: (report, control) -> how it ended; OutcomeWork: a run that indexes no files (service/run_kinds.py).
RunWork = Callable[[Callable[[Progress], None], RunControl], "IndexSummary | RunOutcome"]
OutcomeWork = Callable[[Callable[[Progress], None], RunControl], RunOutcome]
StateListener = Callable[[RunProgress, Changes | None], None]  # a run's state, and what its step made searchable


class RunQueue:
    """Runs this process carries out itself (`serve`, `watch`, the service, or `mcp` with no service running): on
    the process's write lane (core/runs/lane.py), after the change batches waiting and before the LLM upgrade.
    `run(paths, contexts, report, control)` does the work; `on_state(state, changes)` hears each run's state as it
    changes (the service's event stream)."""

    def __init__(self, registry: RunRegistry, lane, run: Callable[..., IndexSummary],
                 on_state: StateListener = lambda state, changes: None):
        self.registry = registry
        self._lane = lane
        self._run = run
        self._on_state = on_state
        self._controls: dict[str, RunControl] = {}  # of runs queued or running: what cancel() acts on
        self._telling = threading.Lock()

    def submit(self, paths: list[str], contexts: str) -> RunState:
        """An indexing run of these files and folders."""
        return self.submit_work("index", lambda report, control: self._run([Path(p) for p in paths], contexts,
                                                                          report, control), paths, contexts)

    def submit_work(self, kind: str, work: RunWork, paths: list[str] | None = None, contexts: str = "") -> RunState:
        """A run of another kind (a rebuild, a repair, an upgrade): queued, followed and cancelled as any."""
        run = self.registry.new(paths or [], contexts, kind)
        control = self._controls[run.run_id] = RunControl()
        self._wire(run, control)
        self._lane.submit(lambda: self._carry_out(run, control, work))
        self._tell(run.run_id)
        return run

    def cancel(self, run_id: str | None = None) -> list[str]:
        """Cancel a run (None: every run queued or running); what it finished is kept. Returns the ids."""
        chosen = [i for i in self._controls if run_id is None or i == run_id]
        for chosen_id in chosen:
            self._controls[chosen_id].cancel()
        return chosen

    def pause(self, run_id: str | None, paused: bool) -> list[str]:
        """Hold (or resume) a run (None: every one); a model's call in hand is cut short. Returns the ids."""
        chosen = [i for i in self._controls if run_id is None or i == run_id]
        for chosen_id in chosen:
            control = self._controls[chosen_id]
            control.pause() if paused else control.resume()
            run = self.registry.get(chosen_id)
            if run is not None:
                run.paused = paused
            self._tell(chosen_id)
        return chosen

    def pause_kind(self, kind: str, paused: bool) -> list[str]:
        """Hold (or resume) every run of a kind queued or running (the LLM's: "upgrade")."""
        chosen = [run_id for run_id in list(self._controls)
                  if (run := self.registry.get(run_id)) is not None and run.kind == kind]
        return [paused_id for run_id in chosen for paused_id in self.pause(run_id, paused)]

    def carry_out_here(self, paths: list[str], contexts: str, control: RunControl, kind: str,
                       also_report: Callable[[Progress], None] = lambda progress: None) -> IndexSummary:
        """A run on the calling thread (the service's catch-up, before its lane begins), registered and told as
        any run; its failure is raised to the caller after it is told."""
        run = self.registry.new(paths, contexts, kind)
        self._controls[run.run_id] = control
        self._wire(run, control)
        self._tell(run.run_id)

        def work(report: Callable[[Progress], None], control: RunControl) -> IndexSummary:
            return self._run([Path(p) for p in paths], contexts, report, control)

        summary = self._carry_out(run, control, work, raise_failure=True, also_report=also_report)
        return summary if isinstance(summary, IndexSummary) else IndexSummary()

    def _wire(self, run: RunState, control: RunControl) -> None:
        # A person's edit waits for a step, not for the run; a file saved meanwhile for a document.
        control.between_steps, control.between_documents = self._lane.serve_edits, self._lane.apply_changes_waiting

        def held(now: bool) -> None:
            run.held = now
            self._tell(run.run_id)

        control.on_held = held

    def _carry_out(self, run: RunState, control: RunControl, work: RunWork, raise_failure: bool = False,
                   also_report: Callable[[Progress], None] = lambda progress: None) -> IndexSummary | RunOutcome | None:
        try:
            if control.cancelled:  # cancelled while queued
                self.registry.finished(run.run_id, IndexSummary(cancelled=True))
                self._tell(run.run_id)
                return None
            self.registry.started(run.run_id)
            self._tell(run.run_id)
            report = self._reporter(run.run_id)

            def report_both(progress: Progress) -> None:
                report(progress)
                also_report(progress)

            summary = work(report_both, control)
        except Exception as exc:
            from desktop_rag.errors import user_message

            self.registry.failed(run.run_id, user_message(exc) or f"internal error ({exc.__class__.__name__}: "
                                                                   f"{exc})")
            self._tell(run.run_id)
            if raise_failure:
                raise
            return None
        finally:
            self._controls.pop(run.run_id, None)
        self.registry.finished(run.run_id, summary)
        self._tell(run.run_id, summary.changes)
        return summary

    def _reporter(self, run_id: str) -> Callable[[Progress], None]:
        """A run's reports into its state, told at most every _STATE_EVERY_S; a report left untold by that is told
        when the interval is over (the window showed a busy bar under "Catching up 48%" for as long as the run
        then went without a report: the state it had last heard was the listing's)."""
        report = self.registry.reporter(run_id)
        told_at = 0.0
        lock = threading.Lock()
        owed: threading.Timer | None = None

        def tell_owed() -> None:
            nonlocal told_at, owed
            with lock:
                owed, told_at = None, time.monotonic()
            self._tell(run_id, only_running=True)

        def report_and_tell(progress: Progress) -> None:
            nonlocal told_at, owed
            report(progress)
            now = time.monotonic()
            with lock:
                due = bool(progress.changes) or now - told_at >= _STATE_EVERY_S
                if due:
                    told_at = now
                    if owed is not None:
                        owed.cancel()
                        owed = None
                elif owed is None:
                    owed = threading.Timer(_STATE_EVERY_S - (now - told_at), tell_owed)
                    owed.daemon = True
                    owed.start()
            if due:
                self._tell(run_id, progress.changes)

        return report_and_tell

    def _tell(self, run_id: str, changes: Changes | None = None, only_running: bool = False) -> None:
        """A run's state as it is now, to the clients. Read and told under one lock: told from two threads (the
        run's, and the timer of a report left untold), a state read before the run ended was told after its end,
        and a client saw "running" last. `only_running`: told only if it still runs (the timer's)."""
        with self._telling:
            state = self.registry.state_of(run_id)
            if state is None or (only_running and state["state"] != "running"):
                return
            try:
                self._on_state(state, changes)
            except Exception:
                log.exception("telling a run's state failed")
