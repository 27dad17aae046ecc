"""Find the files under the given paths, skipping hidden, temporary, VCS and ignored entries. Each comes with
its kind by name (parsers.file_kind): a document, perhaps text (sniffed when read), or a format nothing here reads
(counted as skipped, never opened)."""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable, Iterator

from desktop_rag.core.files.parsers import DOCUMENT, file_kind

NOT_REGULAR = "not a regular file"
# A link is followed only to a file inside an indexed folder: what lies outside them is not the person's choice,
# and an agent reading the index must not reach it (issue 50: a link to /etc/hostname was served over MCP).
LINK_OUTSIDE = "a link to a file outside the indexed folders: not indexed"
# The catalog keeps paths as UTF-8 text; a name with other bytes (an old Latin-1 file name, a broken download)
# cannot be stored, and used to abort every run. It is reported by itself instead, every other file indexed.
BAD_NAME = "its name is not valid UTF-8 (rename the file to have it indexed)"


def name_is_storable(path: Path | str) -> bool:
    """Python keeps undecodable bytes of a file name as lone surrogates, which UTF-8 cannot encode."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(path: Path | str) -> str:
    """A path as it can be shown and stored: undecodable bytes written as \\xff."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class FoundFile:
    path: Path
    size: int
    mtime_ns: int
    kind: str = DOCUMENT


@dataclass
class ScanProblem:
    path: Path
    reason: str


def is_ignored(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def scan(roots: Iterable[Path], ignore_patterns: Iterable[str], problems: list[ScanProblem],
         inside: Iterable[Path] = ()) -> Iterator[FoundFile]:
    """Files under `roots` (a root may also be a single file). Unreadable folders go to `problems`. A link to a
    file is followed when its target lies inside one of `inside` (the indexed folders, resolved) or is a root
    itself; otherwise it is found as LINK_OUTSIDE, under its own name (links to folders are never followed)."""
    patterns = tuple(ignore_patterns)
    roots = list(roots)
    allowed = (*inside, *(root for root in roots if root.is_dir() and not root.is_symlink()))
    for root in roots:
        if root.is_file():
            found = _stat(root, problems, allowed)
            if found:
                yield found
            continue
        if not root.is_dir():
            problems.append(ScanProblem(root, "no such file or folder"))
            continue

        def on_error(error: OSError, root=root) -> None:
            problems.append(ScanProblem(Path(error.filename or root), f"cannot list folder: {error.strerror}"))

        root_resolved = root == root.resolve()
        for folder, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
            # Pruning in place stops os.walk from descending into ignored folders (.git, node_modules...).
            dirnames[:] = sorted(d for d in dirnames if not is_ignored(d, patterns))
            for name in sorted(filenames):
                path = Path(folder, name)
                if is_ignored(name, patterns):
                    continue
                found = _stat(path, problems, allowed, under_resolved=root_resolved)
                if found:
                    yield found


def _stat(path: Path, problems: list[ScanProblem], allowed: tuple[Path, ...],
          under_resolved: bool = False) -> FoundFile | None:
    """`under_resolved`: `path` was listed in a folder whose path is resolved (os.walk follows no link to a
    folder), so only a link needs resolving — Path.resolve walks every component in Python, and for the 11,000
    unchanged files of a service's catch-up it held the interpreter ~1 s while searches waited for it (issue 49)."""
    if not name_is_storable(path):
        problems.append(ScanProblem(path, BAD_NAME))
        return None
    try:
        st = path.lstat()
    except FileNotFoundError:  # deleted since it was listed: nothing to find, and no problem (issue 61)
        return None
    except OSError as exc:
        problems.append(ScanProblem(path, f"cannot read file: {exc.strerror or exc}"))
        return None
    try:
        if stat.S_ISLNK(st.st_mode) or not under_resolved:
            st, resolved = path.stat(), path.resolve()
        else:  # an entry found by walking a resolved folder, and no link: already its own resolved path
            resolved = path
    except (OSError, RuntimeError) as exc:  # (RuntimeError: a loop of links, on Python before 3.13)
        problems.append(ScanProblem(path, f"cannot read file: {getattr(exc, 'strerror', None) or exc}"))
        return None
    if resolved != path.absolute() and not any(resolved.is_relative_to(folder) for folder in allowed):
        link = path.lstat()
        return FoundFile(path.absolute(), link.st_size, link.st_mtime_ns, LINK_OUTSIDE)
    # A pipe, socket or device is never opened (reading a FIFO waits forever): counted as skipped.
    kind = file_kind(path) if stat.S_ISREG(st.st_mode) else NOT_REGULAR
    return FoundFile(resolved, st.st_size, st.st_mtime_ns, kind)


class NotRegular(OSError):
    pass


class FileTooLarge(OSError):
    pass


def read_bounded(path: Path, limit: int, head_only: bool = False) -> bytes:
    """A file's bytes, read only if it is still a regular file and at most `limit` of them (FileTooLarge past it,
    unless `head_only`: then its first `limit` bytes): between the scan and the read a name can become a FIFO
    (opening one for reading waits forever) or a link to /dev/zero (read by its reported size of 0, it never
    ends)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)  # a FIFO opens at once
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(f"{NOT_REGULAR}: it is not read")
        data = handle.read(limit + 1)
    if head_only:
        return data[:limit]
    if len(data) > limit:
        raise FileTooLarge(f"over {limit} bytes")
    return data
