"""A question answered by the process holding the library (service/ask_tools.py): its steps on the event stream in
order, the answer's fields, the upgrade held meanwhile, and a cancel that reaches the answer being written. Its
parts are fakes (the orchestration alone; the real model through a real service: tests/end2end/test_answering.py)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import SimpleNamespace

from desktop_rag.core.answering.asking import Asker
from desktop_rag.core.llm.interrupt import Interrupted
from desktop_rag.service import wire
from desktop_rag.service.ask_tools import AskTools
from desktop_rag.service.events import EventLog
from fake_models import HitFake


@dataclass
class ResultFake:
    hits: list = field(default_factory=list)
    weak: bool = False


LEASE = HitFake(7, "/lease.md", "Lease", "The lease of the Harbour Office ends on 31 March 2027.")


class TurnFake:
    """Notes whether the upgrade was held while the model answered."""

    def __init__(self):
        self.held = 0
        self.during: list[int] = []

    def person_uses_the_model(self):
        turn = self

        class Hold:
            def __enter__(self):
                turn.held += 1

            def __exit__(self, *exc):
                turn.held -= 1

        return Hold()


def tools_with(model_fake, turn=None):
    events = EventLog()
    lane = SimpleNamespace(turn=turn) if turn is not None else None
    tools = AskTools(None, events, "test", lambda: lane,  # type: ignore[arg-type]
                     asker_of=lambda library: Asker(lambda q, k, filters: ResultFake([LEASE]), None,
                                                    lambda: model_fake))
    return tools, events


class ModelFake:
    def __init__(self, pieces, turn=None, gate=None):
        self.pieces, self.turn, self.gate = pieces, turn, gate

    def chat_stream(self, messages, max_tokens, grammar=None):
        if self.turn is not None:
            self.turn.during.append(self.turn.held)
        if self.gate is not None:
            self.gate.wait(10)
            raise Interrupted("cut short")  # as the real model's call is when its caller cancels
        yield from self.pieces


def test_the_steps_go_on_the_event_stream_in_order_and_the_upgrade_is_held_meanwhile():
    turn = TurnFake()
    tools, events = tools_with(ModelFake(["The lease ends on 31 March 2027. [1]"], turn), turn)
    answer = tools.ask(wire.Ask(question="When does the lease end?"))
    told = [(e["state"], e.get("sentence", {}).get("text")) for e in events.since(0, events.instance)["events"]]
    assert told == [("evidence", None), ("sentence", "The lease ends on 31 March 2027."), ("ended", None)]
    assert answer["sentences"][0]["supported"] and answer["hits"][0]["path"] == "/lease.md"
    assert not answer["cancelled"] and answer["evidence"][0]["chunk_id"] == 7
    assert turn.during == [1] and turn.held == 0


def test_a_cancel_names_the_question_being_answered_and_a_call_cut_short_ends_it_as_cancelled():
    gate = threading.Event()
    tools, _ = tools_with(ModelFake([], gate=gate))
    answered = {}
    asking = threading.Thread(target=lambda: answered.update(tools.ask(wire.Ask(question="lease end?"))))
    asking.start()
    while not tools.cancel_ask(wire.CancelAsk())["cancelled"]:  # until it is being answered
        pass
    gate.set()
    asking.join(10)
    assert answered["cancelled"] and answered["sentences"] == []
    assert tools.cancel_ask(wire.CancelAsk())["cancelled"] == []  # nothing left to cancel
