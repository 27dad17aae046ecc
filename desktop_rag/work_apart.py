"""Work done once whose memory must not stay with the process that asked for it (converting the embedding model),
in a plain process of its own: see made_apart. The app's long-lived helpers are child_process.py's."""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable

from desktop_rag.child_process import ChildDied
from desktop_rag.platform import processes


def made_apart(function: Callable, *args):
    """`function(*args)` in a process of its own, for work done once whose memory must not stay with the caller:
    converting the embedding model held 6.3 GB in the embedder's child, and its allocator kept 5.3 GB of it for
    good (bench/first_hour.py on a new machine, issue 37); when this process ends, all of it goes back. Not a
    multiprocessing child: the embedder's child is a daemon, which may not have those. The function goes by
    reference, its result (or the exception it raised) comes back pickled through a file."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="desktop-rag-apart-") as folder:
        work, answer = os.path.join(folder, "work"), os.path.join(folder, "answer")
        with open(work, "wb") as out:
            pickle.dump((function, args), out)
        done = subprocess.run([sys.executable, "-m", "desktop_rag.work_apart", work, answer],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not os.path.exists(answer):
            raise ChildDied(f"the helper process ended with code {done.returncode}: "
                            f"{done.stderr.decode(errors='replace').strip()[-500:]}")
        with open(answer, "rb") as given:
            ok, value = pickle.load(given)
    if not ok:
        raise value
    return value


def _do_apart(work: str, answer: str) -> None:
    with open(work, "rb") as given:
        function, args = pickle.load(given)
    try:
        result = (True, function(*args))
    except Exception as exc:  # raised again in the caller
        result = (False, exc)
    with open(answer, "wb") as out:
        pickle.dump(result, out)


if __name__ == "__main__":
    processes.end_with_parent()  # (the caller waits for it: when the caller is gone, the work is wanted no more)
    processes.name_process("the work apart")
    _do_apart(*sys.argv[1:3])
