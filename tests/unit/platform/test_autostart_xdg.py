"""The autostart entry (platform/autostart_xdg.py): written, read back as the session would run it, removed."""

from __future__ import annotations

import sys

from desktop_rag.platform import autostart_xdg as autostart
from desktop_rag.platform.autostart_names import PREFIX


def test_the_entry_runs_the_service_of_its_data_folder_hidden_and_is_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    data_dir = tmp_path / "my data $HOME \"quoted\" 100%"  # every character the Exec line must quote
    data_dir.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    assert not autostart.is_enabled(data_dir)
    entry = autostart.enable(data_dir)
    assert entry.parent == tmp_path / "config" / "autostart" and entry.name.startswith(PREFIX)
    text = entry.read_text()
    assert "NoDisplay=true" in text and "Type=Application" in text
    assert autostart.command_of(entry) == [sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir),
                                           "service"]
    assert autostart.entry_path(other) != entry  # one entry per data folder
    assert autostart.is_enabled(data_dir) and not autostart.is_enabled(other)
    assert autostart.disable(data_dir) and not entry.exists() and not autostart.disable(data_dir)
