"""Every macOS call the platform pieces make, in one place, each with the tool or API it uses; on Linux the
pieces' tests give their own in their place. None of them has run on a Mac yet (docs/porting.md)."""

from __future__ import annotations

import subprocess


def hid_system_properties() -> str:
    """IOKit's IOHIDSystem entry as `ioreg` prints it: its HIDIdleTime is the ns since the last input."""
    return subprocess.run(["ioreg", "-c", "IOHIDSystem", "-d", "4"], capture_output=True, text=True,
                          timeout=2).stdout
