"""The Settings dialog while something else changes a setting (issue 60, 3): the terminal set the LLM's idle minutes
to 5, then 7, while the dialog still showed 3 — and Save wrote 3 back. The dialog (offscreen) shows a change made
meanwhile in every field the person has not touched, and Save writes only what the person changed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop_rag.config import Settings
from desktop_rag.ui.settings_dialog import SettingsDialog

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints()")


def test_a_change_made_meanwhile_is_shown_and_save_writes_only_what_the_person_changed(qtbot, tmp_path):
    before = Settings(llm_idle_minutes=3, llm_threads=2, ignore_patterns=["*.tmp"], llm_context_levels="chunk")
    dialog = SettingsDialog(before, str(tmp_path), None)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.threads.setValue(4)  # the person's change
    elsewhere = replace(before, llm_idle_minutes=7, llm_threads=1, ignore_patterns=["*.tmp", "*.bak"],
                        llm_context_levels="document+section")
    dialog.follow(elsewhere)  # the terminal's, heard by the window
    assert dialog.idle_minutes.value() == 7 and dialog.ignore.toPlainText() == "*.tmp\n*.bak"
    assert dialog.levels.currentData() == "document+section"
    assert dialog.threads.value() == 4  # the person's own edit is kept
    assert dialog.edited() == {"llm_threads": 4}
    saved = replace(elsewhere, **dialog.edited())  # what the window saves (MainWindow.open_settings)
    assert (saved.llm_idle_minutes, saved.llm_threads) == (7, 4)
