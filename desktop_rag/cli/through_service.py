"""The process that keeps a data folder's index fresh in the background (issue 40): `desktop-rag service` follows
every folder indexed so far (and those indexed through it later), applies their changes, writes LLM contexts by the
schedule, and answers the window, `search`, `stats` and `mcp` through the local endpoint, on one write lane.
`watch` is the same for the folders it is given; `desktop-rag stop` ends whichever answers for the data folder;
`desktop-rag quick` opens the quick-search popup the service answers.
"""

from __future__ import annotations

import json
import signal
from dataclasses import asdict
import sys
import time
from pathlib import Path

from desktop_rag.cli.writes import raise_keyboard_interrupt
from desktop_rag.errors import DataFolderBusy
from desktop_rag.service import wire

def cmd_watch(args, data_dir: Path) -> int:
    return _follow(data_dir, args.paths, args.upgrade, args.json, "watch")


def cmd_service(args, data_dir: Path) -> int:
    from desktop_rag.service.service_mark import hold_the_service_mark

    mark = hold_the_service_mark(data_dir)  # (taken as the process began: desktop_rag/__main__.py)
    if mark is None:
        raise DataFolderBusy(f"another desktop-rag service already answers for {data_dir}: "
                             "`desktop-rag stop` ends it")
    with mark:
        return _follow(data_dir, [], None, args.json, "service",
                       rebuild_damaged=getattr(args, "rebuild_damaged_catalog", False))


def _follow(data_dir: Path, paths: list[Path], upgrade: bool | None, as_json: bool, role: str,
            rebuild_damaged: bool = False) -> int:
    from desktop_rag.cli.watch_command import terminal_reports
    from desktop_rag.service.writer_process import follow_folders

    terminate_as_interrupt()
    return follow_folders(data_dir, paths, upgrade, role, terminal_reports(as_json), rebuild_damaged)


def cmd_stop(args, data_dir: Path) -> int:
    """Ends the process answering for the data folder (the service, `watch`, `serve`): what it applied is kept."""
    from desktop_rag.service.background_process import stop_answering

    started = time.monotonic()
    stopped = stop_answering(data_dir)  # (it waits STOP_WAIT_S for the process to be gone)
    if stopped is None:
        print(f"Nothing answers for {data_dir}: no desktop-rag service is running for it.", file=sys.stderr)
    else:
        print(f"Stopped {stopped} in {time.monotonic() - started:.1f} s.", file=sys.stderr)
    return 0


def cmd_status(args, data_dir: Path) -> int:
    """The service's one state (service/activity.py) in its own words, as the tray and the window show it; it
    starts nothing. Exit status 0 when a process answers, 3 when none does (for scripts)."""
    from desktop_rag.service.background_process import service_starting
    from desktop_rag.service.endpoint import EndpointClient, EndpointGone

    client = EndpointClient.for_library(data_dir)
    state = None
    if client is not None:
        try:
            state = client.run(wire.Status())
        except EndpointGone:  # (it went as it was asked: said as nothing answering)
            pass
        finally:
            client.close()
    if state is None:
        words = ("Starting: the background service has begun and does not answer yet" if service_starting(data_dir)
                 else f"Not running: nothing answers for {data_dir} (the window, or `desktop-rag service`, starts "
                 "it)")
        print(json.dumps({"doing": "not running", "words": words}, ensure_ascii=False) if args.json else words)
        return 3
    print(json.dumps(state, ensure_ascii=False) if args.json else state["words"])
    return 0


def index_through_service(args, data_dir: Path) -> int | None:
    """`desktop-rag index` while a service (or `watch`, or `serve`) answers for the data folder: the run is its,
    followed here until it ends (it holds the data folder, so a run of this process's own would be refused);
    None when nothing answers, or with `--local`. Ctrl-C leaves the run to it."""
    from desktop_rag.cli.output import print_index_summary
    from desktop_rag.cli.writes import follow_run, the_service
    from desktop_rag.core.indexing.report import IndexSummary
    from desktop_rag.service.endpoint import EndpointGone

    client = the_service(args, data_dir)
    if client is None:
        return None
    try:
        started = client.run(wire.Index(paths=[str(p.expanduser().resolve()) for p in args.paths],
                                        contexts=args.contexts))
        print(f"Indexing in {started['served_by']}…", file=sys.stderr, flush=True)
        state = follow_run(client, started["run_id"], cancel_on_interrupt=False)
        if state["state"] == "cancelled" and client.run(wire.SayHello())["stopping"]:
            raise EndpointGone("stopping")  # its stop cut the run short, told before it went (a race, in the suite)
    except KeyboardInterrupt:
        print("Stopped following: the run goes on in the background.", file=sys.stderr)
        return 0
    except EndpointGone:
        print("The service stopped before the run ended; what it finished is kept, and the next start of the "
              "service (the window opens it) goes on with the rest.", file=sys.stderr)
        return 1
    finally:
        client.close()
    if (result := state["result"]) is None:  # it failed: nothing was summed up
        print(state["error"] or state["state"], file=sys.stderr)
        return 1
    summary = IndexSummary.from_dict(result)
    if args.json:  # the shape of a run of this process's own
        print(json.dumps(asdict(summary), indent=2))
    else:
        print_index_summary(summary, sys.stdout)
    return 0 if state["state"] == "finished" else 130


def change_through_the_service(data_dir: Path, values: dict) -> wire.SettingsChanged | None:
    """Settings changed by the process that answers for the data folder, or None when none answers."""
    from desktop_rag.service.endpoint import EndpointClient, EndpointGone

    client = EndpointClient.for_library(data_dir)
    if client is None:
        return None
    try:
        return client.run(wire.ChangeSettings(values=values))
    except EndpointGone:  # it stopped meanwhile: the file is changed here
        return None
    finally:
        client.close()


def cmd_quick(args, data_dir: Path) -> int:
    """The quick-search popup (ui/quick_search.py), answered by the service (started if none runs)."""
    from desktop_rag.ui.quick_search import run_quick

    return run_quick(data_dir)


def cmd_tray(args, data_dir: Path) -> int:
    """The tray icon (ui/tray.py): what the window or the service is doing, Search…, Pause/Resume, Open, Quit."""
    from desktop_rag.ui.tray import run_tray

    code = run_tray(data_dir)
    if code is None:
        print("This desktop shows no tray icons: `desktop-rag quick` searches, `desktop-rag stop` stops the "
              "background service.", file=sys.stderr)
        return 1
    return code


def terminate_as_interrupt() -> None:
    # A plain `kill` should stop as cleanly as Ctrl-C: the transaction in flight rolls back, the rest is kept.
    signal.signal(signal.SIGTERM, raise_keyboard_interrupt)
