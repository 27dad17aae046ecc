"""The program's child processes, as the system sees them: named ("dr embedding" in top, ps and a system monitor,
where Linux lets a process rename itself), and at background priority (nice 10 of 19; Windows' below-normal class),
so a desktop's own programs go first.

Elsewhere: macOS keeps the name python (no prctl; setproctitle would be a dependency for a label); psutil's
priority classes already cover Windows."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

NICENESS = 10  # of 19: background work, as a desktop counts it


def name_process(name: str) -> None:
    """What `top`, `ps` and a system monitor show for this child: "dr embedding" instead of a fourth "python"
    (Linux: the kernel keeps 15 bytes of a thread's name; elsewhere the name stays python's)."""
    if sys.platform != "linux":
        return
    import ctypes

    short = "dr"
    for word in name.removeprefix("the ").split():  # whole words only: "dr embedding", "dr vector store"
        if len(short) + 1 + len(word) > 15:
            break
        short += " " + word
    try:
        ctypes.CDLL(None).prctl(15, ctypes.c_char_p(short.encode()), 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def end_with_parent(system: str = sys.platform) -> None:
    """This process ends when the one that started it does: for a helper with no channel to its parent that would
    tell it (work_apart.py): converting the embedding model went on for 20 s after the service was asked to quit
    (issue 60). Linux: the kernel's parent-death signal as well, at once; every system: parent_watch's watch."""
    from desktop_rag.platform.parent_watch import end_when_parent_ends

    if system.startswith("linux"):
        import ctypes

        parent = os.getppid()
        try:
            ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
        if os.getppid() != parent:  # it ended before the signal was asked for
            os._exit(1)
    end_when_parent_ends(system=system)


def ask_to_end(pid: int) -> None:
    """Ask the process `pid` to end (SIGTERM, which desktop-rag's commands take as their Ctrl-C; Windows ends it).
    Gone already is fine."""
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


def lower_priority() -> None:
    """Background priority: nice 10 (Windows: below normal), and on Linux its session's too where it leads one."""
    import psutil

    me = psutil.Process()
    try:
        me.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS if os.name == "nt" else max(me.nice(), NICENESS))
    except psutil.Error:  # not allowed here: the child works as well at the app's priority
        pass
    if sys.platform.startswith("linux"):
        lower_session_priority()


def lower_session_priority(autogroup: str = "/proc/self/autogroup", leads_session: bool | None = None) -> bool:
    """Linux's scheduler (autogroup, on by default on desktops) shares the CPU between sessions first, and a nice
    counts only within its session: the service, started detached in a session of its own, took its session's
    whole share at nice 10 — beside four busy processes of another session, 0.45 of the two cores while it
    embedded; with its session at nice 10, 0.05, and a search meanwhile took 0.3-0.4 s instead of 0.1
    (bench/background_share.py; docs/benchmarks.md). So the process leading its own session lowers the session's
    nice too (allowed to any user: lowering only). One in a terminal's session leaves it alone: that would lower
    the person's shell. True when it was lowered."""
    if leads_session is None:
        leads_session = os.getsid(0) == os.getpid()
    if not leads_session:
        return False
    try:
        with open(autogroup, "w", encoding="ascii") as out:
            out.write(f"{NICENESS}\n")
        return True
    except OSError:  # no autogroup here (a kernel without it): the nice alone
        return False


def give_back_freed_memory() -> None:
    """Return the memory freed in this process to the system now (glibc keeps freed pages for reuse: a vector store
    closed at rest went from 311 to 126 MB, and to 104 after this). Elsewhere the allocator decides."""
    if sys.platform != "linux":
        return
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl): its own allocator returns memory as it can
        pass


@contextmanager
def interrupts_held_for_children(system: str = sys.platform,
                                 console: Callable[[bool], object] | None = None,
                                 tracker: Callable[[], object] | None = None) -> Iterator[None]:
    """Children started inside (multiprocessing's spawn) come up deaf to Ctrl-C, until ignore_interrupts() in them
    takes over. Ctrl-C reaches a terminal's whole process group: a child still importing its modules printed a
    KeyboardInterrupt traceback and died, and `index --json` said "the document reader did not start" instead of
    "interrupted" (issue 51). `tracker`: multiprocessing's resource tracker started (the tests give their own).

    POSIX: the starting thread blocks SIGINT while it starts them; a child inherits the blocked signal across
    exec (checked: multiprocessing's spawn keeps the starter's mask), holds a Ctrl-C pending through its imports,
    and drops it when it ignores the signal. The starter loses nothing: a Ctrl-C meanwhile goes to another of its
    threads or waits for the unblocking, and its own handler runs. Ignoring the signal in the starter instead (as
    before) lost a Ctrl-C sent in those milliseconds, which a loaded machine stretches: `index` ran on to its end
    in 1 of 8 tries at 1.5 s, beside four busy processes (bench/stop_latency.py, issue 61).

    Windows sends Ctrl-C to every process on the console, and a signal handler is not inherited there; the
    console's own "ignore Ctrl-C" flag is (SetConsoleCtrlHandler(NULL, TRUE), `console` here): set while the
    children start, so they never see it, and cleared again for the parent, which closes them itself."""
    if system == "win32":
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        from desktop_rag.platform.windows_calls import ignore_console_interrupts

        ignore = console or ignore_console_interrupts
        ignore(True)
        try:
            yield
        finally:
            ignore(False)
        return
    # multiprocessing's resource tracker, which a process starts with its first spawned child, started before the
    # block: starting, it unblocks SIGINT in the starting thread (resource_tracker.py: its own SIG_UNBLOCK), and the
    # first child came up open to a Ctrl-C (test_child_process.py's, run alone; in the suite a tracker ran).
    from multiprocessing import resource_tracker

    (tracker or resource_tracker.ensure_running)()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def start_detached_process(command: list[str], system: str = sys.platform,
                           popen: Callable[..., subprocess.Popen] = subprocess.Popen) -> subprocess.Popen:
    """`command` started so that it goes on when whoever started it ends, that a Ctrl-C in the starter's terminal
    does not reach it, and with nothing to read or write on a terminal: a session of its own (POSIX); on Windows,
    where `start_new_session` does nothing, no console of its own (DETACHED_PROCESS: no window flashes up) and a
    process group of its own (CREATE_NEW_PROCESS_GROUP), and out of the job that ends this process's helpers with
    it (parent_watch.children_end_with_this_process)."""
    quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    if system == "win32":
        from desktop_rag.platform import parent_watch
        from desktop_rag.platform.windows_calls import (CREATE_BREAKAWAY_FROM_JOB, CREATE_NEW_PROCESS_GROUP,
                                                        DETACHED_PROCESS)

        flags = DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP
        if parent_watch.in_closing_job():  # this process's helpers end with it; what it detaches does not
            flags |= CREATE_BREAKAWAY_FROM_JOB
        return popen(command, creationflags=flags, **quiet)
    process = popen(command, start_new_session=True, **quiet)
    # Waited for as it ends, on a thread: a starter that lives on (the tray starting windows, the window starting
    # the service and the tray) kept every one that had ended as a <defunct> entry (issue 60, 7). A starter that
    # waits itself still can: Popen lets one wait at a time and hands the exit status to both.
    threading.Thread(target=process.wait, name=f"desktop-rag reaps {process.pid}", daemon=True).start()
    return process


def ignore_interrupts() -> None:
    """In a child: Ctrl-C is its parent's to act on (it closes its children). One held pending since its start
    (interrupts_held_for_children) is dropped here; then the signal is let through again, ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
