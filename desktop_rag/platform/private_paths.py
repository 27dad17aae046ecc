"""The data folder holds what a person's files say (their text, contexts, mail senders) and the endpoint's socket
answers searches over them: neither may be open to another user of the machine. New ones are made private (0700
folders, a 0600 socket); one another user could read or write is refused with the command that mends it, before
anything is read from it or written to it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from desktop_rag.errors import DataFolderUnusable


def private_folder(path: Path, what: str = "the data folder") -> Path:
    """`path`, made if missing (mode 0700), once it is known to be a folder of this user's that no other user may
    read or write."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise DataFolderUnusable(f"{what} {path} is a file: choose a folder (--data-dir, or File → Data folder in "
                                 "the app)")
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    check_private(path, what)
    return path


def check_private(path: Path, what: str) -> None:
    """A DataFolderUnusable saying how to mend it, if `path` is not this user's or another user may use it."""
    info = path.stat()  # a link's target: what another user could reach
    if info.st_uid != os.getuid():
        raise DataFolderUnusable(f"{what} {path} belongs to another user: choose a folder of your own")
    others = info.st_mode & 0o077
    if others:
        mode = "600" if stat.S_ISSOCK(info.st_mode) else "700"
        raise DataFolderUnusable(
            f"{what} {path} can be {_uses(others)} by other users of this computer (mode "
            f"{stat.filemode(info.st_mode)}); it holds what your files say. Make it yours alone with "
            f"`chmod {mode} {_quoted(path)}`, then start again.")


def _uses(bits: int) -> str:
    uses = [word for mask, word in ((0o044, "read"), (0o022, "written"), (0o011, "entered")) if bits & mask]
    return " and ".join(uses)


def _quoted(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))
