"""What the computer is doing, for deciding when background LLM work may run: how long since the last keyboard or
mouse input, how busy other programs keep the CPU, and whether it runs on battery.

Each probe answers None when the platform cannot tell; the schedule then relies on what it can see (the app's own
input, the CPU load).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import subprocess
import sys
import time

import psutil


def seconds_since_input() -> float | None:
    """Since the last keyboard or mouse input anywhere on the desktop, or None where that cannot be read
    (Wayland, no display)."""
    try:
        if sys.platform == "win32":
            return _windows_idle_seconds()
        if sys.platform == "darwin":
            return _macos_idle_seconds()
        if os.environ.get("DISPLAY"):
            return _x11_idle_seconds()
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return None


def _windows_idle_seconds() -> float | None:
    from desktop_rag.platform.windows_calls import milliseconds_since_input

    ticks = milliseconds_since_input()
    return None if ticks is None else idle_from_ticks(*ticks)


def idle_from_ticks(now_ms: int, last_input_ms: int) -> float:
    """GetTickCount and GetLastInputInfo count 32-bit milliseconds since boot, and wrap after 49.7 days."""
    return ((now_ms - last_input_ms) & 0xFFFFFFFF) / 1000.0


def _macos_idle_seconds() -> float | None:
    from desktop_rag.platform.macos_calls import hid_system_properties

    return idle_from_ioreg(hid_system_properties())


def idle_from_ioreg(output: str) -> float | None:
    """HIDIdleTime (nanoseconds) from `ioreg -c IOHIDSystem`'s listing."""
    for line in output.splitlines():
        if '"HIDIdleTime"' in line:
            return int(line.rsplit("=", 1)[1].strip()) / 1e9
    return None


class _XScreenSaverInfo(ctypes.Structure):
    _fields_ = [("window", ctypes.c_ulong), ("state", ctypes.c_int), ("kind", ctypes.c_int),
                ("til_or_since", ctypes.c_ulong), ("idle", ctypes.c_ulong), ("eventMask", ctypes.c_ulong)]


_x11: tuple | None = None


def _x11_idle_seconds() -> float | None:
    """The X screen saver extension's idle time (libXss), opened once."""
    global _x11  # noqa: PLW0603 — the library is opened once per process
    if _x11 is None:
        xlib_name, xss_name = ctypes.util.find_library("X11"), ctypes.util.find_library("Xss")
        if not xlib_name or not xss_name:
            _x11 = ()
            return None
        xlib, xss = ctypes.CDLL(xlib_name), ctypes.CDLL(xss_name)
        xlib.XOpenDisplay.restype = ctypes.c_void_p
        xlib.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        xlib.XDefaultRootWindow.restype = ctypes.c_ulong
        xss.XScreenSaverAllocInfo.restype = ctypes.POINTER(_XScreenSaverInfo)
        xss.XScreenSaverQueryInfo.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(_XScreenSaverInfo)]
        display = xlib.XOpenDisplay(None)
        _x11 = (xlib, xss, display, xss.XScreenSaverAllocInfo()) if display else ()
    if not _x11:
        return None
    xlib, xss, display, info = _x11
    if not xss.XScreenSaverQueryInfo(display, xlib.XDefaultRootWindow(display), info):
        return None
    return info.contents.idle / 1000.0


def on_battery() -> bool | None:
    """True when running on battery, False on mains (or with no battery at all), None when unknown."""
    try:
        battery = psutil.sensors_battery()
    except (OSError, NotImplementedError, AttributeError):
        return None
    if battery is None:
        return False  # a desktop: always on mains
    return None if battery.power_plugged is None else not battery.power_plugged


class OtherProgramsLoad:
    """The share of the whole CPU that programs other than this app and its children used since the last call.

    The app's own work (the language model most of all) must not count, or background work would keep itself
    from running. Its CPU time is counted per process, so a child that ends (the model released) does not look
    like others' work."""

    def __init__(self):
        self._me = psutil.Process()
        self._last: tuple[float, float, dict[int, float]] | None = None

    def sample(self) -> float | None:
        now = time.monotonic()
        busy = _system_busy_seconds()
        own = self._own_cpu_seconds()
        last, self._last = self._last, (now, busy, own)
        if last is None or now <= last[0]:
            return None
        capacity = (now - last[0]) * (psutil.cpu_count() or 1)
        # A process new since the last sample: all its time is recent.
        own_used = sum(seconds - last[2].get(pid, 0.0) for pid, seconds in own.items())
        return min(max(((busy - last[1]) - own_used) / capacity, 0.0), 1.0)

    def _own_cpu_seconds(self) -> dict[int, float]:
        seconds = {}
        for process in [self._me, *self._me.children(recursive=True)]:
            try:
                times = process.cpu_times()
            except psutil.Error:  # a child that just ended
                continue
            seconds[process.pid] = times.user + times.system
        return seconds


def _system_busy_seconds() -> float:
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)
