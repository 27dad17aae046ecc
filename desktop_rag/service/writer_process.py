"""The processes that write a library (issue 49: one writer, every front end its client): the background service
and `watch`, which follow folders (service/follow_loop.py), and `serve`, which answers and runs what it is asked.
Each builds the library for writing, holds the writer's lock, answers at the local endpoint, and carries out every
write on one write lane (core/runs/lane.py). Outside this package only the CLI's `--local` path (cli/writes.py)
builds a library for writing."""

from __future__ import annotations

from typing import TYPE_CHECKING

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from desktop_rag import remedies
from desktop_rag.errors import DataFolderBusy
from desktop_rag.logs import LAST_WORDS
from desktop_rag.service.follow_loop import FollowReports, follow
from desktop_rag.service.own_files import Gone, OwnFiles, OwnFilesWatch
from desktop_rag.service.stop_deadline import StopDeadline, end_now

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library
    from desktop_rag.service.host import LibraryHost

# After a few minutes with nothing to do the service lets go of the embedding model's child (242 MB) and of the
# vector store's index (~220 MB at 105k chunks): a search after that waits ~1.1 s for them (bench/idle_service.py),
# none when the quick popup asked the service to prepare as it opened.
RELEASE_EMBEDDER_AFTER_S = 180.0
# How long a starting service waits for a process letting go of the data folder (the previous service ending, which
# closes its socket before its library; a `--local` command finishing its step).
LETS_GO_WAIT_S = 15.0

log = logging.getLogger(__name__)


def _rebuild_if_damaged(data_dir: Path) -> None:
    from desktop_rag.core.damaged_catalog.rebuild import rebuild_if_damaged

    # A service that met the damage may still be ending: its hold on the data folder is waited for as a
    # starting service waits for it.
    if (found := rebuild_if_damaged(data_dir, LETS_GO_WAIT_S)) is not None:
        damage, rebuilt = found
        log.warning("the catalog was damaged (%s): %s", damage, "; ".join(rebuilt.sentences()))
    else:
        log.info("asked to rebuild a damaged catalog: SQLite finds it whole, kept")


def follow_folders(data_dir: Path, paths: list[Path], upgrade: bool | None, role: str,
                   reports: FollowReports, rebuild_damaged: bool = False) -> int:
    """The service (role "service": every indexed folder, and those indexed through it later) or `watch` (the
    folders given), until a stop. `rebuild_damaged` (the window's "Rebuild from my folders"): a damaged catalog is
    first made anew from the folders, which the catch-up then reads."""
    from desktop_rag.core.library.library import Library
    from desktop_rag.platform.processes import lower_priority

    if rebuild_damaged:
        _rebuild_if_damaged(data_dir)
    if role == "service":
        lower_priority()  # background work: the catch-up and the upgrade give way to the person's programs
    deadline = StopDeadline()  # a stop that is not done within it ends the process (issue 60)
    try:
        # Models, the reader and the vector store each in a child process that ends when unused for a minute
        # (use_clock.py): the service waits most of the time, and a child gives its memory back.
        with Library(data_dir, child_processes=True) as library:
            return _follow_with(library, data_dir, paths, upgrade, role, reports, deadline)
    finally:
        deadline.ended()


def _follow_with(library: Library, data_dir: Path, paths: list[Path], upgrade: bool | None, role: str,
                 reports: FollowReports, deadline: StopDeadline) -> int:
    from desktop_rag.core.progress.control import RunControl
    from desktop_rag.core.runs.lane import WriteLane
    from desktop_rag.service.activity import LaneActivity
    from desktop_rag.service.host import LibraryHost

    # Its files as they are before anyone can reach it: taken after its hello, an index deleted at once by a client
    # that had just heard it went unseen (its absence taken as "not made yet").
    files_at_start = OwnFiles(data_dir)
    lane = WriteLane(library)  # the batches, an agent's runs and the upgrade, in that order, on this thread
    if role == "service":
        lane.release_embedder_after = RELEASE_EMBEDDER_AFTER_S
    catch_up = RunControl()  # the catch-up a stop cuts short: what it finished is kept
    # A person's edit waits for a step of it, not for all of it; a file saved meanwhile for a document.
    catch_up.between_steps, catch_up.between_documents = lane.serve_edits, lane.apply_changes_waiting

    def stop() -> None:  # within 2 s whatever runs: a run in hand is cut short (what it finished is kept)
        deadline.arm()
        catch_up.cancel()
        if host.queue is not None:
            host.queue.cancel(None)
        lane.stop()

    host = LibraryHost(library, f"desktop-rag {role} (process {os.getpid()})", lane=lane, on_stop=stop,
                       role=role)
    # Overdue, the process ends as a kill would, more politely: the endpoint goes (clients see the service
    # gone), the models and the reader end, the vector store finishes its write in hand, and the catalog
    # stays as the worker left it (SQLite keeps every committed unit).
    deadline.overdue = lambda: end_now([host.stop_answering, lambda: library.close(keep_catalog=True)])
    activity = host.tools.activity = LaneActivity(lane, host.runs, library)
    if role == "service" and not _take_the_data_folder(host, library):
        raise DataFolderBusy(f"another desktop-rag process already answers for {data_dir}: "
                             f"{remedies.STOP_SERVICE}")
    if role == "watch":
        host.start()  # search, stats and mcp from other processes are answered here while it watches
    # Its log's first line (issue 60: a service that logged no warning left no service.log the README names).
    log.info("%s follows %s", host.tools.served_by, data_dir)

    def follow_new_folders(watcher) -> None:  # a folder indexed through the endpoint is watched from its run on
        host.after_run = lambda: watcher.set_folders(Path(f) for f in library.reads.folders())
        host.before_run = lambda paths: watcher.set_folders(
            [*(Path(f) for f in library.reads.folders()), *paths])

    def run_catch_up(folders, report, control):  # a run every client follows, as the ones asked for
        assert host.queue is not None
        return host.queue.carry_out_here([str(f) for f in folders], library.settings.contexts, control,
                                         "catch-up", also_report=report)

    def files_gone(gone: Gone) -> None:  # (in the words the window shows for a service's end: logs.why_it_ended)
        said = gone.sentence[:1].upper() + gone.sentence[1:]
        if not gone.ends:  # a derived index, rebuilt as doctor --repair does: a run every front end follows
            log.warning("%s", said)
            host.tools.writes.repair_because(said)  # (every front end says why with the run's end)
            return
        logging.getLogger("desktop_rag.cli.commands").error("%s%s", LAST_WORDS, said)
        stop()

    own_files = OwnFilesWatch(files_at_start, files_gone)
    own_files.start()
    failed = False  # an error, not a stop asked for (Ctrl-C, a signal, `desktop-rag stop`): see host.stop
    try:
        return follow(library, lane, paths, upgrade, catch_up, reports, follow_new_folders,
                      any_folders=role == "service", activity=activity, run_catch_up=run_catch_up, stop=stop)
    except Exception:
        failed = True
        raise
    finally:
        own_files.stop()
        host.stop(failed=failed)
        log.info("%s %s", host.tools.served_by, "ended on an error" if failed else "stopped")


def _take_the_data_folder(host: LibraryHost, library: Library) -> bool:
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
                host.stop(failed=True)
                raise
            time.sleep(0.2)


def serve(data_dir: Path, on_listening: Callable[[str], None]) -> int:
    """`desktop-rag serve`: answer for the data folder, carrying out what is asked on a write lane of its own (an
    agent's runs, then the LLM upgrade when the schedule allows), until Ctrl-C, a kill or `desktop-rag stop`."""
    from desktop_rag.core.library.library import Library
    from desktop_rag.service.endpoint import EndpointClient, endpoint_path
    from desktop_rag.service.host import LibraryHost

    answering = EndpointClient.for_library(data_dir)  # the service, `watch` or another `serve`
    if answering is not None:
        answering.close()
        raise DataFolderBusy(f"another desktop-rag process (the service, `watch` or `serve`) already answers for "
                             f"{data_dir}: its answers are what `serve` would give")
    with Library(data_dir, read_in_child=True) as library:
        library.writer.claim()  # the runs asked of it are its own, and its loaded indexes stay the current ones
        stopped = threading.Event()  # Ctrl-C, a plain kill, or `desktop-rag stop`
        host = LibraryHost(library, f"desktop-rag serve (process {os.getpid()})", upgrade="scheduled", role="serve",
                           on_stop=stopped.set)
        host.warm_up()  # before listening: the first answer is as quick as the next
        if not host.start():
            raise DataFolderBusy(f"another desktop-rag process began answering for {data_dir} meanwhile")
        on_listening(f"Answering for {data_dir} at {endpoint_path(data_dir)}; Ctrl-C stops.")
        try:
            stopped.wait()
        except KeyboardInterrupt:  # Ctrl-C or a plain kill: the way to stop it
            on_listening("Stopped answering.")
        finally:
            host.stop()
        return 0
