"""The wire between the service and its clients, declared once (issue 62): each operation a request type whose
fields are its arguments (their types, ranges, lengths and choices in the annotations) and whose type parameter is
its answer. A client sends `run(Search(query="pump"))` and gets a SearchAnswer, which mypy checks at both ends: a
wrong argument type and a field the answer has not are errors before anything runs. The door's checks and the MCP
tools' schemas (service/operations.py) are made from the same declarations, so what is checked, what an agent is
told and what a client may send cannot drift apart.

What each answers is in service/answers.py.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Generic, Protocol, TypeVar, cast

from desktop_rag.config import CONTEXT_CHOICES
from desktop_rag.core.search.modes import MODES, SORTS
from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.service.answers import (AskAnswer, Cancelled, ChangesAnswer, Checkup, ContextMade, DocumentAnswer,
                                         EventsAnswer, Hello, LibraryStats, Opened, PassageAnswer, Regenerated,
                                         RunProgress, RunQueued, RunsPaused, RunStarted, SearchAnswer, Served,
                                         SettingsChanged, StatusAnswer, Stopping, StoredContext)
from desktop_rag.service.operations import (LARGEST_ID, MAX_CHUNK_CHARS, MAX_LIMIT, MAX_LIST_ITEMS, MAX_PATH_CHARS,
                                            MAX_QUERY_CHARS, Limits, Operation, operation_of)

A = TypeVar("A")
A_co = TypeVar("A_co", covariant=True)  # a request of a narrower answer is a request of a wider one


@dataclass(frozen=True, kw_only=True)
class Request(Generic[A_co]):
    """An operation's arguments; `A_co`, what it answers. `method` names it on the wire."""
    method: ClassVar[str]


def _text(max_length: int) -> Limits:
    return Limits(max_length=max_length)


ID = Limits(minimum=1, maximum=LARGEST_ID)
PATH = _text(MAX_PATH_CHARS)
ITEMS = Limits(max_length=MAX_LIST_ITEMS)
RUN_ID, DAY = _text(100), _text(40)  # a run's id; a day or a status version


# -- requests -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class Search(Request[SearchAnswer]):
    method = "search"
    query: Annotated[str, _text(MAX_QUERY_CHARS)] = ""
    limit: Annotated[int, Limits(minimum=1, maximum=MAX_LIMIT)] = 10
    mode: Annotated[str, Limits(choices=MODES)] = "hybrid"
    rerank: bool | None = None
    score_threshold: Annotated[float | None, Limits(minimum=0, maximum=1)] = None
    folder: Annotated[str | None, PATH] = None
    folders: Annotated[list[str] | None, ITEMS] = None
    types: Annotated[list[str] | None, ITEMS] = None
    after: Annotated[str | None, DAY] = None
    before: Annotated[str | None, DAY] = None
    sender: Annotated[str | None, _text(500)] = None
    sort: Annotated[str, Limits(choices=SORTS)] = "relevance"
    similar_to: Annotated[int | None, ID] = None
    # The window's: its filter bar's filters (on the wire as SearchFilters.to_dict gives them), and the type chips'
    # counts. The fields above are an agent's way of saying the same.
    filters: Annotated[SearchFilters | None, Limits(for_agents=False)] = None
    facets: Annotated[bool, Limits(for_agents=False)] = False
    # The window's and the quick search's: a hybrid search answers by words while the embedding model loads or the
    # meaning index opens (core/search/meaning_wait.py), and they ask again; an agent or the CLI waits for both.
    words_first: Annotated[bool, Limits(for_agents=False)] = False


@dataclass(frozen=True, kw_only=True)
class GenerateContext(Request[ContextMade]):
    method = "generate_context"
    chunk_id: Annotated[int | None, ID] = None
    text: Annotated[str | None, _text(MAX_CHUNK_CHARS)] = None
    document_path: Annotated[str | None, PATH] = None
    max_words: Annotated[int | None, Limits(minimum=5, maximum=200)] = None
    store: bool = False


@dataclass(frozen=True, kw_only=True)
class Reindex(Request[RunStarted]):
    method = "reindex"
    paths: Annotated[list[str] | None, ITEMS] = None
    contexts: Annotated[str, Limits(choices=CONTEXT_CHOICES)] = "auto"


@dataclass(frozen=True, kw_only=True)
class Index(Request[RunStarted]):
    """`desktop-rag index` while a service runs, and the window's "Add folder": any file or folder, as the
    person's own command may (no agent's tool: mcp_server.py gives agents `reindex`, inside the folders indexed)."""
    method = "index"
    paths: Annotated[list[str], ITEMS]
    contexts: Annotated[str | None, Limits(choices=CONTEXT_CHOICES)] = None


@dataclass(frozen=True, kw_only=True)
class ProgressOf(Request[RunProgress]):
    method = "progress"
    run_id: Annotated[str | None, RUN_ID] = None


@dataclass(frozen=True, kw_only=True)
class Stats(Request[LibraryStats]):
    method = "stats"


@dataclass(frozen=True, kw_only=True)
class DocumentOf(Request[DocumentAnswer]):
    method = "document"
    doc_id: Annotated[int, ID]


@dataclass(frozen=True, kw_only=True)
class ChunkOf(Request[PassageAnswer]):
    method = "chunk"
    chunk_id: Annotated[int, ID]


@dataclass(frozen=True, kw_only=True)
class Stop(Request[Stopping]):
    """`desktop-rag stop` (no agent's tool); `everything`: the tray's Quit, which ends the windows following the
    service too."""
    method = "stop"
    everything: bool = False


@dataclass(frozen=True, kw_only=True)
class Status(Request[StatusAnswer]):
    """The tray's: what the process is doing, waiting up to wait_s for a change from `after`."""
    method = "status"
    after: Annotated[str | None, DAY] = None
    wait_s: Annotated[float, Limits(minimum=0, maximum=30)] = 0.0


@dataclass(frozen=True, kw_only=True)
class PauseBackground(Request[StatusAnswer]):
    """The tray's Pause and Resume: the LLM's work and the runs in hand (`runs` False: the LLM's alone)."""
    method = "pause_background"
    paused: bool
    runs: bool = True


@dataclass(frozen=True, kw_only=True)
class PrepareSearch(Request[Served]):
    """The quick popup's, as it opens: what a search needs is loaded while the person types."""
    method = "prepare_search"


@dataclass(frozen=True, kw_only=True)
class OpenHit(Request[Opened]):
    """A hit a person opens: noted for the upgrade's order, and the path a viewer can open."""
    method = "open_hit"
    chunk_id: Annotated[int | None, ID] = None
    path: Annotated[str | None, PATH] = None


@dataclass(frozen=True, kw_only=True)
class SayHello(Request[Hello]):
    method = "hello"


@dataclass(frozen=True, kw_only=True)
class Events(Request[EventsAnswer]):
    """What the service did since event `after` of its `instance` (service/events.py), waiting up to wait_s for
    one, or for its status to differ from the version `status` a client has."""
    method = "events"
    after: Annotated[int | None, Limits(minimum=0, maximum=LARGEST_ID)] = None
    instance: Annotated[str | None, RUN_ID] = None
    wait_s: Annotated[float, Limits(minimum=0, maximum=30)] = 0.0
    status: Annotated[str | None, DAY] = None


@dataclass(frozen=True, kw_only=True)
class Ask(Request[AskAnswer]):
    """A question answered from the files, every sentence citing the passages it stands on, checked (issue 63);
    filters as in search. Its steps also go on the event stream ("answer" events) as they come."""
    method = "ask"
    question: Annotated[str, _text(MAX_QUERY_CHARS)]
    passages: Annotated[int | None, Limits(minimum=1, maximum=9)] = None  # None: core/answering/asking.py PASSAGES
    folders: Annotated[list[str] | None, ITEMS] = None
    types: Annotated[list[str] | None, ITEMS] = None
    after: Annotated[str | None, DAY] = None
    before: Annotated[str | None, DAY] = None
    sender: Annotated[str | None, _text(500)] = None
    filters: Annotated[SearchFilters | None, Limits(for_agents=False)] = None
    # Chosen by the asker, to know its question's "answer" events from another client's (None: the service names it).
    ask_id: Annotated[str | None, Limits(max_length=100, for_agents=False)] = None


@dataclass(frozen=True, kw_only=True)
class CancelAsk(Request[Cancelled]):
    method = "cancel_ask"
    ask_id: Annotated[str | None, RUN_ID] = None  # None: every question being answered


# A person's writes, each on the service's write lane; each answers with what it changed (core/indexing/changes.py).

@dataclass(frozen=True, kw_only=True)
class ChangeSettings(Request[SettingsChanged]):
    method = "change_settings"
    values: Annotated[dict[str, Any], Limits(max_length=200)]


@dataclass(frozen=True, kw_only=True)
class RemoveFolder(Request[ChangesAnswer]):
    method = "remove_folder"
    folder: Annotated[str, PATH]


@dataclass(frozen=True, kw_only=True)
class UpgradeFirst(Request[ChangesAnswer]):
    method = "upgrade_first"
    folder: Annotated[str, PATH]
    on: bool = True


@dataclass(frozen=True, kw_only=True)
class SetContext(Request[ChangesAnswer]):
    method = "set_context"
    chunk_id: Annotated[int, ID]
    text: Annotated[str, _text(MAX_CHUNK_CHARS)]
    questions: Annotated[str | None, _text(MAX_CHUNK_CHARS)] = None


@dataclass(frozen=True, kw_only=True)
class RevertContext(Request[ChangesAnswer]):
    method = "revert_context"
    chunk_id: Annotated[int, ID]


@dataclass(frozen=True, kw_only=True)
class ApproveContext(Request[ChangesAnswer]):
    method = "approve_context"
    chunk_id: Annotated[int, ID]


@dataclass(frozen=True, kw_only=True)
class RegenerateContext(Request[Regenerated]):
    method = "regenerate_context"
    chunk_id: Annotated[int, ID]


@dataclass(frozen=True, kw_only=True)
class CancelRegenerate(Request[Cancelled]):
    method = "cancel_regenerate"
    chunk_id: Annotated[int | None, ID] = None  # None: every regeneration asked


@dataclass(frozen=True, kw_only=True)
class ContextOf(Request[StoredContext]):
    """A chunk's context as the catalog has it (`desktop-rag context ID`)."""
    method = "context"
    chunk_id: Annotated[int, ID]


# `desktop-rag rebuild`, `doctor [--repair]`, `contextualize --limit N`: the runs answer with their id.

@dataclass(frozen=True, kw_only=True)
class Rebuild(Request[RunQueued]):
    method = "rebuild"


@dataclass(frozen=True, kw_only=True)
class Doctor(Request[Checkup]):
    """What disagrees between the catalog and the indexes, looked at now."""
    method = "doctor"


@dataclass(frozen=True, kw_only=True)
class Repair(Request[RunQueued]):
    """`doctor --repair`, the window's "Check and repair the indexes": a run that rebuilds what disagrees."""
    method = "repair"


@dataclass(frozen=True, kw_only=True)
class Contextualize(Request[RunQueued]):
    method = "contextualize"
    limit: Annotated[int | None, ID] = None


@dataclass(frozen=True, kw_only=True)
class CancelRun(Request[Cancelled]):
    method = "cancel_run"
    run_id: Annotated[str | None, RUN_ID] = None  # None: every run queued or running


@dataclass(frozen=True, kw_only=True)
class PauseRun(Request[RunsPaused]):
    method = "pause_run"
    run_id: Annotated[str | None, RUN_ID] = None
    paused: bool = True


@dataclass(frozen=True, kw_only=True)
class UpgradeNow(Request[ChangesAnswer]):
    """"Write LLM contexts now": the upgrade runs whatever the machine does, until nothing waits."""
    method = "upgrade_now"


@dataclass(frozen=True, kw_only=True)
class NoteInput(Request[Served]):
    """The person uses the window: with "only when idle" the upgrade makes way at once (platform idle time alone
    does not see input to a window of this desktop's own in every session)."""
    method = "note_input"


REQUESTS: tuple[type[Request[Any]], ...] = (
    Search, GenerateContext, Reindex, Index, ProgressOf, Stats, DocumentOf, ChunkOf, Stop, Status, PauseBackground,
    PrepareSearch, OpenHit, SayHello, Events, ChangeSettings, RemoveFolder, UpgradeFirst, SetContext,
    RevertContext, ApproveContext, RegenerateContext, CancelRegenerate, ContextOf, Rebuild, Doctor, Repair,
    Contextualize,
    CancelRun, PauseRun, UpgradeNow, NoteInput, Ask, CancelAsk)
REQUEST_BY_METHOD = {request.method: request for request in REQUESTS}


# What the door checks and the MCP schemas say, made from the requests (service/operations.py).
OPERATIONS: dict[str, Operation] = {request.method: operation_of(request) for request in REQUESTS}


def arguments_of(request: Request[Any]) -> dict[str, Any]:
    """A request's arguments as the wire's JSON carries them (filters as SearchFilters.to_dict; the door makes them
    SearchFilters again from the declaration: service/operations.py)."""
    return {field.name: _on_the_wire(getattr(request, field.name)) for field in dataclasses.fields(request)}


def _on_the_wire(value: object) -> object:
    return value.to_dict() if isinstance(value, SearchFilters) else value


class Runner(Protocol):
    """A client's `run`: a request sent, its answer as declared."""

    def __call__(self, request: Request[A], /) -> A: ...


def run_through(call: Callable[..., Any], request: Request[A]) -> A:
    """`request` sent through a client's `call(method, **arguments)`: the wire's JSON carries no types, the
    declaration says what the answer is (the service answers each request with the type it declares)."""
    return cast(A, call(request.method, **arguments_of(request)))
