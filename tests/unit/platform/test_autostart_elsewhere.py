"""The macOS and Windows autostart entries (platform/autostart_macos.py, autostart_windows.py), on Linux: the
LaunchAgent written under a home made for the test; the Run value written into a dictionary standing in for the
registry (FakeRunKey), and its command line split back as Windows' C runtime would."""

from __future__ import annotations

import plistlib
import subprocess
import sys

import pytest

from desktop_rag.platform import autostart, autostart_macos, autostart_windows


class FakeRunKey:
    """HKCU\\...\\Run as a dictionary: the registry calls of windows_calls.RunKey, not made here."""

    def __init__(self):
        self.values: dict[str, str] = {}

    def get(self, name):
        return self.values.get(name)

    def set(self, name, command):
        self.values[name] = command

    def delete(self, name):
        return self.values.pop(name, None) is not None


def test_the_launch_agent_runs_the_service_of_its_data_folder_in_the_background(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    data_dir, other = tmp_path / "my data \"x\" 100%", tmp_path / "other"
    data_dir.mkdir()
    other.mkdir()
    entry = autostart_macos.enable(data_dir)
    assert entry.parent == tmp_path / "home" / "Library" / "LaunchAgents" and entry.suffix == ".plist"
    agent = plistlib.loads(entry.read_bytes())
    assert agent["Label"] == entry.stem and agent["Label"].startswith("org.desktop-rag.desktop-rag-service-")
    assert agent["RunAtLoad"] is True and agent["ProcessType"] == "Background" and agent["KeepAlive"] is False
    assert autostart_macos.command_of(entry) == [sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir),
                                                 "service"]
    assert autostart_macos.is_enabled(data_dir) and not autostart_macos.is_enabled(other)
    assert autostart_macos.disable(data_dir) and not entry.exists() and not autostart_macos.disable(data_dir)


def test_the_run_value_starts_the_service_without_a_console_and_splits_back_whole(tmp_path, monkeypatch):
    registry = FakeRunKey()
    monkeypatch.setattr(sys, "executable", r"C:\Users\Ann Lee\desktop-rag\.venv\Scripts\python.exe")
    data_dir = tmp_path / 'data with "quotes" and trailing backslash\\'
    name = autostart_windows.enable(data_dir, registry)
    assert name.startswith("desktop-rag-service-") and list(registry.values) == [name]
    arguments = autostart_windows.command_of(data_dir, registry)
    assert arguments[0] == r"C:\Users\Ann Lee\desktop-rag\.venv\Scripts\pythonw.exe"
    assert arguments[1:] == ["-m", "desktop_rag", "--data-dir", str(data_dir.resolve()), "service"]
    assert autostart_windows.is_enabled(data_dir, registry)
    assert autostart_windows.disable(data_dir, registry) and not autostart_windows.disable(data_dir, registry)
    assert not autostart_windows.is_enabled(data_dir, registry)


@pytest.mark.parametrize("arguments", [
    ["plain"], ["with space"], ['a"quote'], ["trailing\\"], ["two\\\\", 'x\\"y'], ["", "empty before"],
    [r"C:\Program Files\x\\", 'say "hi"\\'],
])
def test_windows_command_lines_split_back_to_their_arguments(arguments):
    assert autostart_windows.split_command_line(subprocess.list2cmdline(arguments)) == arguments


def test_each_system_gets_its_own_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    data_dir = tmp_path / "data"
    monkeypatch.setattr(autostart, "SYSTEM", "darwin")
    autostart.enable(data_dir)
    assert autostart.is_enabled(data_dir) and list((tmp_path / "home" / "Library" / "LaunchAgents").iterdir())
    assert not (tmp_path / "config" / "autostart").exists()
    assert autostart.disable(data_dir)
    monkeypatch.setattr(autostart, "SYSTEM", "linux")
    autostart.enable(data_dir)
    assert [p.suffix for p in (tmp_path / "config" / "autostart").iterdir()] == [".desktop"]
