"""Two processes each holding their copy of the settings (the service and a CLI, or the window): a change by one
does not undo the other's (settings_store.py)."""

from __future__ import annotations

import json

from desktop_rag.config import SETTINGS_FILE, Settings


def test_a_change_by_one_process_keeps_what_another_changed_since_it_read_the_file(tmp_path):
    Settings().save(tmp_path)
    service, window = Settings.load(tmp_path), Settings.load(tmp_path)  # both read the same file
    service.change({"llm_upgrade_paused": True}, tmp_path)
    window.change({"ocr": False}, tmp_path)  # its copy still says "not paused"
    stored = json.loads((tmp_path / SETTINGS_FILE).read_text())
    assert stored["llm_upgrade_paused"] is True and stored["ocr"] is False
    assert Settings.load(tmp_path).llm_upgrade_paused is True


def test_a_missing_or_damaged_file_is_written_whole_from_the_process_that_changes_it(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text("{not json")
    settings = Settings()
    settings.change({"ocr": False}, tmp_path)
    stored = json.loads((tmp_path / SETTINGS_FILE).read_text())
    assert stored["ocr"] is False and stored["contexts"] == settings.contexts
