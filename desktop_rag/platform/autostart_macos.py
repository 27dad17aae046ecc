"""Starting the background service at login on macOS: a LaunchAgent, a property list in ~/Library/LaunchAgents
that launchd reads at login (launchd.plist(5)), one per data folder. Background process type: macOS gives it less
CPU and I/O than the person's apps, as nice 10 does here. Nothing is loaded at once: the next login runs it (the
app has started the service itself already). Pure file writing: tested on Linux."""

from __future__ import annotations

import plistlib
from pathlib import Path

from desktop_rag.platform.autostart_names import entry_name, remove_entry, service_command, write_entry

LABEL_PREFIX = "org.desktop-rag."  # launchd's labels are reverse-DNS names


def agents_folder() -> Path:
    return Path.home() / "Library" / "LaunchAgents"


def entry_path(data_dir: Path) -> Path:
    return agents_folder() / f"{LABEL_PREFIX}{entry_name(data_dir)}.plist"


def enable(data_dir: Path) -> Path:
    path = entry_path(data_dir)
    agent = {"Label": path.stem, "ProgramArguments": service_command(data_dir), "RunAtLoad": True,
             "ProcessType": "Background", "KeepAlive": False}
    return write_entry(path, plistlib.dumps(agent))


def disable(data_dir: Path) -> bool:
    return remove_entry(entry_path(data_dir))


def is_enabled(data_dir: Path) -> bool:
    return entry_path(data_dir).is_file()


def command_of(entry: Path) -> list[str]:
    return list(plistlib.loads(entry.read_bytes())["ProgramArguments"])
