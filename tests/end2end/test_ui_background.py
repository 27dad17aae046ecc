"""The laptop stays the person's while the LLM writes contexts in the background: the real window over a real
library (embedding model, Chroma, BM25, the reader's child), with a slow fake model (tests/fake_models.py) whose
steps last as long as a real one's on 2 cores unless cut short. File changes are searchable within 3 s, Pause and
Cancel hold within 1 s and keep holding after the next batch and a restart, Quit takes under 2 s."""

import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop_rag.config import Settings
from desktop_rag.core.runs.lane import MAKE_WAY_S
from desktop_rag.core.runs import lane
from fake_models import SlowFakeModel
from test_ui import WAIT_MS, index_and_wait, shown_window

# `auto` with no LLM time in the run: rules contexts at once, the LLM's in the background upgrade.
BACKGROUND = dict(contexts="auto", llm_only_when_idle=False, chunk_tokens=64,
                  chunk_overlap_tokens=0)


@pytest.fixture
def app_window(qtbot, make_library):
    """A window over the data folder with a fake model; called again after closing, it is a restart."""
    opened = []

    def open_window(model: SlowFakeModel, settings: Settings | None = None):
        for window in opened:
            window.close()
            window.library.close()  # one writer per data folder: the next window's library takes over
        library = make_library(settings)
        library.llm_backend = lambda: model
        window = shown_window(qtbot, library)
        opened.append(window)
        return window

    yield open_window
    for window in opened:
        window.close()


def boiler_manual(docs: Path) -> None:
    """Long enough for several steps of chunk contexts."""
    (docs / "manual.md").write_text("# Boiler manual\n\n" + "\n\n".join(
        f"## Part {i}\n\n" + f"Part {i} explains setting number {i} of the boiler pressure valve. " * 6
        for i in range(12)))


def found(window, word: str) -> list[str]:
    """File names a hybrid search finds for `word` (searched directly: the test times the index, not the view)."""
    return [Path(h.path).name for h in window.library.search(word, k=5).hits if word in h.text.lower()]


def llm_contexts(window) -> int:
    return window.library.reader.stats()["contexts_by_source"].get("llm", 0)


def seconds_until(qtbot, condition, timeout_ms: int = 30_000) -> float:
    started = time.monotonic()
    qtbot.waitUntil(condition, timeout=timeout_ms)
    return time.monotonic() - started


def test_files_saved_renamed_and_deleted_are_in_search_within_3_s_while_the_llm_works(qtbot, app_window, docs):
    boiler_manual(docs)
    model = SlowFakeModel(fast_calls=1)  # the first step is written; the next lasts two minutes
    win = app_window(model, Settings(**BACKGROUND))
    index_and_wait(qtbot, win, docs)
    qtbot.waitUntil(model.working.is_set, timeout=WAIT_MS)
    assert "in the background" in win.progress.title.text()
    qtbot.waitUntil(lambda: "writing now" in win.progress.background.text(), timeout=5000)  # the next tick says so
    written = llm_contexts(win)
    assert written == 8  # the first step, stored

    (docs / "quokka.md").write_text("# Quokkas\n\nThe quokka is a small wallaby of Rottnest Island.\n")
    assert seconds_until(qtbot, lambda: found(win, "quokka") == ["quokka.md"]) <= 3.0
    qtbot.waitUntil(model.working.is_set, timeout=WAIT_MS)  # then the upgrade went on by itself
    (docs / "quokka.md").rename(docs / "wallaby.md")
    assert seconds_until(qtbot, lambda: found(win, "quokka") == ["wallaby.md"]) <= 3.0
    qtbot.waitUntil(model.working.is_set, timeout=WAIT_MS)
    (docs / "wallaby.md").unlink()
    assert seconds_until(qtbot, lambda: found(win, "quokka") == []) <= 3.0

    assert model.interrupted >= 3  # each change cut a step short…
    assert llm_contexts(win) >= written  # …and no finished context was lost


def test_pause_and_cancel_hold_within_a_second_through_file_changes_and_a_restart(qtbot, app_window, docs):
    boiler_manual(docs)
    model = SlowFakeModel(fast_calls=1)
    win = app_window(model, Settings(**BACKGROUND))
    index_and_wait(qtbot, win, docs)
    qtbot.waitUntil(model.working.is_set, timeout=WAIT_MS)

    clicked = time.monotonic()
    qtbot.mouseClick(win.progress.pause_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.background.control is None, timeout=5000)
    assert model.interrupted_at[0] - clicked <= 1.0 and not model.working.is_set()
    qtbot.waitUntil(lambda: "paused" in win.progress.background.text(), timeout=5000)
    assert win.progress.background_button.text() == "Resume"
    assert Settings.load(win.library.data_dir).llm_upgrade_paused

    calls = model.calls
    (docs / "note.md").write_text("# Note\n\nA note saved while the upgrade is paused.\n")
    qtbot.waitUntil(lambda: "Updated from disk: 1 indexed" in win.statusBar().currentMessage(), timeout=WAIT_MS)
    qtbot.wait(int((MAKE_WAY_S + 2) * 1000))
    assert model.calls == calls and not model.working.is_set()  # the batch did not undo the pause

    model = SlowFakeModel()
    win = app_window(model)  # a restart: settings as saved in the data folder
    qtbot.waitUntil(lambda: "paused" in win.progress.background.text(), timeout=WAIT_MS)
    qtbot.wait(int((MAKE_WAY_S + 2) * 1000))
    assert model.calls == 0

    qtbot.mouseClick(win.progress.background_button, Qt.MouseButton.LeftButton)  # Resume
    qtbot.waitUntil(model.working.is_set, timeout=WAIT_MS)
    clicked = time.monotonic()
    qtbot.mouseClick(win.progress.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.background.control is None, timeout=5000)
    assert model.interrupted_at[0] - clicked <= 1.0
    qtbot.waitUntil(lambda: "off" in win.progress.background.text(), timeout=5000)
    assert win.progress.background_button.text() == "Start"
    assert not Settings.load(win.library.data_dir).llm_upgrade_when_idle

    (docs / "later.md").write_text("# Later\n\nA note saved after the upgrade was cancelled.\n")
    qtbot.waitUntil(lambda: "Updated from disk: 1 indexed" in win.statusBar().currentMessage(), timeout=WAIT_MS)
    model = SlowFakeModel()
    win = app_window(model)
    qtbot.waitUntil(lambda: "off" in win.progress.background.text(), timeout=WAIT_MS)
    qtbot.wait(int((MAKE_WAY_S + 2) * 1000))
    assert model.calls == 0  # cancelled stays cancelled until the person starts it again
    qtbot.mouseClick(win.progress.background_button, Qt.MouseButton.LeftButton)  # Start
    qtbot.waitUntil(model.working.is_set, timeout=WAIT_MS)


@pytest.mark.parametrize("state", ["writing LLM contexts", "indexing", "starting"])
def test_quit_takes_under_2_s_in_every_state_with_an_orderly_log_and_nothing_lost(qtbot, tmp_path, docs,
                                                                                  monkeypatch, state):
    from desktop_rag.ui.app import AppSession

    monkeypatch.delenv("DESKTOP_RAG_DATA_DIR", raising=False)
    data = tmp_path / "data"
    Settings(**BACKGROUND, keep_fresh_when_closed=False).save(data)  # (the service after it: test_window_service)
    boiler_manual(docs)
    written = 0
    session = AppSession(data)  # as the app runs: Chroma, the models and the reader in child processes
    model = SlowFakeModel(fast_calls=1)
    session.library.llm_backend = lambda: model
    win = session.window
    with qtbot.waitActive(win):
        win.show()
    try:
        if state == "writing LLM contexts":
            index_and_wait(qtbot, win, docs)
            qtbot.waitUntil(model.working.is_set, timeout=WAIT_MS)
            written = llm_contexts(win)
            (docs / "more.md").write_text("# More\n\nSaved just before quitting.\n")  # a batch may be in hand
            qtbot.wait(400)
        elif state == "indexing":
            for i in range(400):
                (docs / f"note{i:03}.md").write_text(f"# Note {i}\n\n" + f"Paragraph {i} about herons. " * 80)
            win.add_folder(str(docs))
            qtbot.waitUntil(lambda: win.progress.bars["embed"].value() > 0, timeout=WAIT_MS)  # embedding
        # "starting": at once, while the embedding model loads in its child
    finally:
        started = time.monotonic()
        win.close()
        session.close()
        quit_seconds = time.monotonic() - started
    assert quit_seconds <= 2.0
    log = (data / "logs" / "window.log").read_text()
    assert not [line for line in log.splitlines() if " ERROR " in line or " WARNING " in line], log
    assert "Traceback" not in log

    reopened = AppSession(data)
    try:
        assert reopened.library.catalog.stats()["contexts_by_source"].get("llm", 0) >= written
    finally:
        reopened.window.close()
        reopened.close()


def test_when_nothing_is_left_to_upgrade_the_model_s_memory_is_given_back(qtbot, app_window, docs):
    boiler_manual(docs)
    model = SlowFakeModel(fast_calls=1000)  # every step answers at once
    win = app_window(model, Settings(**BACKGROUND))
    released = []  # (model calls so far, chunks waiting) at each release
    win.library.release_llm_model = lambda: released.append((model.calls, win.background.waiting))
    index_and_wait(qtbot, win, docs)
    # A release may also come before the upgrade began (while the first run had not yet counted its chunks);
    # the one that matters comes after the model was used, once nothing is left.
    qtbot.waitUntil(lambda: any(calls > 0 and waiting == 0 for calls, waiting in released), timeout=WAIT_MS)
    assert win.background.waiting == 0 and llm_contexts(win) > 0
    qtbot.waitUntil(lambda: win.progress.background.text() == "LLM contexts: none waiting.", timeout=5000)


def test_the_app_upgrades_rules_contexts_only_when_contexts_are_auto(qtbot, app_window, docs):
    """As `watch` and `serve` do (test_write_lane.py): `rules` means no model at work, whatever else allows it."""
    boiler_manual(docs)
    model = SlowFakeModel(seconds=0)
    win = app_window(model, Settings(**{**BACKGROUND, "contexts": "rules"}))
    index_and_wait(qtbot, win, docs)
    qtbot.waitUntil(lambda: win.background.decision.reason == "contexts are set to rules", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "contexts are set to rules" in win.progress.background.text(), timeout=WAIT_MS)
    assert win.background.action is None  # no Start or Pause that would change nothing
    assert model.calls == 0 and win.library.reader.stats()["contexts_awaiting_upgrade"] > 0
    win.library.settings.contexts = "auto"  # as the Settings dialog saves it
    win.background.settings_changed()
    qtbot.waitUntil(lambda: win.library.reader.stats()["contexts_awaiting_upgrade"] == 0, timeout=WAIT_MS)
    assert model.calls > 0


def test_a_change_batch_that_fails_is_said_kept_and_applied_on_its_retry(qtbot, app_window, docs, monkeypatch):
    monkeypatch.setattr(lane, "RETRY_FIRST_S", 1.0)  # the window's WriteLane, made after this
    (docs / "garden.md").write_text("# Garden\n\nTurn the compost heap every two weeks.\n")
    win = app_window(SlowFakeModel(), Settings(contexts="rules"))
    index_and_wait(qtbot, win, docs)
    apply_changes, said = win.library.apply_changes, []

    def apply_changes_failing_once(*args, **kwargs):  # an injected fault: the disk full for a moment
        win.library.apply_changes = apply_changes
        raise OSError(28, "No space left on device")

    win.library.apply_changes = apply_changes_failing_once
    win.follower.failed.connect(said.append)
    (docs / "quokka.md").write_text("# Quokkas\n\nThe quokka is a small wallaby of Rottnest Island.\n")
    qtbot.waitUntil(lambda: bool(said), timeout=WAIT_MS)
    assert said[0].startswith("Applying 1 file change(s) failed; trying again in 1 s: The disk is full."), said
    qtbot.waitUntil(lambda: found(win, "quokka") == ["quokka.md"], timeout=WAIT_MS)  # not left for the next event
