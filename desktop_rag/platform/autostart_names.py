"""What every system's autostart entry shares: its name (one per data folder) and the command it runs."""

from __future__ import annotations

import hashlib
import os
import sys
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
