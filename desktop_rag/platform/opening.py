"""Opening a file or a folder in the program the system has for it, in a way that says when none took it: Qt's
QDesktopServices says only that it started xdg-open, and Open did nothing visible where no program opens the file
(issue 37). Linux: xdg-open, macOS: open — each exits non-zero when no program took the file; Windows: ShellExecute
(os.startfile, windows_calls.start_file) raises then. Where none of these is at hand the window falls back to
QDesktopServices (ui/hit_actions.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections.abc import Callable

from desktop_rag.platform.processes import start_detached_process

# How long a system opener (xdg-open) is given to say it found no program; past it, it is launching one.
OPENER_VERDICT_S = 10.0


SYSTEM = sys.platform


def system_opener() -> str | None:
    """The system's opener program, where it has one that tells whether a program took the file."""
    if SYSTEM.startswith("linux"):
        return shutil.which("xdg-open")
    if SYSTEM == "darwin":
        return shutil.which("open")
    return None


def open_target(target: str, on_failed: Callable[[], None], start: Callable[[str], None] | None = None) -> bool:
    """`target` (a path, or a URL with a fragment) opened the system's way; `on_failed` is called, from another
    thread, when no program took it. False when this system has no such way here (the caller falls back).
    `start`: Windows' ShellExecute (windows_calls.start_file); a test gives its own."""
    if SYSTEM == "win32" or start is not None:
        if start is None:
            from desktop_rag.platform.windows_calls import start_file as start
        threading.Thread(target=_started, args=(start, target, on_failed), name="opener", daemon=True).start()
        return True
    opener = system_opener()
    if opener is None:
        return False
    open_with(opener, target, on_failed)
    return True


def _started(start: Callable[[str], None], target: str, on_failed: Callable[[], None]) -> None:
    try:  # ShellExecute returns once the program is started (or raises: no program for this kind of file)
        start(target)
    except OSError:
        on_failed()


def open_with(opener: str, target: str, on_failed: Callable[[], None]) -> None:
    """`target` (a path, or a URL with a fragment) handed to `opener`; `on_failed` is called, from another thread,
    when no program took it."""
    try:  # a session of its own: quitting the app never takes the viewer it started along
        process = start_detached_process([opener, target])
    except OSError:
        on_failed()
        return

    def verdict() -> None:
        try:
            if process.wait(OPENER_VERDICT_S) != 0:
                on_failed()
        except subprocess.TimeoutExpired:
            pass  # still running: some openers wait for the program they started

    threading.Thread(target=verdict, name="opener", daemon=True).start()
