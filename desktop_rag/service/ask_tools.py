"""A person's (or an agent's) question answered by the process holding the library (issue 63): `ask` finds the
passages, gives the evidence, and has the model write the answer while the background LLM upgrade makes way
(core/runs/upgrade_turn.py: its call in hand cut short within a second, none started until the answer ends); each
step goes on the event stream as it comes ("answer" events: the evidence, each checked sentence, the end), so a
window can show it as it is written. `cancel_ask` cuts the model's call short. Nothing is written: an answer is a
read, and is answered in a read-only library too."""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from desktop_rag.core.answering.asking import NOT_SAID, PASSAGES, Answer, Asker, CheckedSentence, library_asker
from desktop_rag.core.llm.interrupt import Interrupted, calls_controlled_by
from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.search.filters import make_filters
from desktop_rag.service import wire
from desktop_rag.service.answers import AnswerFound, AskAnswer, Cancelled
from desktop_rag.service.events import EventLog

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library


class AskTools:
    def __init__(self, library: Library, event_log: EventLog, served_by: str, lane_of: Callable[[], Any],
                 asker_of: Callable[[Any], Asker] = library_asker):
        """`lane_of()`: the process's write lane (core/runs/lane.py), whose upgrade makes way; None where it has
        none. `asker_of(library)`: what answers (a unit test gives its own)."""
        self.library = library
        self._asker_of = asker_of
        self.event_log = event_log
        self.served_by = served_by
        self._lane_of = lane_of
        self._ids = itertools.count(1)
        self._asking: dict[str, RunControl] = {}  # ask id -> what cancels it
        self._lock = threading.Lock()

    def ask(self, r: wire.Ask) -> AskAnswer:
        control = RunControl()
        with self._lock:
            ask_id = r.ask_id if r.ask_id and r.ask_id not in self._asking else f"ask-{next(self._ids)}"
            self._asking[ask_id] = control
        filters = make_filters(folders=r.folders or [], types=r.types or [], after=r.after, before=r.before,
                               sender=r.sender)
        if r.filters is not None:
            filters = filters.merged(r.filters)
        asker = self._asker_of(self.library)
        lane = self._lane_of()
        cancelled = False
        answer = Answer(r.question, [])
        try:
            with lane.turn.person_uses_the_model() if lane is not None else nullcontext(), \
                    calls_controlled_by(control):
                answer = asker.ask(r.question, filters, r.passages or PASSAGES,
                                   on_evidence=self._told(ask_id, "evidence"),
                                   on_sentence=self._told(ask_id, "sentence"))
        except Interrupted:
            cancelled = True
        finally:
            with self._lock:
                self._asking.pop(ask_id, None)
        said = self._answer(ask_id, answer, cancelled)
        self.event_log.publish("answer", ask_id=ask_id, state="ended", cancelled=cancelled)
        return said

    def cancel_ask(self, r: wire.CancelAsk) -> Cancelled:
        """Stop answering `ask_id` (None: every question being answered); the model's call is cut short."""
        with self._lock:
            chosen = [i for i in self._asking if r.ask_id is None or i == r.ask_id]
            for ask_id in chosen:
                self._asking[ask_id].cancel()
        return {"cancelled": chosen, "served_by": self.served_by}

    def _told(self, ask_id: str, state: str) -> Callable[[Any], None]:
        def tell(what: Any) -> None:
            if isinstance(what, CheckedSentence):
                self.event_log.publish("answer", ask_id=ask_id, state=state, sentence=what.to_dict())
            else:
                self.event_log.publish("answer", ask_id=ask_id, state=state, **_found(what))
        return tell

    def _answer(self, ask_id: str, answer: Answer, cancelled: bool) -> AskAnswer:
        return {"ask_id": ask_id, "question": answer.question, **_found(answer), "cancelled": cancelled,
                "sentences": [s.to_dict() for s in answer.sentences], "without_model": answer.without_model,
                "seconds": {k: round(v, 3) for k, v in answer.seconds.items()}, "served_by": self.served_by}


def _found(answer: Answer) -> AnswerFound:
    """What the evidence step tells (on the event stream) and the whole answer repeats: whether the files say,
    in a person's words, the evidence, the passages found and the question's words as the search parsed them."""
    return {"not_said": answer.not_said, "said": NOT_SAID if answer.not_said else "",
            "evidence": [dataclasses.asdict(e) for e in answer.evidence],
            "hits": [hit.to_dict() for hit in answer.hits],
            "match": answer.match.to_dict() if answer.match is not None else None}
