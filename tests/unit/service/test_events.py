"""The service's event stream (service/events.py): numbered in order, read from where a client stands, a long
poll that answers as soon as something happens, and `missed` when a client cannot trust what it would be told."""

from __future__ import annotations

import threading
import time

from desktop_rag.core.indexing.changes import Changes
from desktop_rag.service.events import EventLog


def test_a_client_starts_where_the_stream_stands_and_reads_what_comes_after():
    log = EventLog()
    log.publish("run", run={"run_id": "run-1", "state": "queued"})
    start = log.since(None, None)
    assert start["events"] == [] and start["last"] == 1 and not start["missed"]
    log.changes(Changes(documents=True))
    log.changes(Changes())  # nothing changed: nothing told
    later = log.since(start["last"], start["instance"])
    assert [e["kind"] for e in later["events"]] == ["changes"]
    assert later["events"][0]["changes"]["documents"] is True and later["last"] == 2


def test_a_client_joining_a_service_that_is_stopping_is_told_so():
    log = EventLog()
    log.publish("run", run={"run_id": "run-1", "state": "running"})
    log.publish("stopping", everything=False)
    joining = log.since(None, None)
    assert [e["kind"] for e in joining["events"]] == ["stopping"] and joining["last"] == 2


def test_changes_travel_as_json_and_come_back_the_same():
    changes = Changes(contexts=frozenset({3, 1}), settings=frozenset({"ocr"}), folders=True, searchable=False,
                      notes=("ocr: scans are read",))
    assert Changes.from_dict(changes.to_dict()) == changes and changes.to_dict()["contexts"] == [1, 3]


def test_a_waiting_client_is_answered_as_soon_as_an_event_comes():
    log = EventLog()
    threading.Timer(0.3, lambda: log.publish("changes", changes={})).start()
    began = time.monotonic()
    answer = log.since(0, log.instance, wait_s=10)
    assert answer["events"] and time.monotonic() - began < 5


def test_a_wait_ends_when_the_caller_stops_waiting_and_when_its_time_is_up():
    log = EventLog()
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    began = time.monotonic()
    assert log.since(0, log.instance, wait_s=10, still_waiting=lambda: not stop.is_set())["events"] == []
    assert time.monotonic() - began < 5
    began = time.monotonic()
    assert log.since(0, log.instance, wait_s=0.3)["events"] == [] and time.monotonic() - began >= 0.3


def test_a_client_of_another_lifetime_or_left_too_far_behind_is_told_it_missed_events():
    log = EventLog(kept=3)
    for n in range(5):
        log.publish("run", n=n)
    assert log.since(0, "an earlier service")["missed"]
    assert log.since(1, log.instance)["missed"]  # 2 is gone: only 3, 4, 5 are kept
    assert not log.since(2, log.instance)["missed"]
    assert log.since(99, log.instance)["missed"]  # a number this lifetime never gave
