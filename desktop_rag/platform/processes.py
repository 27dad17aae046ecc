"""The program's child processes, as the system sees them: named ("dr embedding" in top, ps and a system monitor,
where Linux lets a process rename itself), and at background priority (nice 10 of 19; Windows' below-normal class),
so a desktop's own programs go first.

Elsewhere: macOS keeps the name python (no prctl; setproctitle would be a dependency for a label); psutil's
priority classes already cover Windows."""

from __future__ import annotations

import os
import sys

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


def lower_priority() -> None:
    import psutil

    me = psutil.Process()
    try:
        me.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS if os.name == "nt" else max(me.nice(), NICENESS))
    except psutil.Error:  # not allowed here: the child works as well at the app's priority
        pass


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
