"""A question's steps followed on the event stream (service/answer_events.py): only its own id's "answer" events,
from where the stream stood when it was asked, and a service gone mid-way ends the following quietly. The endpoint
is a fake (named so) that answers `events` from a list; the real service's stream is followed in
tests/end2end/test_answering.py (the CLI) and tests/end2end/test_answer_view.py (the quick popup)."""

from __future__ import annotations

import threading

from desktop_rag.service.answer_events import AnswerSteps
from desktop_rag.service.endpoint import EndpointGone


class EndpointFake:
    def __init__(self, batches: list[list[dict]], then_gone: bool = False):
        self.batches, self.then_gone = batches, then_gone
        self.asked_after: list[int | None] = []
        self.closed = threading.Event()
        self.drained = threading.Event()

    def run(self, request):
        self.asked_after.append(request.after)
        if request.after is None:
            return {"events": [], "last": 7, "instance": "i1", "missed": False}
        if not self.batches:
            self.drained.set()
            if self.then_gone:
                raise EndpointGone("the service went away")
            threading.Event().wait(0.02)
            return {"events": [], "last": request.after, "instance": "i1", "missed": False}
        batch = self.batches.pop(0)
        return {"events": batch, "last": request.after + len(batch), "instance": "i1", "missed": False}

    def close(self):
        self.closed.set()


def answer(ask_id: str, state: str, **more) -> dict:
    return {"kind": "answer", "ask_id": ask_id, "state": state, **more}


def test_only_its_own_question_s_steps_are_handed_on_in_order():
    endpoint = EndpointFake([[answer("other", "evidence"), {"kind": "run", "run": {}}, answer("a1", "evidence")],
                             [answer("a1", "sentence", sentence={"text": "x"}), answer("a1", "ended")]])
    heard: list[str] = []
    steps = AnswerSteps(endpoint, "a1", lambda event: heard.append(event["state"]))  # type: ignore[arg-type]
    assert endpoint.drained.wait(5)
    steps.stop()
    assert heard == ["evidence", "sentence", "ended"]
    assert endpoint.asked_after[:3] == [None, 7, 10]  # from where the stream stood when it was asked
    assert endpoint.closed.is_set()


def test_a_service_gone_mid_way_ends_the_following_quietly():
    endpoint = EndpointFake([[answer("a1", "evidence")]], then_gone=True)
    heard: list[str] = []
    steps = AnswerSteps(endpoint, "a1", lambda event: heard.append(event["state"]))  # type: ignore[arg-type]
    assert endpoint.closed.wait(5)
    steps.stop()
    assert heard == ["evidence"]
