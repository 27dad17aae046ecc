"""A regeneration waits for its turn on the write lane for as long as it takes, and can be taken back all the while
(issue 60, 4: told "busy… still queued" after 120 s, the window's button turned back to Regenerate and the queued
job could no longer be cancelled). The lane is a fake that holds the work until released (named so): this is the
orchestration of service/write_tools.py, not the model."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from desktop_rag.service import wire
from desktop_rag.service.events import EventLog
from desktop_rag.service.write_tools import WriteTools


def test_a_regeneration_waiting_for_its_turn_is_cancelled_and_never_runs():
    ran: list[int] = []
    waited_with: list[float | None] = []
    released = threading.Event()

    def fake_lane_that_holds_the_work(work, wait_s=120.0):
        waited_with.append(wait_s)
        released.wait(10)
        return work()

    library = SimpleNamespace(edits=SimpleNamespace(regenerate_context=ran.append))
    tools = WriteTools(library, fake_lane_that_holds_the_work, EventLog(), "test process")
    answer: dict = {}
    asked = threading.Thread(target=lambda: answer.update(tools.regenerate_context(wire.RegenerateContext(chunk_id=7))))
    asked.start()
    while not waited_with:  # queued
        asked.join(0.01)
    assert tools.cancel_regenerate(wire.CancelRegenerate(chunk_id=7))["cancelled"] == [7]  # taken back while it waits
    released.set()
    asked.join(10)
    assert answer["cancelled"] and ran == []
    assert waited_with == [None]  # no deadline: the model's time for a long document is not an error
    assert tools.cancel_regenerate(wire.CancelRegenerate(chunk_id=7))["cancelled"] == []  # done with: nothing left to take back
