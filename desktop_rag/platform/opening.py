"""Opening a file or a folder in the program the system has for it. On Linux through xdg-open, whose exit code says
whether a program took it: Qt's QDesktopServices says only that xdg-open started, and Open did nothing visible
where no program opens the file (issue 37). Where there is no xdg-open (macOS, Windows) the window falls back to
QDesktopServices (ui/hit_actions.py); `open` (macOS) and os.startfile (Windows) are what this becomes there."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections.abc import Callable

# How long a system opener (xdg-open) is given to say it found no program; past it, it is launching one.
OPENER_VERDICT_S = 10.0


def system_opener() -> str | None:
    """The system's opener program, where it has one that tells whether a program took the file."""
    return shutil.which("xdg-open") if sys.platform.startswith("linux") else None


def open_with(opener: str, target: str, on_failed: Callable[[], None]) -> None:
    """`target` (a path, or a URL with a fragment) handed to `opener`; `on_failed` is called, from another thread,
    when no program took it."""
    try:  # a session of its own: quitting the app never takes the viewer it started along
        process = subprocess.Popen([opener, target], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
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
