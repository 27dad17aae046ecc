"""Starting the background service at login on Linux: an XDG autostart entry ($XDG_CONFIG_HOME/autostart, read by
GNOME, KDE, Xfce, Cinnamon, MATE and LXQt at login), one per data folder, running `desktop-rag service` for it hidden
(no window, no menu item). packaging/desktop-rag.service is a systemd user unit for those who prefer one."""

from __future__ import annotations

import os
from pathlib import Path

from desktop_rag.platform.autostart_names import entry_name, remove_entry, service_command, split_quoted, write_entry


def autostart_folder() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "autostart"


def entry_path(data_dir: Path) -> Path:
    return autostart_folder() / f"{entry_name(data_dir)}.desktop"


def enable(data_dir: Path) -> Path:
    path = entry_path(data_dir)
    lines = ["[Desktop Entry]", "Type=Application", "Name=desktop-rag background index",
             f"Comment=Keeps the search index of {_escaped(str(data_dir))} fresh while you work",
             f"Exec={' '.join(_exec_argument(a) for a in service_command(data_dir))}", "Icon=desktop-rag",
             "NoDisplay=true", "Terminal=false", "X-GNOME-Autostart-enabled=true",
             "X-GNOME-Autostart-Delay=10",  # after the session's own start: the catch-up waits its turn
             "X-KDE-autostart-after=panel"]
    return write_entry(path, ("\n".join(lines) + "\n").encode("utf-8"))


def disable(data_dir: Path) -> bool:
    return remove_entry(entry_path(data_dir))


def is_enabled(data_dir: Path) -> bool:
    return entry_path(data_dir).is_file()


def command_of(entry: Path) -> list[str]:
    """The command an entry runs, as a session would split its Exec line."""
    line = next(line for line in entry.read_text(encoding="utf-8").splitlines() if line.startswith("Exec="))
    return _split_exec(line.removeprefix("Exec="))


def _escaped(value: str) -> str:
    """A string value of a desktop entry: backslashes and line breaks escaped."""
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def _exec_argument(argument: str) -> str:
    """One Exec argument, quoted as the Desktop Entry Specification asks: in double quotes when it holds a space or
    a reserved character, with ", `, $ and \\ escaped; % doubled (field codes); then escaped as a string value."""
    argument = argument.replace("%", "%%")
    if argument and not any(c in argument for c in ' \t\n"\'\\><~|&;$*?#()`'):
        return _escaped(argument)
    quoted = "".join("\\" + c if c in '"`$\\' else c for c in argument)
    return _escaped(f'"{quoted}"')


def _split_exec(line: str) -> list[str]:
    """The inverse of _exec_argument over a whole Exec line (for checking what an entry runs)."""
    line = line.replace("\\\\", "\\").replace("\\n", "\n").replace("\\t", "\t")
    return [a.replace("%%", "%") for a in split_quoted(line, " ", _escaped_in_quotes)]


def _escaped_in_quotes(line: str, i: int, quoted: bool) -> tuple[str, int] | None:
    if quoted and line[i] == "\\" and i + 1 < len(line):
        return line[i + 1], i + 2
    return None
