"""What a process holds open, as the kernel says it (/proc, Linux): the one-writer checks of issue 62 ask it."""

from __future__ import annotations

import os
from pathlib import Path


def opened_for_writing(pid: int | str, path: Path) -> list[str]:
    """The descriptors of process `pid` ("self": this one) on `path`, opened for writing."""
    found = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
        except OSError:
            continue
        flags = int(next(line for line in info.splitlines() if line.startswith("flags")).split()[1], 8)
        if target == str(path) and flags & (os.O_WRONLY | os.O_RDWR):
            found.append(fd)
    return found
