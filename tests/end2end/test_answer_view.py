"""Asking in the window (ui/answer_view.py, issue 63), as a person does: a question typed and Ctrl+Enter, answered by
the real service with the shipped 1.5B — the evidence and the numbered passages first, then the answer's sentences,
each checked, with markers that select their passage and mark the cited words in the preview; Esc stops an answer
being written; with no model to load, the evidence answers; the quick popup asks the same way. Real window
(offscreen), real processes."""

from __future__ import annotations

import os
import time

import pytest
from PySide6.QtCore import QPoint, Qt

from cli_runner import cli
from desktop_rag.config import Settings
from desktop_rag.ui.answer_view import AnswerView
from desktop_rag.ui.theme import LIGHT
from test_answering import LEASE_FILE, MINUTES_FILE
from test_ui import WAIT_MS, index_and_wait
from window_sessions import stop_the_service

RULES = Settings(contexts="rules", llm_upgrade_when_idle=False)
EVIDENCE = [{"passage": n % 2 + 1, "path": "/docs/invoice_tools.py", "title": "invoice_tools.py",
             "text": f"Simple interest charged on overdue invoices, clause {n}: 0.05% of the amount per day late."}
            for n in range(3)]
SENTENCE = {"text": "Interest is 0.05% of the amount per day late.", "cites": [1], "supported": True,
            "reason": "", "missing": []}


@pytest.fixture
def lease_window(qtbot, window, docs):
    """The window (conftest.py's: a client of the service it starts, closed with it) on a lease and minutes."""
    def open_with(settings: Settings):
        (docs / "lease.md").write_text(LEASE_FILE)
        (docs / "minutes.md").write_text(MINUTES_FILE)
        opened = window(settings)
        index_and_wait(qtbot, opened, docs)
        qtbot.waitUntil(lambda: not opened.search.meaning_model_loading, timeout=WAIT_MS)
        return opened

    return open_with


def ask(qtbot, panel, question: str, until=lambda view: not view.answering) -> list[str]:
    """Typed and Ctrl+Enter; the answer's steps as the window heard them."""
    heard: list[str] = []
    panel.window().link.answer.connect(lambda event: heard.append(event["state"]))
    panel.query.setText(question)
    qtbot.keyClick(panel.query, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: until(panel.answer), timeout=WAIT_MS)
    return heard


def click_text(qtbot, browser, text: str) -> None:
    """A left click on `text` where the browser shows it (a marker's link)."""
    cursor = browser.document().find(text)
    assert not cursor.isNull(), browser.toPlainText()
    cursor.setPosition(cursor.selectionStart() + 1)
    where = browser.cursorRect(cursor).center()
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(where.x() + 1, where.y()))


def test_a_question_is_answered_evidence_first_and_a_marker_selects_its_passage(qtbot, lease_window):
    window = lease_window(RULES)
    panel = window.search
    heard = ask(qtbot, panel, "When does the Harbour Office lease end?",
                until=lambda view: view.shown is not None and view.shown.state == "ended")
    shown = panel.answer.shown
    # The view may end by the request's reply before the event stream's steps arrive (seen once under load).
    qtbot.waitUntil(lambda: "ended" in heard, timeout=WAIT_MS)
    assert heard[0] == "evidence" and "sentence" in heard, heard  # the evidence before the first sentence
    assert shown.sentences and all(s["supported"] for s in shown.sentences), shown.sentences
    assert "31 March 2027" in " ".join(s["text"] for s in shown.sentences)
    assert panel.results.count() == len(shown.hits) and panel.hits[0].path.endswith("lease.md")
    text = panel.answer.toPlainText()
    assert "Evidence from your files" in text and "[1] lease.md" in text, text
    panel.results.setCurrentRow(1)
    click_text(qtbot, panel.answer, f"[{shown.sentences[0]['cites'][0]}]")
    assert panel.results.currentRow() == 0 and panel.results.hasFocus()
    # The cited sentence's words marked in the lease as the preview shows it (the highlight's background).
    qtbot.waitUntil(lambda: "2027</span>" in panel.preview.toHtml(), timeout=WAIT_MS)
    opened = []
    panel.open_file = lambda path, page: opened.append(path)
    qtbot.keyClick(panel.results, Qt.Key.Key_Return)
    assert opened and opened[0].endswith("lease.md")


def test_esc_stops_an_answer_being_written_within_a_second(qtbot, lease_window):
    window = lease_window(RULES)
    panel = window.search
    ended: list[tuple[float, dict]] = []
    shown_end = panel.answer.end
    panel.answer.end = lambda answer: (ended.append((time.monotonic(), answer)), shown_end(answer))
    ask(qtbot, panel, "Who keeps the keys of the Harbour Office, what is the rent and who is paid?",
        until=lambda view: view.shown is not None and view.shown.state == "writing")
    pressed = time.monotonic()
    qtbot.keyClick(panel.query, Qt.Key.Key_Escape)
    assert panel.answer.shown.state == "stopped" and panel.query.text()  # the question stays
    qtbot.waitUntil(lambda: bool(ended), timeout=WAIT_MS)
    at, answer = ended[0]
    assert answer["cancelled"] and at - pressed < 1.0, (at - pressed, answer)
    assert "Stopped." in panel.answer.toPlainText()


def test_with_no_model_to_load_the_evidence_answers(qtbot, lease_window, tmp_path):
    window = lease_window(Settings(contexts="rules", llm_upgrade_when_idle=False,
                                   llm_model=str(tmp_path / "no-such-model.gguf")))
    panel = window.search
    heard = ask(qtbot, panel, "When does the Harbour Office lease end?",
                until=lambda view: view.shown is not None and not view.answering)
    text = panel.answer.toPlainText()
    assert panel.answer.shown.state == "ended", (heard, text)
    assert "No answer written" in text and "31 March 2027" in text, text
    assert panel.answer.shown.sentences == []


def test_the_quick_popup_asks_too_its_steps_followed_from_the_service(qtbot, data_dir, docs):
    """`desktop-rag quick`: Ctrl+Enter in its field asks the running service; the evidence comes before the end
    (service/answer_events.py), a marker selects its numbered passage, Esc first stops, then closes."""
    from desktop_rag.ui.quick_search import QuickSearch, ServiceSearch

    (docs / "lease.md").write_text(LEASE_FILE)
    (docs / "minutes.md").write_text(MINUTES_FILE)
    as_a_person = {k: v for k, v in os.environ.items() if k != "DESKTOP_RAG_START_SERVICE"}
    cli(data_dir, "index", str(docs), "--contexts", "rules", env=as_a_person)  # the service runs on
    popup = QuickSearch(ServiceSearch(data_dir))
    qtbot.addWidget(popup)
    popup.show()
    states: list[str] = []
    popup._answer_step.connect(lambda event: states.append(event["state"]))
    try:
        popup.field.setText("When does the Harbour Office lease end?")
        qtbot.keyClick(popup.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: popup.answer.shown is not None and not popup.answer.answering, timeout=WAIT_MS)
        shown = popup.answer.shown
        assert shown.state == "ended", (shown, popup.answer.toPlainText())
        assert states[:1] == ["evidence"] and "sentence" in states, states
        assert "31 March 2027" in " ".join(s["text"] for s in shown.sentences if s["supported"]), shown.sentences
        assert popup.hits[0].path.endswith("lease.md") and popup.results.count() == len(shown.hits)
        popup.results.setCurrentRow(1)
        click_text(qtbot, popup.answer, f"[{shown.sentences[0]['cites'][0]}]")
        assert popup.results.currentRow() == shown.sentences[0]["cites"][0] - 1
        qtbot.keyClick(popup.field, Qt.Key.Key_Escape)  # nothing being written: Esc closes
        assert not popup.isVisible()
    finally:
        popup.close()
        stop_the_service(data_dir)


def test_a_question_asked_while_the_model_upgrades_contexts_is_answered_first(qtbot, lease_window, docs):
    """The background upgrade writes contexts with the same local 1.5B; a question asked meanwhile takes the model
    (its step in hand cut short, none started until the answer ends) and the upgrade goes on after."""
    from test_ui_background import boiler_manual, writing

    boiler_manual(docs)  # passages for the upgrade to write contexts for while the question is asked
    window = lease_window(Settings(contexts="auto", llm_only_when_idle=False, llm_only_on_mains=False,
                                   chunk_tokens=64, chunk_overlap_tokens=0))
    qtbot.waitUntil(lambda: writing(window), timeout=WAIT_MS)
    ended: list[dict] = []
    shown_end = window.search.answer.end
    window.search.answer.end = lambda answer: (ended.append(answer), shown_end(answer))
    asked = time.monotonic()
    ask(qtbot, window.search, "When does the Harbour Office lease end?",
        until=lambda view: view.shown is not None and view.shown.state == "ended")
    took = time.monotonic() - asked
    seconds = ended[0]["seconds"]
    assert "31 March 2027" in " ".join(s["text"] for s in ended[0]["sentences"] if s["supported"]), ended[0]
    # Measured here, 2 cores (4 runs): the evidence in 0.1 s, the first word in 6.5–8 s (4.5 s with the model
    # idle), the whole in 7.5–9.5 s; bounds with room for a busy CI machine. The upgrade's calls here last ~2 s,
    # so the answer came as soon without its hold (tried): the hold's cut is tests/unit/core/runs/test_upgrade_turn's.
    assert seconds["evidence"] < 2.0 and seconds["first_words"] < 15.0 and took < 30.0, (seconds, took)
    qtbot.waitUntil(lambda: writing(window), timeout=WAIT_MS)  # the upgrade goes on


def test_the_answer_is_drawn_once_when_its_growth_brings_the_scroll_bar(qtbot):
    """A redraw for the width the scroll bar took ran inside the drawing it interrupted: the whole answer was shown
    twice, the second copy after the evidence (seen in the screenshot). The view alone, its steps given by hand."""
    view = AnswerView(LIGHT, most_height=90)  # short: the answer's growth brings the scroll bar
    qtbot.addWidget(view)
    view.resize(700, 90)
    view.show()
    view.begin("How much interest is charged on a late payment?")
    view.evidence(False, EVIDENCE, [{"path": "/docs/invoice_tools.py", "title": "invoice_tools.py"}] * 2)
    view.sentence(SENTENCE)
    qtbot.wait(50)
    assert view.verticalScrollBar().isVisible()
    text = view.toPlainText()
    assert text.count("How much interest is charged") == 1 and text.count("Interest is 0.05%") == 1, text
