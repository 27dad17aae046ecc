"""A helper process ends as soon as the process that started it is gone, however it went (a kill -9 included):
after a kill of the service its reader, vector store and model lived 4-24 s on, the vector store writing Chroma's
files beside a new service's, the model using a core for 4 minutes (issue 61).

Each system is told in its own way:
- Linux: a lifeline, a pipe whose one writing end the parent holds and never writes to; the child asks the kernel
  for SIGKILL when the pipe ends (O_ASYNC, F_SETSIG), which it does as the parent goes, however it goes. The kernel
  carries it out: no thread of the child's needs the CPU or the GIL. A watching thread did (below), and beside
  four busy processes, at the children's nice 10, a killed service's helpers ended 13.9 s after it. The kernel's
  parent-death signal would be as quick, but it follows the thread that started the child, and the service starts
  a child from whichever thread first needs it, which may end first.
- Other POSIX systems, and a child given no lifeline: an orphan is handed to another parent, so its parent's id
  changes; looked at every 0.25 s (a system call: nothing).
- macOS: the kernel says the moment the parent ends (a kqueue watch, NOTE_EXIT), with the same look as above
  should the watch not be taken.
- Windows: a process keeps its parent's id when that one ends, so the parent's own handle is waited on
  (WaitForSingleObject); and the process that starts helpers puts itself and them in a job object that ends them
  all when its last handle closes — which the system does when the process ends, however it ends
  (`children_end_with_this_process`).

The Windows and macOS variants take their calls as arguments, so that their logic runs in the tests here."""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import ModuleType

LOOK_EVERY_S = 0.25  # how often a child looks at its parent's id where no system call waits for its end


def wait_for_parent_end(parent: int, system: str = sys.platform, kqueue_module: ModuleType | None = None,
                        windows_wait: Callable[[int], None] | None = None,
                        parent_now: Callable[[], int] = os.getppid, every_s: float = LOOK_EVERY_S) -> None:
    """Return once the process `parent` (this one's parent when it started) has ended."""
    if system == "win32":
        from desktop_rag.platform.windows_calls import wait_for_process_end

        (windows_wait or wait_for_process_end)(parent)
        return
    if system == "darwin":
        select_module = kqueue_module
        if select_module is None:
            import select as select_module
        if _waited_by_kqueue(parent, select_module, parent_now):
            return
    while parent_now() == parent:
        time.sleep(every_s)


def _waited_by_kqueue(parent: int, select_module, parent_now: Callable[[], int]) -> bool:
    """The parent's end waited for with a kqueue NOTE_EXIT watch; False when the watch could not be taken."""
    if not hasattr(select_module, "kqueue"):
        return False
    queue = select_module.kqueue()
    watch = select_module.kevent(parent, filter=select_module.KQ_FILTER_PROC,
                                 flags=select_module.KQ_EV_ADD | select_module.KQ_EV_ONESHOT,
                                 fflags=select_module.KQ_NOTE_EXIT)
    try:
        try:
            queue.control([watch], 0)  # registered; raises when the parent has already gone (ESRCH)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        if parent_now() != parent:  # it ended between the start and the watch
            return True
        while not queue.control(None, 1, None):  # (an interrupted wait returns nothing: wait again)
            pass
        return True
    finally:
        queue.close()  # (also when the watch could not be taken)


F_SETSIG = 10  # Linux's fcntl command naming the signal an O_ASYNC descriptor sends (Python's fcntl lacks it)


def lifeline_arms(system: str = sys.platform) -> bool:
    """The kernel here ends a process when its lifeline's writer is gone (end_when_lifeline_ends)."""
    return system.startswith("linux")


def end_when_lifeline_ends(fd: int, end: Callable[[], None] = lambda: os._exit(0)) -> None:
    """Linux: this process killed by the kernel the moment no process holds the writing end of the pipe it reads
    as `fd` (its parent held the one writer). A pipe whose writers are all gone reads as ready: gone already, it
    ends here (`end`)."""
    import fcntl

    fcntl.fcntl(fd, F_SETSIG, int(signal.SIGKILL))
    fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())  # the signal is this process's
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC)
    if select.select([fd], [], [], 0)[0]:
        end()


def end_when_parent_ends(end: Callable[[], None] = lambda: os._exit(0), system: str = sys.platform,
                         **calls) -> threading.Thread:
    """This process ends (`end`) as soon as the one that started it has: watched on a thread of its own, so a
    child busy in a long call still ends at once."""
    parent = os.getppid()

    def watch() -> None:
        wait_for_parent_end(parent, system, **calls)
        end()

    thread = threading.Thread(target=watch, name="desktop-rag parent watch", daemon=True)
    thread.start()
    return thread


_job = {"made": False}  # this process put in its closing job (once per process)


def in_closing_job() -> bool:
    """This process is in the job children_end_with_this_process made (Windows)."""
    return _job["made"]


def children_end_with_this_process(system: str = sys.platform, kernel32=None) -> bool:
    """Windows: this process and every one it starts from now on in a job object that ends them all when this
    process ends (kill-on-close: the system closes the job's one handle as the process goes). A process started
    to outlive it (the service's, a viewer's: start_detached_process) breaks away from the job. Elsewhere nothing
    to do: each child watches its parent. Done once per process; False where it could not be (a process already
    in a job that allows no nested one: its children still watch the parent's handle)."""
    if system != "win32" or _job["made"]:
        return _job["made"]
    if kernel32 is None:
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined,unused-ignore]
    from desktop_rag.platform.windows_calls import put_this_process_in_a_closing_job

    _job["made"] = put_this_process_in_a_closing_job(kernel32)
    return _job["made"]
