"""The process that keeps a data folder's index fresh in the background (issue 40): `desktop-rag service` follows
every folder indexed so far (and those indexed through it later), applies their changes, writes LLM contexts by the
schedule, and answers the window, `search`, `stats` and `mcp` through the local endpoint, on one write lane.
`watch` is the same for the folders it is given; `desktop-rag stop` ends whichever answers for the data folder;
`desktop-rag quick` opens the quick-search popup the service answers.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

from desktop_rag.errors import DataFolderBusy

# After a few minutes with nothing to do the service lets go of the embedding model's child (242 MB) and of the
# vector store's index (~220 MB at 105k chunks): a search after that waits ~1.1 s for them (bench/idle_service.py),
# none when the quick popup asked the service to prepare as it opened.
RELEASE_EMBEDDER_AFTER_S = 180.0
# How long a starting service waits for a process letting go of the data folder (the previous service ending, which
# closes its socket before its library; a `--local` command finishing its step).
LETS_GO_WAIT_S = 15.0


def cmd_watch(args, data_dir: Path) -> int:
    return _follow(data_dir, args.paths, args.upgrade, args.json, "watch")


def cmd_service(args, data_dir: Path) -> int:
    from desktop_rag.service.background_process import hold_the_service_mark

    mark = hold_the_service_mark(data_dir)  # before the seconds of loading: a front end opening meanwhile waits
    if mark is None:
        raise DataFolderBusy(f"another desktop-rag service already answers for {data_dir}: "
                             "`desktop-rag stop` ends it")
    with mark:
        return _follow(data_dir, [], None, args.json, "service")


def _follow(data_dir: Path, paths: list[Path], upgrade: bool | None, as_json: bool, role: str) -> int:
    from desktop_rag.cli_watch import watch
    from desktop_rag.core.library import Library
    from desktop_rag.core.progress.control import RunControl
    from desktop_rag.core.runs.lane import WriteLane
    from desktop_rag.platform.processes import lower_priority
    from desktop_rag.service.activity import LaneActivity
    from desktop_rag.service.host import LibraryHost

    terminate_as_interrupt()
    if role == "service":
        lower_priority()  # background work: the catch-up and the upgrade give way to the person's programs
    # Models, the reader and the vector store each in a child process that ends when unused for a minute
    # (use_clock.py), as in the app: the service waits most of the time, and a child gives its memory back.
    with Library(data_dir, child_processes=True) as library:
        lane = WriteLane(library)  # the batches, an agent's runs and the upgrade, in that order, on this thread
        if role == "service":
            lane.release_embedder_after = RELEASE_EMBEDDER_AFTER_S
        catch_up = RunControl()  # the catch-up a stop cuts short: what it finished is kept
        catch_up.between_steps = lane.serve_edits  # a person's edit waits for a step of it, not for all of it

        def stop() -> None:  # within 2 s whatever runs: a run in hand is cut short (what it finished is kept)
            catch_up.cancel()
            if host.queue is not None:
                host.queue.cancel(None)
            lane.stop()

        host = LibraryHost(library, f"desktop-rag {role} (process {os.getpid()})", lane=lane, on_stop=stop,
                           role=role)
        activity = host.tools.activity = LaneActivity(lane, host.runs, library)
        if role == "service" and not _take_the_data_folder(host, library, data_dir):
            raise DataFolderBusy(f"another desktop-rag process already answers for {data_dir}: "
                                 "`desktop-rag stop` ends it")
        if role == "watch":
            host.start()  # search, stats and mcp from other processes are answered here while it watches

        def follow_new_folders(watcher) -> None:  # a folder indexed through the endpoint is watched from its run on
            host.after_run = lambda: watcher.set_folders(Path(f) for f in library.reads.folders())
            host.before_run = lambda paths: watcher.set_folders(
                [*(Path(f) for f in library.reads.folders()), *paths])

        def run_catch_up(folders, report, control):  # a run every client follows, as the ones asked for
            assert host.queue is not None
            return host.queue.carry_out_here([str(f) for f in folders], library.settings.contexts, control,
                                             "catch-up", also_report=report)

        try:
            return watch(library, lane, paths, upgrade, as_json, catch_up, follow_new_folders,
                         any_folders=role == "service", activity=activity, run_catch_up=run_catch_up)
        finally:
            host.stop()


def _take_the_data_folder(host, library, data_dir: Path) -> bool:
    """Answer for the data folder and hold its writer's lock; a process letting go of them may hold them for a
    moment more: wait that long, not fail."""
    deadline = time.monotonic() + LETS_GO_WAIT_S
    while not host.start():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
    while True:
        try:
            library.writer.claim()
            return True
        except DataFolderBusy:
            if time.monotonic() >= deadline:
                host.stop()
                raise
            time.sleep(0.2)


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


def index_through_service(args, data_dir: Path) -> int | None:
    """`desktop-rag index` while a service (or `watch`, or the app) answers for the data folder: the run is its,
    followed here until it ends (it holds the data folder, so a run of this process's own would be refused);
    None when nothing answers. Ctrl-C leaves the run to it."""
    from desktop_rag.service.endpoint import EndpointClient

    client = EndpointClient.for_library(data_dir)
    if client is None:
        return None
    try:
        started = client.call("index", paths=[str(p.expanduser().resolve()) for p in args.paths],
                              contexts=args.contexts)
        print(f"Indexing in {started['served_by']}…", file=sys.stderr, flush=True)
        shown = None
        while (state := client.call("progress", run_id=started["run_id"]))["state"] in ("queued", "running"):
            line = _progress_line(state)
            if line != shown:
                print(line, file=sys.stderr, flush=True)
                shown = line
            time.sleep(0.5)
    except KeyboardInterrupt:
        print("Stopped following: the run goes on in the background.", file=sys.stderr)
        return 0
    finally:
        client.close()
    if args.json:
        print(json.dumps(state, indent=2))
    else:
        print(state.get("summary") or state.get("error") or state["state"])
        for error in state.get("errors") or []:
            print(f"  {error['path']}: {error['reason']}")
    return 0 if state["state"] == "finished" else 1


def _progress_line(state: dict) -> str:
    share = f"{state['share_done']:.0%}" if state.get("share_done") is not None else state["state"]
    return f"  {share} {state.get('current') or ''}".rstrip()


def change_through_the_service(data_dir: Path, values: dict) -> dict | None:
    """Settings changed by the process that answers for the data folder, or None when none answers."""
    from desktop_rag.service.endpoint import EndpointClient, EndpointGone

    client = EndpointClient.for_library(data_dir)
    if client is None:
        return None
    try:
        return client.call("change_settings", values=values)
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


def raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt
