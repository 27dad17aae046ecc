"""What every system's autostart entry shares: its name (one per data folder) and the command it runs."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

PREFIX = "desktop-rag-service-"  # every entry this program writes is named so (--uninstall removes them all)


def entry_name(data_dir: Path) -> str:
    """The entry of this data folder: named by a hash of it, as the endpoint's socket is."""
    return PREFIX + hashlib.sha256(str(Path(data_dir).resolve()).encode()).hexdigest()[:12]


def command_for(data_dir: Path, *arguments: str) -> list[str]:
    """A desktop-rag command on this data folder, with the Python this program runs on (its virtual
    environment's): what a session, a key binding or another front end runs."""
    return [sys.executable, "-m", "desktop_rag", "--data-dir", str(Path(data_dir).resolve()), *arguments]


def service_command(data_dir: Path) -> list[str]:
    """The service of this data folder."""
    return command_for(data_dir, "service")


def write_entry(path: Path, content: bytes) -> Path:
    """An entry file written whole or not at all (a temporary file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(content)
    os.replace(temporary, path)
    return path


def remove_entry(path: Path) -> bool:
    """An entry file removed; False when there was none."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


# Where an escape starts at line[i] (inside quotes or not): the text it stands for and where the line goes on.
Escape = Callable[[str, int, bool], "tuple[str, int] | None"]


def split_quoted(line: str, blanks: str, escape: Escape) -> list[str]:
    """A command line split back into its arguments: double quotes group (and may start or end mid-argument),
    `blanks` outside quotes part arguments, and `escape` says what a system's escapes stand for."""
    arguments: list[str] = []
    current, quoted, started, i = "", False, False, 0
    while i < len(line):
        escaped = escape(line, i, quoted)
        if escaped is not None:
            text, i = escaped
            current, started = current + text, True
            continue
        c = line[i]
        if c == '"':
            quoted, started = not quoted, True
        elif c in blanks and not quoted:
            if started:
                arguments.append(current)
            current, started = "", False
        else:
            current, started = current + c, True
        i += 1
    if started:
        arguments.append(current)
    return arguments
