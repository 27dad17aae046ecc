"""Starting the background service when the person logs in, one entry per data folder running `desktop-rag
service` for it hidden: written and removed by the setting "Start desktop-rag when I log in" (start_at_login),
removed by install-offline.sh --uninstall too. Each system's own way: an XDG autostart entry on Linux
(autostart_xdg.py), a LaunchAgent on macOS (autostart_macos.py), a Run value in the registry on Windows
(autostart_windows.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

from desktop_rag.platform.autostart_names import PREFIX, command_for, service_command

SYSTEM = sys.platform
__all__ = ["PREFIX", "command_for", "disable", "enable", "is_enabled", "service_command"]


def _here() -> ModuleType:
    if SYSTEM == "win32":
        from desktop_rag.platform import autostart_windows

        return autostart_windows
    if SYSTEM == "darwin":
        from desktop_rag.platform import autostart_macos

        return autostart_macos
    from desktop_rag.platform import autostart_xdg

    return autostart_xdg


def enable(data_dir: Path) -> None:
    _here().enable(data_dir)


def disable(data_dir: Path) -> bool:
    return bool(_here().disable(data_dir))


def is_enabled(data_dir: Path) -> bool:
    return bool(_here().is_enabled(data_dir))
