"""The one door of the operations, for the endpoint and for a front end's library of its own (issue 62): a request
named on the wire is checked against its declaration (service/wire.py), made into its typed request, and carried
out by the part this table names for its type — the tools (service/tools.py) or a person's writes (WriteTools) —
never looked up by a method's name. A wrong argument is a BadInput naming it, never a TypeError or a database
error from inside."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from desktop_rag.errors import BadInput
from desktop_rag.service import wire
from desktop_rag.service.tools import LibraryTools
from desktop_rag.service.wire import OPERATIONS, REQUEST_BY_METHOD, Request, arguments_of
from desktop_rag.service.write_tools import WriteTools

Handler = Callable[[Any], object]


def carried_out_by(tools: LibraryTools) -> dict[type[Request[Any]], Handler]:
    """Each request's part, named in code (mypy follows it; a unit test checks each part takes its request's
    arguments). Each entry reads the part when called: a fake tools of a unit test has only some."""
    a, writes = arguments_of, lambda: tools.writes
    return {
        wire.Search: lambda r: tools.search(**a(r)),
        wire.GenerateContext: lambda r: tools.generate_context(**a(r)),
        wire.Reindex: lambda r: tools.reindex(**a(r)),
        wire.Index: lambda r: tools.index(**a(r)),
        wire.ProgressOf: lambda r: tools.progress(**a(r)),
        wire.Stats: lambda r: tools.stats(),
        wire.DocumentOf: lambda r: tools.document(**a(r)),
        wire.ChunkOf: lambda r: tools.chunk(**a(r)),
        wire.Stop: lambda r: tools.stop(**a(r)),
        wire.Status: lambda r: tools.status(**a(r)),
        wire.PauseBackground: lambda r: tools.pause_background(**a(r)),
        wire.PrepareSearch: lambda r: tools.prepare_search(),
        wire.OpenHit: lambda r: tools.open_hit(**a(r)),
        wire.SayHello: lambda r: tools.hello(),
        wire.Events: lambda r: tools.events(**a(r)),
        wire.ContextOf: lambda r: tools.context(**a(r)),
        wire.ChangeSettings: lambda r: writes().change_settings(**a(r)),
        wire.RemoveFolder: lambda r: writes().remove_folder(**a(r)),
        wire.UpgradeFirst: lambda r: writes().upgrade_first(**a(r)),
        wire.SetContext: lambda r: writes().set_context(**a(r)),
        wire.RevertContext: lambda r: writes().revert_context(**a(r)),
        wire.ApproveContext: lambda r: writes().approve_context(**a(r)),
        wire.RegenerateContext: lambda r: writes().regenerate_context(**a(r)),
        wire.CancelRegenerate: lambda r: writes().cancel_regenerate(**a(r)),
        wire.Rebuild: lambda r: writes().rebuild(),
        wire.Doctor: lambda r: writes().doctor(**a(r)),
        wire.Contextualize: lambda r: writes().contextualize(**a(r)),
        wire.CancelRun: lambda r: writes().cancel_run(**a(r)),
        wire.PauseRun: lambda r: writes().pause_run(**a(r)),
        wire.UpgradeNow: lambda r: writes().upgrade_now(),
        wire.NoteInput: lambda r: writes().note_input(),
    }


# The operations a person's writes carry out (WriteTools), by their name on the wire.
WRITES = {name for name in OPERATIONS if hasattr(WriteTools, name)}


def request_handler(tools: LibraryTools) -> Callable[[str, dict], object]:
    """`handle(method, params)`: the arguments checked against the declaration, then the request carried out."""
    parts = carried_out_by(tools)

    def handle(method: str, params: dict) -> object:
        request_type = REQUEST_BY_METHOD.get(method)
        if request_type is None:
            raise BadInput(f"unknown method {method!r}; the endpoint answers {', '.join(OPERATIONS)}")
        arguments = OPERATIONS[method].check(params, maximums={"limit": tools.max_limit})
        return parts[request_type](request_type(**arguments))

    return handle
