"""A desktop key for the quick search: Wayland gives no program a global key, so the desktop must run
`desktop-rag quick` itself. On GNOME that is a custom keybinding in its settings (gsettings, the way GNOME Settings
→ Keyboard → Custom Shortcuts writes it): added here when the person asks (Settings → "Add a key for quick search"),
one entry, named so that adding it again replaces it.

Elsewhere: KDE Plasma keeps command shortcuts in khotkeys (Plasma 5) or as a desktop entry with
X-KDE-Shortcuts registered with kglobalaccel (Plasma 6), which a program cannot add reliably from outside: the
README says how to add it by hand, as for Xfce and tiling window managers. macOS: a Shortcuts action or a
Services menu item; Windows: a shortcut file's "Shortcut key".
"""

from __future__ import annotations

import ast
import shlex
import shutil
import subprocess
from collections.abc import Sequence

MEDIA_KEYS = "org.gnome.settings-daemon.plugins.media-keys"
ENTRY = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/desktop-rag-quick/"
DEFAULT_KEY = "<Primary><Alt>space"  # Ctrl+Alt+Space: GNOME's own Super+Space switches the input source
_TIMEOUT_S = 5


def gnome_can_bind() -> bool:
    """GNOME's settings are there to write to (gsettings and its media-keys schema)."""
    if shutil.which("gsettings") is None:
        return False
    return _gsettings("list-keys", MEDIA_KEYS) is not None


def bind_gnome_key(command: Sequence[str], key: str = DEFAULT_KEY) -> bool:
    """The custom keybinding running `command` on `key`, added to (or replaced in) GNOME's list. False when
    gsettings refused (no GNOME session to write to)."""
    listed = _gsettings("get", MEDIA_KEYS, "custom-keybindings")
    if listed is None:
        return False
    entries = _paths(listed)
    if ENTRY not in entries:
        entries.append(ENTRY)
        if _gsettings("set", MEDIA_KEYS, "custom-keybindings", str(entries)) is None:
            return False
    schema = f"{MEDIA_KEYS}.custom-keybinding:{ENTRY}"  # (GNOME splits a command as a shell does)
    return all(_gsettings("set", schema, name, value) is not None for name, value in
               (("name", "desktop-rag quick search"), ("command", shlex.join(command)),
                ("binding", key)))


def _paths(listed: str) -> list[str]:
    """gsettings prints a list of paths as `['/a/', '/b/']`, or `@as []` when empty."""
    text = listed.strip().removeprefix("@as").strip()
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return []
    return [p for p in value if isinstance(p, str)] if isinstance(value, list) else []


def _gsettings(*arguments: str) -> str | None:
    try:
        done = subprocess.run(["gsettings", *arguments], capture_output=True, text=True, timeout=_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def binding_help(command: Sequence[str], system: str, desktop: str = "") -> str:
    """How a person binds `command` to a key by hand, on this system and desktop ($XDG_CURRENT_DESKTOP on Linux),
    where the app cannot add the key itself."""
    line = shlex.join(command)
    if system == "win32":
        import subprocess

        return ("Right-click the desktop → New → Shortcut, with the command "
                f"{subprocess.list2cmdline(list(command))}; then its Properties → Shortcut key (Ctrl+Alt+Space)")
    if system == "darwin":
        return ("In the Shortcuts app: a new shortcut with the action Run Shell Script, the script "
                f"{line}; then its Details → Add Keyboard Shortcut")
    desktop = desktop.lower()
    if "kde" in desktop:
        return f'System Settings → Shortcuts → Add New → "Command or Script…", the command {line}'
    if "xfce" in desktop:
        return f"Settings → Keyboard → Application Shortcuts → Add, the command {line}"
    if "gnome" in desktop:
        return f'Settings → Keyboard → Custom Shortcuts → "+", the command {line}'
    return f"Bind the command {line} to a key in your desktop's keyboard settings (sway, i3: a bindsym line)"
