"""Opening a file the system's way on each desktop (platform/opening.py): xdg-open or macOS's open, whose exit
code says whether a program took the file, and Windows' ShellExecute (a function standing in for it here)."""

from __future__ import annotations

import threading

from desktop_rag.platform import opening


def _waited(event: threading.Event) -> bool:
    return event.wait(15)


def test_macos_opens_with_open_and_linux_with_xdg_open(tmp_path, monkeypatch):
    for name in ("open", "xdg-open"):
        (tmp_path / name).write_text("#!/bin/sh\nexit 1\n")
        (tmp_path / name).chmod(0o700)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(opening, "SYSTEM", "darwin")
    assert opening.system_opener() == str(tmp_path / "open")  # its exit code is heard as xdg-open's (end2end)
    monkeypatch.setattr(opening, "SYSTEM", "linux")
    assert opening.system_opener() == str(tmp_path / "xdg-open")


def test_windows_shell_execute_refusing_is_heard_and_taking_is_not(tmp_path, monkeypatch):
    monkeypatch.setattr(opening, "SYSTEM", "win32")
    assert opening.system_opener() is None
    started, failed = [], threading.Event()

    def fake_shell_execute(target):
        started.append(target)
        if target.endswith(".xyz"):
            raise OSError("[WinError 1155] No application is associated with the specified file")

    assert opening.open_target(r"C:\docs\a.xyz", failed.set, start=fake_shell_execute)
    assert _waited(failed) and started == [r"C:\docs\a.xyz"]
    taken = threading.Event()
    opening.open_target(r"C:\docs\a.pdf", taken.set, start=lambda target: started.append(target))
    assert not taken.wait(0.5) and started[-1] == r"C:\docs\a.pdf"


def test_without_an_opener_the_caller_falls_back(monkeypatch):
    monkeypatch.setattr(opening, "SYSTEM", "freebsd14")
    assert opening.open_target("/tmp/x", lambda: None) is False
