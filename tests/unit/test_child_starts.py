"""A child that does not start is not waited for again by every call (issue 61: `index` seemed to hang after "the
document reader did not start", each file waiting its own start). The start is a fake here (no process: the
unit tier starts none); tests/end2end/test_child_process.py starts real ones."""

from __future__ import annotations

import pytest

from desktop_rag import child_process
from desktop_rag.child_process import ChildDidNotStart, ChildFailed, ChildObject


def test_calls_after_a_failed_start_fail_at_once_until_it_is_time_to_try_again(monkeypatch):
    starts: list[float] = []
    clock = {"now": 1000.0}
    monkeypatch.setattr(child_process.time, "monotonic", lambda: clock["now"])

    def start_that_fails_fake(self, abandon=None):
        starts.append(clock["now"])
        raise ChildDidNotStart(f"{self.name} did not start")

    monkeypatch.setattr(ChildObject, "_start", start_that_fails_fake)
    child = ChildObject(dict, name="the document reader")
    for _ in range(3):
        with pytest.raises(ChildFailed, match="did not start"):
            child.call("keys")
    assert starts == [1000.0]  # one start waited for, not three
    clock["now"] += child_process.START_AGAIN_AFTER_S
    with pytest.raises(ChildFailed):
        child.call("keys")
    assert len(starts) == 2  # tried again after its pause


def test_a_childs_own_refusal_is_not_held_against_the_next_start(monkeypatch):
    starts: list[int] = []

    def start_refused_fake(self, abandon=None):
        starts.append(1)
        raise ChildFailed("the vector store cannot be opened: read-only")

    monkeypatch.setattr(ChildObject, "_start", start_refused_fake)
    child = ChildObject(dict, name="the vector store")
    for _ in range(2):
        with pytest.raises(ChildFailed, match="read-only"):
            child.call("keys")
    assert len(starts) == 2
