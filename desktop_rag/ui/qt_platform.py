"""Can Qt open a window on this desktop? Asked before the QApplication is made.

Qt's X11 and Wayland plugins need system libraries that many desktop installs lack (libxcb-cursor0 since Qt 6.5,
libxcb-icccm4, libxcb-keysyms1, libwayland-cursor0): without them Qt ends the process with "could not load the Qt
platform plugin … Reinstalling the application may fix this problem", which it will not (issue 37: the first thing
a new user saw). Here the plugin of this session is asked which libraries it cannot find (`ldd`), and the person
is told in one line what to install. Pure file reading: this module does not import Qt.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

# Platforms that draw no window on a desktop, or need nothing beyond Qt itself: nothing to check.
_NO_DESKTOP = ("offscreen", "minimal", "minimalegl", "vnc", "linuxfb", "eglfs", "vkkhrdisplay")
_NOT_FOUND = re.compile(r"^\s*(\S+) => not found", re.MULTILINE)


def desktop_platforms(environ=os.environ) -> list[str]:
    """The plugins Qt would try for a window here, in its order ([] when it would open none of them)."""
    asked = environ.get("QT_QPA_PLATFORM", "")
    if asked:
        names = [name.split(":")[0] for name in asked.split(";") if name]
        return [name for name in names if name not in _NO_DESKTOP]
    if environ.get("WAYLAND_DISPLAY"):
        return ["wayland", "xcb"]  # Qt falls back to X11 (XWayland) when its Wayland plugin does not load
    return ["xcb"] if environ.get("DISPLAY") else []


def libraries_not_found(ldd_output: str) -> list[str]:
    """The shared libraries `ldd` says it could not find, each once, in its order."""
    return list(dict.fromkeys(_NOT_FOUND.findall(ldd_output)))


def debian_package(soname: str) -> str:
    """The Debian/Ubuntu package that ships a library, by Debian's naming of library packages:
    libxcb-cursor.so.0 → libxcb-cursor0, libxkbcommon-x11.so.0 → libxkbcommon-x11-0, libEGL.so.1 → libegl1."""
    name, _, version = soname.partition(".so")
    version = version.lstrip(".").split(".")[0]
    name = name.lower()
    return f"{name}-{version}" if name[-1:].isdigit() and version else f"{name}{version}"


def _plugin(platform: str) -> Path | None:
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins" / "platforms" / f"libq{platform}.so"
    return path if path.exists() else None


def missing_window_libraries(environ=os.environ) -> list[str]:
    """The system libraries missing for every platform Qt would try here ([] when one of them can load, when no
    desktop window is asked for, or when this cannot be told: no `ldd`, not Linux)."""
    platforms = desktop_platforms(environ)
    ldd = shutil.which("ldd")
    if not platforms or ldd is None:
        return []
    missing: list[str] = []
    for platform in platforms:
        plugin = _plugin(platform)
        if plugin is None:
            return []  # a Qt laid out otherwise: let Qt itself say what it lacks
        try:
            output = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            return []
        lacking = libraries_not_found(output)
        if not lacking:
            return []
        missing = lacking  # the last one tried (X11) is the one to mend: it works on every desktop
    return missing


def cannot_open_window(missing: list[str]) -> str:
    """One line a person can act on."""
    packages = " ".join(dict.fromkeys(debian_package(name) for name in missing))
    return (f"desktop-rag cannot open its window: this computer lacks the system libraries {', '.join(missing)}. "
            f"Install them (Debian, Ubuntu: sudo apt install {packages}) and start desktop-rag again; "
            "searching from the command line works without them.")


def tell_on_the_desktop(message: str) -> None:
    """For a person who started the app from a menu and sees no terminal: a desktop notification, if the system
    has the program for one (libnotify's notify-send)."""
    notify = shutil.which("notify-send")
    if notify:
        try:
            subprocess.run([notify, "--app-name=desktop-rag", "desktop-rag cannot start", message], timeout=5,
                           capture_output=True)
        except (OSError, subprocess.SubprocessError):
            pass
