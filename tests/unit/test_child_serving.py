"""The child's side of a ChildObject, on a pipe in this process: each call answered in turn, a failure sent back
as a sentence and, where it can cross the pipe, as the exception itself (the real children are in
tests/end2end/test_child_process.py)."""

from __future__ import annotations

import threading
from multiprocessing import Pipe

from desktop_rag.child_serving import serve_lane
from desktop_rag.errors import UserError


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("not across a pipe")


class _Served:
    def double(self, n):
        return 2 * n

    def refuse(self):
        raise UserError("the store is read-only")

    def break_down(self):
        raise _Unpicklable("a lock inside")


def test_a_lane_answers_each_call_in_turn_and_a_failure_goes_back_as_a_sentence():
    ours, theirs = Pipe()
    lane = threading.Thread(target=serve_lane, args=(_Served(), theirs))
    lane.start()
    ours.send(("double", (21,)))
    assert ours.recv() == (True, 42)
    ours.send(("refuse", ()))
    ok, (message, original) = ours.recv()
    assert not ok and message == "the store is read-only" and isinstance(original, UserError)
    ours.send(("break_down", ()))
    ok, (message, original) = ours.recv()
    assert not ok and message == "_Unpicklable: a lock inside" and original is None
    ours.send(("close", ()))
    assert ours.recv() == (True, None)
    lane.join(5)
    assert not lane.is_alive()
