"""A question's answer above the hits (issue 63), drawn from the service's steps as they come: the evidence
sentences at once, each with the document it is from; then the model's sentences as it writes them, each ending in
markers [1] [2] that are links to the numbered passages below; a sentence the passages it cites do not hold is
shown apart, in grey, as not found in your files, with why (shown rather than left out: a person sees what the
model claimed and that it was not found, instead of an answer that silently lost a sentence). When the files don't
seem to say, it says so and the nearest passages stay listed.

It holds one answer's state and draws it whole at each step (a handful of sentences); the search view asks, follows
the "answer" events and selects the passage a marker names (ui/search_panel.py)."""

from __future__ import annotations

import html
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer, QUrl, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QTextBrowser, QWidget

from desktop_rag.core.answering.asking import NOT_SAID
from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.core.search.highlight import QueryMatch
from desktop_rag.core.search.searcher import Hit
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.documents import folder_and_name
from desktop_rag.ui.result_html import Colors
from desktop_rag.ui.tasks import TaskRunner

MOST_HEIGHT = 360  # pixels: a long answer scrolls inside it
STATES = {"evidence": "Finding the evidence…", "writing": "Writing the answer…", "stopped": "Stopped.",
          "ended": ""}


@dataclass
class AnswerShown:
    """One answer as far as it has come."""
    question: str
    state: str = "evidence"  # evidence → writing → ended (or stopped)
    not_said: bool = False
    evidence: list[dict[str, Any]] = field(default_factory=list)
    sentences: list[dict[str, Any]] = field(default_factory=list)
    hits: list[dict[str, Any]] = field(default_factory=list)
    without_model: str = ""
    seconds: float | None = None


class AnswerView(QTextBrowser):
    cite_clicked = Signal(int, object)  # a passage's number (from 1), QueryMatch | None: the words to mark there

    def __init__(self, colors: Colors, parent: QWidget | None = None, most_height: int = MOST_HEIGHT):
        super().__init__(parent)
        self.most_height = most_height
        self.setOpenLinks(False)
        self.anchorClicked.connect(self._clicked)
        self.colors = colors
        self.shown: AnswerShown | None = None
        self.setVisible(False)

    # -- the steps --------------------------------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():  # narrower or wider: taller or shorter
            # Fitted after, and not drawn again: the scroll bar a longer answer brings narrows the viewport inside
            # setHtml, and a drawing begun there ran inside the one it interrupted — the whole answer shown twice.
            QTimer.singleShot(0, self, self._fit_height)

    def begin(self, question: str) -> None:
        self.shown = AnswerShown(question)
        self.setVisible(True)
        self._draw()

    def evidence(self, not_said: bool, evidence: list[dict[str, Any]], hits: list[dict[str, Any]]) -> None:
        if self.shown is None:
            return
        self.shown.not_said, self.shown.evidence, self.shown.hits = not_said, evidence, hits
        self.shown.state = "ended" if not_said else "writing"
        self._draw()

    def sentence(self, sentence: dict[str, Any]) -> None:
        if self.shown is not None and self.shown.state == "writing":
            self.shown.sentences.append(sentence)
            self._draw()

    def end(self, answer: dict[str, Any]) -> None:
        """The whole answer as the service gave it: it stands for whatever steps were shown (or missed)."""
        if self.shown is None:
            return
        self.shown.not_said, self.shown.evidence = answer["not_said"], answer["evidence"]
        self.shown.sentences, self.shown.hits = answer["sentences"], answer["hits"]
        self.shown.without_model = answer["without_model"]
        self.shown.state = "stopped" if answer["cancelled"] else "ended"
        self.shown.seconds = answer["seconds"].get("whole") or answer["seconds"].get("evidence")
        self._draw()

    def stopped(self, why: str = "") -> None:
        if self.shown is not None and self.shown.state not in ("ended", "stopped"):
            self.shown.state = "stopped"
            self.shown.without_model = why or self.shown.without_model
            self._draw()

    @property
    def answering(self) -> bool:
        return self.shown is not None and self.shown.state in ("evidence", "writing")

    def close_answer(self) -> None:
        self.shown = None
        self.clear()
        self.setVisible(False)

    # -- drawing ----------------------------------------------------------------------------------------------

    def _draw(self) -> None:
        if self.shown is not None:
            self.setHtml(answer_html(self.shown, self.colors))
            self._fit_height()

    def _fit_height(self) -> None:
        """As tall as the answer (up to most_height), the hits below taking the rest: a short answer left the
        splitter's half of the window empty."""
        if self.shown is not None:
            self.document().setTextWidth(self.viewport().width())
            wanted = int(self.document().size().height()) + 2 * self.frameWidth() + 4
            self.setMaximumHeight(min(self.most_height, wanted))

    def _clicked(self, url: QUrl) -> None:
        kind, _, rest = url.toString().partition(":")
        if self.shown is None or kind not in ("cite", "evidence"):
            return
        index, _, number = rest.partition(":")
        match = None
        if kind == "cite" and index.isdigit() and int(index) < len(self.shown.sentences):
            found = self.shown.sentences[int(index)].get("match")
            match = QueryMatch.from_dict(found) if found else None
        elif kind == "evidence" and index.isdigit() and int(index) < len(self.shown.evidence):
            match = _words_of(self.shown.evidence[int(index)])
        if number.isdigit():
            self.cite_clicked.emit(int(number), match)


def _words_of(evidence: dict[str, Any]) -> QueryMatch:
    """An evidence sentence's own words, marked where it stands (its passage holds them all)."""
    return QueryMatch.of_words(evidence["text"], frozenset(lexical_tokens(evidence["text"])))


def answer_html(shown: AnswerShown, colors: Colors) -> str:
    muted = f"color:{colors.muted}"
    parts = [f"<p><b>{html.escape(shown.question)}</b>"
             f" <span style='{muted}'>{html.escape(_state_words(shown))}</span></p>"]
    if shown.not_said:
        parts.append(f"<p><b>{NOT_SAID}</b> <span style='{muted}'>The nearest passages are listed below.</span></p>")
    elif shown.sentences:
        said = []
        for index, sentence in enumerate(shown.sentences):
            marks = " ".join(f"<a href='cite:{index}:{n}'>[{n}]</a>" for n in sentence["cites"])
            text = html.escape(sentence["text"])
            if sentence["supported"]:
                said.append(f"{text} {marks}")
            else:
                why = html.escape(sentence.get("reason") or "")
                said.append(f"<span style='{muted}'><i>Not found in your files ({why}):</i> <s>{text}</s></span>"
                            f" {marks}")
        parts.append("<p>" + " ".join(said) + "</p>")
    elif shown.without_model and shown.state == "ended":
        parts.append(f"<p style='{muted}'>No answer written: {html.escape(shown.without_model)}. The evidence "
                     "below is from your files.</p>")
    if shown.evidence:
        heading = "The nearest sentences" if shown.not_said else "Evidence from your files"
        rows = []
        for index, sentence in enumerate(shown.evidence):
            number = sentence["passage"]
            name = _name_of(shown, number, sentence)
            rows.append(f"<li>“{html.escape(' '.join(sentence['text'].split()))}” "
                        f"<a href='evidence:{index}:{number}'>[{number}] {html.escape(name)}</a></li>")
        parts.append(f"<p style='{muted}; margin-bottom:0'>{heading}:</p><ul style='margin-top:0'>"
                     + "".join(rows) + "</ul>")
    return "".join(parts)


def _state_words(shown: AnswerShown) -> str:
    if shown.state == "ended" and shown.seconds is not None:
        return f"answered in {shown.seconds:.1f} s"
    return STATES[shown.state]


def _name_of(shown: AnswerShown, number: int, sentence: dict[str, Any]) -> str:
    if 1 <= number <= len(shown.hits):
        return folder_and_name(shown.hits[number - 1]["path"])[1]
    return folder_and_name(sentence.get("path") or "")[1]


class Answerer(Protocol):
    """Who answers: the window's RemoteLibrary, the quick popup's ServiceSearch."""

    def ask(self, question: str, filters: SearchFilters | None, ask_id: str) -> Any: ...

    def cancel_ask(self, ask_id: str) -> None: ...


class Asking(QObject):
    """The search view's questions: one at a time (a new one, or Esc, cancels the one being answered), asked on
    the task runner's ask lane; its steps followed from the service's "answer" events of its id (`step`), its end
    from the call's answer, which stands for any step missed (a read-only library, answered in this process, sends
    none). `show_hits(hits, match)`: the numbered passages shown under the answer, as soon as they are found."""

    def __init__(self, library: Answerer, runner: TaskRunner, view: AnswerView,
                 show_hits: Callable[[list[Hit], QueryMatch | None], None], parent: QObject | None = None):
        super().__init__(parent)
        self.library, self.runner, self.view, self._show_hits = library, runner, view, show_hits
        self._asked = 0
        self.ask_id: str | None = None  # the question shown
        self._hits_shown = False

    def ask(self, question: str, filters: SearchFilters) -> None:
        self.cancel()
        self._asked += 1
        ask_id = self.ask_id = f"window-{os.getpid()}-{self._asked}"
        self._hits_shown = False
        self.view.begin(question)
        self.runner.ask(lambda: self.library.ask(question, filters, ask_id),
                        on_done=lambda answer: self._ended(ask_id, answer),
                        on_error=lambda message: self._failed(ask_id, message))

    def step(self, event: dict[str, Any]) -> None:
        if event.get("ask_id") != self.ask_id or self.ask_id is None:
            return
        if event["state"] == "evidence":
            self.view.evidence(event["not_said"], event["evidence"], event["hits"])
            self._hits(event["hits"], event["match"])
        elif event["state"] == "sentence":
            self.view.sentence(event["sentence"])

    def _hits(self, hits: list[dict[str, Any]], match: dict[str, list[str]] | None) -> None:
        if not self._hits_shown:
            self._hits_shown = True
            self._show_hits([Hit.from_dict(hit) for hit in hits], QueryMatch.from_dict(match) if match else None)

    def _ended(self, ask_id: str, answer: dict[str, Any]) -> None:
        if ask_id == self.ask_id:
            self.view.end(answer)
            self._hits(answer["hits"], answer["match"])

    def _failed(self, ask_id: str, message: str) -> None:
        if ask_id == self.ask_id:
            self.view.stopped(message)

    def cancel(self) -> None:
        """The question being answered (if one is) stopped: the model's call is cut short in the service."""
        if self.view.answering and self.ask_id is not None:
            ask_id = self.ask_id
            self.runner.edit(lambda: self.library.cancel_ask(ask_id))
            self.view.stopped()

    def close(self) -> None:
        """A search replaces the answer: cancelled if still being answered, and put away."""
        self.cancel()
        self.ask_id = None
        self.view.close_answer()
