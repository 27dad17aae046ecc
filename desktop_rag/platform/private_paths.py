"""The data folder holds what a person's files say (their text, contexts, mail senders) and the endpoint's socket
answers searches over them: neither may be open to another user of the machine. New ones are made private (0700
folders, a 0600 socket); one another user could read or write is refused with the command that mends it, before
anything is read from it or written to it. Windows has no such modes: there the folder's access list is read and
set with icacls (windows_calls.py) — the user, SYSTEM and Administrators may use it, no one else."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from desktop_rag.errors import DataFolderUnusable


def private_folder(path: Path, what: str = "the data folder") -> Path:
    """`path`, made if missing (mode 0700), once it is known to be a folder of this user's that no other user may
    read or write."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise DataFolderUnusable(f"{what} {path} is a file: choose a folder (--data-dir, or File → Data folder in "
                                 "the app)")
    made = not path.exists()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if made and SYSTEM == "win32":
        from desktop_rag.platform.windows_calls import make_private

        make_private(str(path), _windows_user())
    check_private(path, what)
    return path


SYSTEM = sys.platform
# Who may use a person's folder on Windows besides them: the system itself and the machine's administrators (as
# in every profile folder).
_WINDOWS_TRUSTED = {"nt authority\\system", "builtin\\administrators", "creator owner"}


def _windows_user() -> str:
    return os.environ.get("USERNAME", "")


def others_in_access_list(listing: str, path: str, user: str) -> list[str]:
    """The entries of icacls' listing of `path` that let someone else than `user` (or SYSTEM, Administrators) in:
    its first line starts with the path, each entry is PRINCIPAL:(flags)(rights), deny entries keep people out."""
    others = []
    for number, line in enumerate(listing.splitlines()):
        if not line.strip():
            break
        entry = line[len(path):].strip() if number == 0 and line.startswith(path) else line.strip()
        principal, _, rights = entry.rpartition(":")
        if not principal or "(DENY)" in rights:
            continue
        name = principal.lower()
        if name in _WINDOWS_TRUSTED or name == user.lower() or name.endswith("\\" + user.lower()):
            continue
        others.append(entry)
    return others


def check_private(path: Path, what: str) -> None:
    """A DataFolderUnusable saying how to mend it, if `path` is not this user's or another user may use it."""
    if SYSTEM == "win32":
        from desktop_rag.platform.windows_calls import access_list

        _check_windows_access(path, what, access_list(str(path)), _windows_user())
        return
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


def _check_windows_access(path: Path, what: str, listing: str, user: str) -> None:
    others = others_in_access_list(listing, str(path), user)
    if others:
        raise DataFolderUnusable(
            f"{what} {path} can be used by others on this computer ({'; '.join(others)}); it holds what your files "
            f'say. Make it yours alone with `icacls "{path}" /inheritance:r /grant:r "%USERNAME%:(OI)(CI)F"`, '
            "then start again.")
