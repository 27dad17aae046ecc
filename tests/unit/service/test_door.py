"""The one door (service/door.py): a request checked against its declaration before any part is reached, and every
declared request carried out by a part named in code."""

from __future__ import annotations

import pytest

from desktop_rag.errors import BadInput
from desktop_rag.service.door import carried_out_by, request_handler
from desktop_rag.service.operations import MAX_LIMIT
from desktop_rag.service.wire import OPERATIONS


def test_the_door_checks_before_the_operation_runs():
    class ToolsThatMustNotRun:  # a fake: nothing behind the door may be reached by a bad request
        served_by, max_limit = "test", MAX_LIMIT

        def search(self, **arguments):
            return arguments

    handle = request_handler(ToolsThatMustNotRun())
    assert handle("search", {"query": "x"}) == {a.name: a.default for a in OPERATIONS["search"].arguments} | {
        "query": "x"}  # the request, with its defaults
    with pytest.raises(BadInput, match="limit must be a whole number"):
        handle("search", {"limit": "5"})
    with pytest.raises(BadInput, match="unknown method 'drop_tables'"):
        handle("drop_tables", {})


def test_every_declared_request_has_its_part_behind_the_door():
    from desktop_rag.service.wire import REQUESTS

    class ToolsWithNothing:  # a fake: the table is made without reaching any part
        served_by, max_limit = "test", MAX_LIMIT

    assert set(carried_out_by(ToolsWithNothing())) == set(REQUESTS)
