"""The service's mark: a lock the data folder's one service holds for its whole life, from the first instant of
its process — taken by `python -m desktop_rag` before it imports the CLI (desktop_rag/__main__.py), so that `stop`
and a second front end see a service that does not answer yet. Taken after the imports, at load 11–16 a `stop`
0–0.2 s after `desktop-rag service &` said "no service is running" and the service ran on (issue 61).

The mark holds its process's id, so a stop can end a service that has begun and does not answer yet: a starting
service has written nothing yet that a signal could cut short.

Imports here stay few and light (this runs before anything else of the program)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from desktop_rag.data_folders import resolve_data_dir
from desktop_rag.platform.file_locks import hold_mark, lock, open_lock_file, unlock
from desktop_rag.platform.local_socket import runtime_folder

_held_early: dict[Path, object] = {}  # data folder → the mark taken before the imports (kept open: it is the mark)


def endpoint_path(data_dir: Path) -> Path:
    """Where the endpoint of this data folder listens. Named by a hash of the folder: a socket's path is limited
    to ~100 bytes, and a data folder's path may be longer."""
    digest = hashlib.sha256(str(Path(data_dir).resolve()).encode()).hexdigest()[:20]
    return runtime_folder() / f"desktop-rag-{digest}.sock"


def mark_path(data_dir: Path) -> Path:
    return endpoint_path(data_dir).with_suffix(".service")


def hold_the_service_mark(data_dir: Path):
    """Mark this process as the data folder's service: the mark taken at the process's start if it was, else taken
    now. Returns the open mark (held until the process ends), or None when another service holds it."""
    early = _held_early.pop(Path(data_dir), None)
    if early is not None:
        return early
    mark = hold_mark(mark_path(data_dir))
    if mark is not None:
        _write_pid(mark)
    return mark


def hold_before_imports(argv: list[str]) -> None:
    """When this process is `desktop-rag [--data-dir D] service …`, take the mark now. Anything unexpected leaves
    it to the command itself (which says what is wrong)."""
    command, data_dir = _command_and_data_dir(argv)
    if command != "service" or "-h" in argv or "--help" in argv:
        return
    try:
        folder = resolve_data_dir(data_dir)
        mark = hold_mark(mark_path(folder))
    except Exception:  # noqa: BLE001 — the command will meet it again, and say it
        return
    if mark is not None:
        _write_pid(mark)
        _held_early[folder] = mark


def starting_pid(data_dir: Path) -> int | None:
    """The process id of the service holding the data folder's mark, or None when none holds it (or it has not
    written its id yet)."""
    try:
        handle = open_lock_file(mark_path(data_dir))  # closed below
    except Exception:  # noqa: BLE001 — no mark to read: nothing holds it
        return None
    with handle:
        try:
            lock(handle)
        except OSError:
            handle.seek(0)
            text = handle.read().strip()
            return int(text) if text.isdigit() else None
        unlock(handle)
        return None


def service_starting(data_dir: Path) -> bool:
    """A service of the data folder holds its mark (it may not answer yet)."""
    try:
        handle = open_lock_file(mark_path(data_dir))  # closed below
    except Exception:  # noqa: BLE001 — (OSError, UserError) without importing more
        return False
    with handle:
        try:
            lock(handle)
        except OSError:
            return True
        unlock(handle)
        return False


def _write_pid(mark) -> None:
    mark.seek(0)
    mark.truncate()
    mark.write(str(os.getpid()))
    mark.flush()


def command_of(argv: list[str]) -> str | None:
    return _command_and_data_dir(argv)[0]


def _command_and_data_dir(argv: list[str]) -> tuple[str | None, str | None]:
    """The subcommand and the --data-dir value of a command line, read as the parser would (the one global
    option comes before the command)."""
    data_dir = None
    words = iter(argv)
    for word in words:
        if word == "--data-dir":
            data_dir = next(words, None)
        elif word.startswith("--data-dir="):
            data_dir = word.split("=", 1)[1]
        elif not word.startswith("-"):
            return word, data_dir
    return None, data_dir
