"""`desktop-rag watch` and `service` (cli_service.py): catch up with what changed while nobody watched, then follow
the folders until Ctrl-C or `desktop-rag stop`."""

from __future__ import annotations

import json
import signal
import sys
import time
from dataclasses import asdict
from pathlib import Path

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from desktop_rag.cli_output import ProgressPrinter, print_index_summary
from desktop_rag.core.progress.control import RunControl
from desktop_rag.errors import BadInput

if TYPE_CHECKING:
    from desktop_rag.core.watching.watch import FolderWatcher
    from desktop_rag.service.activity import LaneActivity


def watch(library, lane, paths: list[Path], upgrade: bool | None, as_json: bool, catch_up: RunControl,
          on_watching: Callable[[FolderWatcher], None] = lambda watcher: None, any_folders: bool = False,
          activity: LaneActivity | None = None, run_catch_up: Callable[..., Any] | None = None) -> int:
    """`lane`: the process's WriteLane (core/runs/lane.py), which the local endpoint's runs also go to; `catch_up`:
    what cuts the catch-up short (a stop); `on_watching(watcher)` once it watches; `any_folders`: none is fine (the
    service waits for the first folder indexed through it); `activity`: told how far the catch-up got (the tray
    shows it); `run_catch_up(folders, report, control)`: how the catch-up runs (the service: as a run its clients
    follow; default: library.index)."""
    from desktop_rag.core.watching.watch import feeding

    folders = [p.expanduser().resolve() for p in paths] or [Path(f) for f in library.reads.folders()]
    not_folders = [str(f) for f in folders if not f.is_dir()]
    if (not folders and not any_folders) or not_folders:
        raise BadInput(f"not a folder: {', '.join(not_folders)}" if not_folders else
                         "nothing to watch: give folders, or index some first")
    # --upgrade asks for it now (whatever the machine does); --no-upgrade never; the default follows the schedule.
    lane.upgrade = {True: "now", False: "never", None: "scheduled"}[upgrade]
    lane.on_batch = lambda batch, s: _report(s, as_json, "change")
    lane.on_upgrade = lambda u: _report_upgrade(u, as_json)
    lane.on_error = lambda sentence: _report_error(sentence, as_json)

    def stop_on_ctrl_c(signum, frame):
        # Not KeyboardInterrupt: raised while llama.cpp computes, it would be lost inside the model's abort
        # callback. The loop ends within a second instead (the model's call is cut short); a second Ctrl-C is
        # Python's own.
        signal.signal(signal.SIGINT, signal.default_int_handler)
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
                # The reconciliation scan: unchanged files cost a stat each, moved ones are recognised by content.
                printer = ProgressPrinter(sys.stderr)

                def report(progress) -> None:
                    printer(progress)
                    if activity is not None:
                        activity.catching_up(progress)

                if activity is not None:
                    activity.catching_up()
                try:
                    if run_catch_up is not None:
                        summary = run_catch_up(folders, report, catch_up)
                    else:
                        summary = library.index(folders, on_progress=report, control=catch_up)
                finally:
                    if activity is not None:
                        activity.caught_up()
                _report(summary, as_json, "catch-up")
            if as_json:
                print(json.dumps({"event": "watching", "folders": [str(f) for f in folders]}), flush=True)
            print(f"Watching {len(folders)} folder(s); Ctrl-C stops.", file=sys.stderr, flush=True)
            lane.run()
    except KeyboardInterrupt:  # Ctrl-C in the catch-up, or the second one; what was applied is saved
        pass
    finally:
        signal.signal(signal.SIGINT, previous)
    print("Stopped watching.", file=sys.stderr)
    return 0


def _report(summary, as_json: bool, kind: str) -> None:
    if as_json:
        print(json.dumps({"event": kind, **asdict(summary)}), flush=True)
        return
    if kind == "catch-up":
        print_index_summary(summary, sys.stdout)
    else:
        parts = summary.change_words() + ([f"{len(summary.busy)} still being written"] if summary.busy else [])
        print(f"{time.strftime('%H:%M:%S')}  {', '.join(parts) or 'nothing changed'} ({summary.seconds:.1f} s)")
        for failure in summary.failed:
            print(f"  {failure.path}: {failure.reason}")
    sys.stdout.flush()


def _report_upgrade(summary, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"event": "upgrade", **asdict(summary)}), flush=True)
    else:
        print(f"{time.strftime('%H:%M:%S')}  LLM contexts: {summary.upgraded_chunks} upgraded, "
              f"{summary.kept_rules} kept rules", flush=True)


def _report_error(sentence: str, as_json: bool) -> None:
    """What failed in the lane (a batch kept for a retry, a run, the upgrade); watching goes on."""
    if as_json:
        print(json.dumps({"event": "error", "message": sentence}), flush=True)
    else:
        print(f"{time.strftime('%H:%M:%S')}  {sentence}", file=sys.stderr, flush=True)
