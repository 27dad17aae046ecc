"""The one door of the operations, for the endpoint and for a front end's library of its own (issue 62): a request
named on the wire is checked against its declaration (service/wire.py), made into its typed request, and carried
out by the part this table names for its type — the tools (service/tools.py) or a person's writes (WriteTools) —
never looked up by a method's name. A wrong argument is a BadInput naming it, never a TypeError or a database
error from inside."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from desktop_rag.errors import BadInput
from desktop_rag.service import wire
from desktop_rag.service.tools import LibraryTools
from desktop_rag.service.wire import OPERATIONS, REQUEST_BY_METHOD, Request
from desktop_rag.service.write_tools import WriteTools

R = TypeVar("R", bound=Request[Any])
Part = Callable[[LibraryTools, Any], object]


PARTS: dict[type[Request[Any]], Part] = {}  # each request's part, named in code


def _part(request: type[R], carried_out: Callable[[LibraryTools, R], object]) -> None:
    """A request and the part that carries it out: mypy types `r` as the request and checks the call (that each
    part answers as its request declares is tests/unit/service/test_door.py's)."""
    PARTS[request] = carried_out


_part(wire.Search, lambda tools, r: tools.search(r))
_part(wire.GenerateContext, lambda tools, r: tools.generate_context(r))
_part(wire.Reindex, lambda tools, r: tools.reindex(r))
_part(wire.Index, lambda tools, r: tools.index(r))
_part(wire.ProgressOf, lambda tools, r: tools.progress(r))
_part(wire.Stats, lambda tools, r: tools.stats(r))
_part(wire.DocumentOf, lambda tools, r: tools.document(r))
_part(wire.ChunkOf, lambda tools, r: tools.chunk(r))
_part(wire.Stop, lambda tools, r: tools.stop(r))
_part(wire.Status, lambda tools, r: tools.status(r))
_part(wire.PauseBackground, lambda tools, r: tools.pause_background(r))
_part(wire.PrepareSearch, lambda tools, r: tools.prepare_search(r))
_part(wire.OpenHit, lambda tools, r: tools.open_hit(r))
_part(wire.SayHello, lambda tools, r: tools.hello(r))
_part(wire.Events, lambda tools, r: tools.events(r))
_part(wire.ContextOf, lambda tools, r: tools.context(r))
_part(wire.ChangeSettings, lambda tools, r: tools.writes.change_settings(r))
_part(wire.RemoveFolder, lambda tools, r: tools.writes.remove_folder(r))
_part(wire.UpgradeFirst, lambda tools, r: tools.writes.upgrade_first(r))
_part(wire.SetContext, lambda tools, r: tools.writes.set_context(r))
_part(wire.RevertContext, lambda tools, r: tools.writes.revert_context(r))
_part(wire.ApproveContext, lambda tools, r: tools.writes.approve_context(r))
_part(wire.RegenerateContext, lambda tools, r: tools.writes.regenerate_context(r))
_part(wire.CancelRegenerate, lambda tools, r: tools.writes.cancel_regenerate(r))
_part(wire.Rebuild, lambda tools, r: tools.writes.rebuild(r))
_part(wire.Doctor, lambda tools, r: tools.writes.doctor(r))
_part(wire.Repair, lambda tools, r: tools.writes.repair(r))
_part(wire.Contextualize, lambda tools, r: tools.writes.contextualize(r))
_part(wire.CancelRun, lambda tools, r: tools.writes.cancel_run(r))
_part(wire.PauseRun, lambda tools, r: tools.writes.pause_run(r))
_part(wire.UpgradeNow, lambda tools, r: tools.writes.upgrade_now(r))
_part(wire.NoteInput, lambda tools, r: tools.writes.note_input(r))
_part(wire.Ask, lambda tools, r: tools.asks.ask(r))
_part(wire.CancelAsk, lambda tools, r: tools.asks.cancel_ask(r))


# The operations a person's writes carry out (WriteTools), by their name on the wire.
WRITES = {name for name in OPERATIONS if hasattr(WriteTools, name)}


def request_handler(tools: LibraryTools) -> Callable[[str, dict], object]:
    """`handle(method, params)`: the arguments checked against the declaration, then the request carried out."""
    def handle(method: str, params: dict) -> object:
        request_type = REQUEST_BY_METHOD.get(method)
        if request_type is None:
            raise BadInput(f"unknown method {method!r}; the endpoint answers {', '.join(OPERATIONS)}")
        arguments = OPERATIONS[method].check(params, maximums={"limit": tools.max_limit})
        return PARTS[request_type](tools, request_type(**arguments))

    return handle
