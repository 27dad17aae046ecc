"""The background services of the tests' data folders, found by their command lines: a service already stopping no
longer introduces itself (background_process.who_answers), yet may still be ending."""

from __future__ import annotations

import os
from pathlib import Path


def services_under(folder: Path | str) -> list:
    """The `desktop-rag service` processes (psutil.Process) whose data folder is `folder` or lies under it — under,
    not beside: pytest-1's check once killed pytest-10's services, a suite run alongside."""
    import psutil

    folder = str(folder)
    found = []
    for process in psutil.process_iter(["cmdline"]):
        command = process.info["cmdline"] or []
        if "desktop_rag" in command and "service" in command and any(
                part == folder or part.startswith(os.path.join(folder, "")) for part in command):
            found.append(process)
    return found
