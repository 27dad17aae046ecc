"""The answers' types (service/answers.py) name the fields the service really sends: a field added to a run's state
or to the activity without its type (or the other way round) fails here, before a client reads it wrong."""

from __future__ import annotations

from desktop_rag.service.activity import Activity
from desktop_rag.service.answers import RunProgress, StatusAnswer
from desktop_rag.service.runs import RunRegistry


def test_a_run_s_progress_has_the_fields_its_type_declares():
    state = RunRegistry().new(["/home/ann/notes"], "rules").as_dict()
    assert set(state) == RunProgress.__required_keys__
    assert RunProgress.__optional_keys__ == {"served_by"}  # said by `progress`, not by the event stream's runs


def test_the_status_has_the_fields_its_type_declares():
    sent = {**Activity("idle").as_dict(), "role": "service", "served_by": "test", "version": "v1"}
    assert set(sent) == StatusAnswer.__required_keys__
    assert StatusAnswer.__optional_keys__ == {"upgrade_reason", "upgrade_may_run", "asked_now", "watching"}
