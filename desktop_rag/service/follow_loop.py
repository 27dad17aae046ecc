"""The loop of the process that writes a library while it follows folders (`desktop-rag service` and `watch`):
catch up with what changed while nobody watched, then apply each change as it comes, run what clients ask, and
write LLM contexts by the schedule, until a stop. What it does is told to `reports` (the CLI prints it)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_rag.core.progress.control import RunControl
from desktop_rag.errors import BadInput

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library
    from desktop_rag.core.runs.lane import WriteLane
    from desktop_rag.core.watching.watch import FolderWatcher
    from desktop_rag.service.activity import LaneActivity


def _ignore(*args) -> None:
    pass


@dataclass
class FollowReports:
    """What the loop tells the terminal it runs in (cli/watch_command.py prints it; nothing by default)."""
    catch_up_progress: Callable[[Any], None] = _ignore  # a Progress of the catch-up
    catch_up_done: Callable[[Any], None] = _ignore  # its IndexSummary
    batch: Callable[[Any], None] = _ignore  # a batch of file changes applied (its summary)
    upgrade: Callable[[Any], None] = _ignore  # a step of the LLM upgrade (its UpgradeSummary)
    error: Callable[[str], None] = _ignore  # what failed in the lane, in a sentence; the loop goes on
    watching: Callable[[list[Path]], None] = _ignore  # the folders followed, once the catch-up is over
    stopped: Callable[[], None] = _ignore


def follow(library: Library, lane: WriteLane, paths: list[Path], upgrade: bool | None, catch_up: RunControl,
           reports: FollowReports,
           on_watching: Callable[[FolderWatcher], None] = lambda watcher: None, any_folders: bool = False,
           activity: LaneActivity | None = None, run_catch_up: Callable[..., Any] | None = None,
           stop: Callable[[], None] | None = None) -> int:
    """`lane`: the process's WriteLane (core/runs/lane.py), which the local endpoint's runs also go to; `catch_up`:
    what cuts the catch-up short (a stop); `on_watching(watcher)` once it watches; `any_folders`: none is fine (the
    service waits for the first folder indexed through it); `activity`: told how far the catch-up got (the tray
    shows it); `run_catch_up(folders, report, control)`: how the catch-up runs (the service: as a run its clients
    follow; default: library.index); `stop`: what Ctrl-C or a plain kill does, as `desktop-rag stop` does it (the
    service's: its runs cut short and its 2 s deadline armed; default: the catch-up and the lane stopped)."""
    from desktop_rag.core.watching.watch import feeding

    folders = [p.expanduser().resolve() for p in paths] or [Path(f) for f in library.reads.folders()]
    not_folders = [str(f) for f in folders if not f.is_dir()]
    if (not folders and not any_folders) or not_folders:
        raise BadInput(f"not a folder: {', '.join(not_folders)}" if not_folders else
                       "nothing to watch: give folders, or index some first")
    # --upgrade asks for it now (whatever the machine does); --no-upgrade never; the default follows the schedule.
    lane.upgrade = {True: "now", False: "never", None: "scheduled"}[upgrade]
    lane.on_batch = lambda batch, summary: reports.batch(summary)
    lane.on_upgrade = reports.upgrade
    lane.on_error = reports.error

    def stop_on_ctrl_c(signum, frame):
        # Not KeyboardInterrupt: raised while llama.cpp computes, it would be lost inside the model's abort
        # callback. The loop ends within a second instead (the model's call is cut short); a second Ctrl-C is
        # Python's own.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        stopped()

    def stopped() -> None:
        if stop is not None:  # (under load a Ctrl-C took 15-23 s to end the process: issue 61, 8)
            stop()
            return
        catch_up.cancel()
        lane.stop()

    previous = signal.getsignal(signal.SIGINT)
    try:
        # Watched from before the catch-up: a file saved while it runs (a first run takes minutes) is a batch the
        # lane applies after it, not a change nobody sees until the next start (issue 37).
        with feeding(lane, folders) as watcher:
            on_watching(watcher)
            signal.signal(signal.SIGINT, stop_on_ctrl_c)
            if folders and not catch_up.cancelled:  # (a stop asked while starting: no catch-up to cut short)
                _catch_up(library, folders, catch_up, reports, activity, run_catch_up)
            reports.watching(folders)
            lane.run()
    except KeyboardInterrupt:  # Ctrl-C in the catch-up, the second one, or a plain kill; what was applied is saved
        stopped()
    finally:
        signal.signal(signal.SIGINT, previous)
    reports.stopped()
    return 0


def _catch_up(library: Library, folders: list[Path], control: RunControl, reports: FollowReports,
              activity: LaneActivity | None, run_catch_up: Callable[..., Any] | None) -> None:
    """The reconciliation scan: unchanged files cost a stat each, moved ones are recognised by content."""
    def report(progress) -> None:
        reports.catch_up_progress(progress)
        if activity is not None:
            activity.catching_up(progress)

    if activity is not None:
        activity.catching_up()
    try:
        if run_catch_up is not None:
            summary = run_catch_up(folders, report, control)
        else:
            summary = library.index(folders, on_progress=report, control=control)
    finally:
        if activity is not None:
            activity.caught_up()
    reports.catch_up_done(summary)
