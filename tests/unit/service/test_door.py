"""The one door (service/door.py): a request checked against its declaration before any part is reached, and every
declared request carried out by a part named in code that takes that request and answers as it declares."""

from __future__ import annotations

import typing

import pytest

from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.errors import BadInput
from desktop_rag.service import wire
from desktop_rag.service.door import PARTS, request_handler
from desktop_rag.service.operations import MAX_LIMIT
from desktop_rag.service.ask_tools import AskTools
from desktop_rag.service.tools import LibraryTools
from desktop_rag.service.wire import REQUESTS
from desktop_rag.service.write_tools import WriteTools


def test_the_door_checks_before_the_operation_runs():
    class ToolsThatMustNotRun:  # a fake: nothing behind the door may be reached by a bad request
        served_by, max_limit = "test", MAX_LIMIT

        def search(self, request):
            return request

    handle = request_handler(ToolsThatMustNotRun())  # type: ignore[arg-type]
    assert handle("search", {"query": "x"}) == wire.Search(query="x")  # the typed request, with its defaults
    with pytest.raises(BadInput, match="limit must be a whole number"):
        handle("search", {"limit": "5"})
    with pytest.raises(BadInput, match="unknown method 'drop_tables'"):
        handle("drop_tables", {})


def test_a_filter_bar_s_filters_arrive_as_one_type():
    class ToolsThatSayWhatCame:  # a fake: what the door made of the wire's JSON
        served_by, max_limit = "test", MAX_LIMIT

        def search(self, request):
            return request.filters

    handle = request_handler(ToolsThatSayWhatCame())  # type: ignore[arg-type]
    sent = wire.Search(query="x", filters=SearchFilters(types=("pdf",), after=1.0e9))
    assert handle("search", wire.arguments_of(sent)) == sent.filters  # to_dict on the wire, SearchFilters again
    with pytest.raises(BadInput, match="filters must be an object"):
        handle("search", {"query": "x", "filters": {"after": "yesterday"}})


class PartsCalled:
    """A fake tools that notes which of its parts (or its writes', or its asks') a door's entry calls."""

    def __init__(self, called: list[tuple[type, str]], owner: type = LibraryTools):
        self._called, self._owner = called, owner

    def __getattr__(self, name: str):
        if name in ("writes", "asks"):
            return PartsCalled(self._called, WriteTools if name == "writes" else AskTools)
        return lambda request: self._called.append((self._owner, name))


def test_every_declared_request_is_carried_out_by_a_part_that_answers_as_it_declares():
    assert set(PARTS) == set(REQUESTS)
    for request in REQUESTS:
        called: list[tuple[type, str]] = []
        PARTS[request](PartsCalled(called), object.__new__(request))  # type: ignore[arg-type]
        [(owner, name)] = called
        part = getattr(owner, name)
        declared = typing.get_args(request.__orig_bases__[0])[0]  # type: ignore[attr-defined]
        hints = typing.get_type_hints(part)
        assert hints["return"] is declared, (request.__name__, name, hints["return"], declared)
        assert hints["r"] is request, (request.__name__, name)  # the part takes that request
