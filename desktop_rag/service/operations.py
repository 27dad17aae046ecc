"""What each operation of the tool layer (service/tools.py) takes, declared once. The door every request comes
through (`request_handler`: the local endpoint, and a front end's library of its own) checks the arguments against
it — types, ranges, lengths, choices — before anything reaches the library, and the MCP tools' JSON schemas are
made from it: what an assistant is told and what is checked cannot drift apart.

A bad argument is a BadInput naming it and what it should be; nothing a client sends ends as a traceback.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

from desktop_rag.config import CONTEXT_CHOICES
from desktop_rag.core.search.modes import MODES, SORTS
from desktop_rag.errors import BadInput

MAX_QUERY_CHARS = 2_000  # a question, or a paragraph to find the like of; past this it is a document, not a query
MAX_LIMIT = 100  # hits a search gives at most (the CLI's own library allows more: see `check`'s `maximums`)
MAX_CHUNK_CHARS = 20_000
MAX_PATH_CHARS = 4_096  # PATH_MAX on Linux
MAX_LIST_ITEMS = 1_000
LARGEST_ID = 2**63 - 1  # SQLite's INTEGER: a larger number names no row and cannot even be looked up

_REQUIRED = inspect.Parameter.empty  # as a signature says it: a declaration compares equal to its function's
_JSON_TYPES = {"integer": "integer", "number": "number", "boolean": "boolean", "string": "string",
               "strings": "array", "object": "object"}


@dataclass(frozen=True)
class Argument:
    name: str
    kind: str  # integer, number, boolean, string, strings (a list of strings), object (names → JSON values)
    default: object = _REQUIRED
    nullable: bool = False  # null allowed: "not given"
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None  # characters of a string; items of a list (each item: MAX_PATH_CHARS)
    choices: tuple[str, ...] = ()
    for_agents: bool = True  # False: the window's alone, left out of the MCP tool an agent is given

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    def schema(self) -> dict:
        schema: dict = {"type": _JSON_TYPES[self.kind]}
        if self.kind == "strings":
            schema["items"] = {"type": "string", "maxLength": MAX_PATH_CHARS}
            if self.max_length is not None:
                schema["maxItems"] = self.max_length
        elif self.max_length is not None:
            schema["maxLength"] = self.max_length
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        if self.choices:
            schema["enum"] = list(self.choices)
        if self.nullable:
            schema = {"anyOf": [schema, {"type": "null"}]}
        if not self.required:
            schema["default"] = self.default
        return schema

    def check(self, value, maximum: float | None = None):
        """`value` if it is one this argument takes, else a BadInput saying what is wrong. `maximum` overrides the
        declared one (a library of the CLI's own gives more hits than the endpoint)."""
        if value is None and self.nullable:
            return None
        checker = {"integer": self._integer, "number": self._number, "boolean": self._boolean,
                   "string": self._string, "strings": self._strings, "object": self._object}[self.kind]
        return checker(value, self.maximum if maximum is None else maximum)

    def _integer(self, value, maximum):
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadInput(f"{self.name} must be a whole number, not {_shown(value)}")
        return self._in_range(value, maximum)

    def _number(self, value, maximum):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise BadInput(f"{self.name} must be a number, not {_shown(value)}")
        return self._in_range(value, maximum)

    def _in_range(self, value, maximum):
        low = self.minimum if self.minimum is not None else -math.inf
        high = maximum if maximum is not None else math.inf
        if not low <= value <= high:
            raise BadInput(f"{self.name} must be between {_number(low)} and {_number(high)}, not {_shown(value)}")
        return value

    def _boolean(self, value, maximum):
        if not isinstance(value, bool):
            raise BadInput(f"{self.name} must be true or false, not {_shown(value)}")
        return value

    def _string(self, value, maximum, what: str | None = None, max_length: int | None = None):
        what = what or self.name
        max_length = max_length or self.max_length
        if not isinstance(value, str):
            raise BadInput(f"{what} must be text, not {_shown(value)}")
        if max_length is not None and len(value) > max_length:
            raise BadInput(f"{what} has {len(value):,} characters; at most {max_length:,} are taken")
        if "\x00" in value:
            raise BadInput(f"{what} holds a NUL character, which no text, path or name here has")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BadInput(f"{what} is not valid text (it holds a lone surrogate, \\ud800-\\udfff)") from None
        if self.choices and value not in self.choices:
            raise BadInput(f"unknown {what} {value!r}; pick one of {', '.join(self.choices)}")
        return value

    def _object(self, value, maximum):
        """Names to values; what each value may be is the operation's to check (settings: config.py)."""
        if not isinstance(value, dict):
            raise BadInput(f"{self.name} must be an object of names and values, not {_shown(value)}")
        if self.max_length is not None and len(value) > self.max_length:
            raise BadInput(f"{self.name} has {len(value):,} entries; at most {self.max_length:,} are taken")
        for key in value:
            self._string(key, None, f"a name in {self.name}", 100)
        return value

    def _strings(self, value, maximum):
        if not isinstance(value, list):
            raise BadInput(f"{self.name} must be a list of strings, not {_shown(value)}")
        if self.max_length is not None and len(value) > self.max_length:
            raise BadInput(f"{self.name} has {len(value):,} items; at most {self.max_length:,} are taken")
        return [self._string(item, None, f"{self.name}[{i}]", MAX_PATH_CHARS) for i, item in enumerate(value)]


@dataclass(frozen=True)
class Operation:
    name: str
    arguments: tuple[Argument, ...] = ()

    def check(self, params: dict, maximums: dict[str, float] | None = None) -> dict:
        """The arguments of a request, checked, with the defaults of those left out."""
        known = {a.name: a for a in self.arguments}
        unknown = sorted(set(params) - set(known))
        if unknown:
            takes = ", ".join(known) or "no arguments"
            raise BadInput(f"{self.name} has no argument {', '.join(map(repr, unknown))} (it takes {takes})")
        checked = {}
        for argument in self.arguments:
            if argument.name in params:
                checked[argument.name] = argument.check(params[argument.name], (maximums or {}).get(argument.name))
            elif argument.required:
                raise BadInput(f"{self.name} needs {argument.name}")
        return checked

    def agents_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.for_agents)

    def json_schema(self) -> dict:
        """What an agent's tool takes: the arguments for agents."""
        arguments = self.agents_arguments()
        return {"type": "object", "properties": {a.name: a.schema() for a in arguments},
                "required": [a.name for a in arguments if a.required], "additionalProperties": False}


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _optional_text(name: str, max_length: int) -> Argument:
    return Argument(name, "string", None, nullable=True, max_length=max_length)


_CHUNK_ID = Argument("chunk_id", "integer", minimum=1, maximum=LARGEST_ID)

OPERATIONS = {operation.name: operation for operation in (
    Operation("search", (
        Argument("query", "string", "", max_length=MAX_QUERY_CHARS),
        Argument("limit", "integer", 10, minimum=1, maximum=MAX_LIMIT),
        Argument("mode", "string", "hybrid", choices=MODES),
        Argument("rerank", "boolean", None, nullable=True),
        Argument("score_threshold", "number", None, nullable=True, minimum=0, maximum=1),
        _optional_text("folder", MAX_PATH_CHARS),
        Argument("folders", "strings", None, nullable=True, max_length=MAX_LIST_ITEMS),
        Argument("types", "strings", None, nullable=True, max_length=MAX_LIST_ITEMS),
        _optional_text("after", 40),
        _optional_text("before", 40),
        _optional_text("sender", 500),
        Argument("sort", "string", "relevance", choices=SORTS),
        Argument("similar_to", "integer", None, nullable=True, minimum=1, maximum=LARGEST_ID),
        # The window's: its filter bar's filters as SearchFilters.to_dict gives them, and the type chips' counts.
        Argument("filters", "object", None, nullable=True, max_length=10, for_agents=False),
        Argument("facets", "boolean", False, for_agents=False),
    )),
    Operation("generate_context", (
        Argument("chunk_id", "integer", None, nullable=True, minimum=1, maximum=LARGEST_ID),
        _optional_text("text", MAX_CHUNK_CHARS),
        _optional_text("document_path", MAX_PATH_CHARS),
        Argument("max_words", "integer", None, nullable=True, minimum=5, maximum=200),
        Argument("store", "boolean", False),
    )),
    Operation("reindex", (
        Argument("paths", "strings", None, nullable=True, max_length=MAX_LIST_ITEMS),
        Argument("contexts", "string", "auto", choices=CONTEXT_CHOICES),
    )),
    # `desktop-rag index` while a service runs: any file or folder, as the person's own command may (no agent's
    # tool: mcp_server.py gives agents `reindex`, inside the folders already indexed).
    Operation("index", (
        Argument("paths", "strings", max_length=MAX_LIST_ITEMS),
        Argument("contexts", "string", None, nullable=True, choices=CONTEXT_CHOICES),
    )),
    Operation("progress", (_optional_text("run_id", 100),)),
    Operation("stats"),
    Operation("document", (Argument("doc_id", "integer", minimum=1, maximum=LARGEST_ID),)),
    Operation("chunk", (Argument("chunk_id", "integer", minimum=1, maximum=LARGEST_ID),)),
    # `desktop-rag stop` (no agent's tool: mcp_server.py names the ones agents get); `everything`: the tray's Quit,
    # which ends the windows following the service too.
    Operation("stop", (Argument("everything", "boolean", False),)),
    # The tray's (ui/tray.py): what the process is doing, waiting up to wait_s for a change from `after`.
    Operation("status", (_optional_text("after", 40), Argument("wait_s", "number", 0.0, minimum=0, maximum=30))),
    # The tray's Pause and Resume: the LLM's work and the runs in hand (`runs` False: the LLM's alone, the window's
    # LLM line).
    Operation("pause_background", (Argument("paused", "boolean"), Argument("runs", "boolean", True))),
    # The quick popup's, as it opens: what a search needs is loaded while the person types.
    Operation("prepare_search"),
    # A hit a person opens (the quick popup): noted for the upgrade's order, and the path a viewer can open.
    Operation("open_hit", (Argument("chunk_id", "integer", None, nullable=True, minimum=1, maximum=LARGEST_ID),
                           _optional_text("path", MAX_PATH_CHARS))),
    Operation("hello"),  # who answers: {"served_by", "pid", "role"}
    # What the service did since event `after` of its `instance` (service/events.py), waiting up to wait_s for
    # one, or for its status to differ from the version `status` a client has.
    Operation("events", (
        Argument("after", "integer", None, nullable=True, minimum=0, maximum=LARGEST_ID),
        _optional_text("instance", 100),
        Argument("wait_s", "number", 0.0, minimum=0, maximum=30),
        _optional_text("status", 40),
    )),
    # A person's writes, each on the service's write lane; each answers with what it changed (core/changes.py).
    Operation("change_settings", (Argument("values", "object", max_length=200),)),
    Operation("remove_folder", (Argument("folder", "string", max_length=MAX_PATH_CHARS),)),
    Operation("upgrade_first", (Argument("folder", "string", max_length=MAX_PATH_CHARS),
                                Argument("on", "boolean", True))),
    Operation("set_context", (_CHUNK_ID, Argument("text", "string", max_length=MAX_CHUNK_CHARS),
                              _optional_text("questions", MAX_CHUNK_CHARS))),
    Operation("revert_context", (_CHUNK_ID,)),
    Operation("approve_context", (_CHUNK_ID,)),
    Operation("regenerate_context", (_CHUNK_ID,)),
    Operation("cancel_regenerate", (Argument("chunk_id", "integer", None, nullable=True, minimum=1,
                                             maximum=LARGEST_ID),)),  # None: every regeneration asked
    Operation("context", (_CHUNK_ID,)),  # a chunk's context as the catalog has it (`desktop-rag context ID`)
    # `desktop-rag rebuild`, `doctor [--repair]`, `contextualize --limit N`: the runs answer with their id.
    Operation("rebuild"),
    Operation("doctor", (Argument("repair", "boolean", False),)),
    Operation("contextualize", (Argument("limit", "integer", None, nullable=True, minimum=1, maximum=LARGEST_ID),)),
    Operation("cancel_run", (_optional_text("run_id", 100),)),  # None: every run queued or running
    Operation("pause_run", (_optional_text("run_id", 100), Argument("paused", "boolean", True))),
    # "Write LLM contexts now": the upgrade runs whatever the machine does, until nothing waits.
    Operation("upgrade_now"),
    # The person uses the window: with "only when idle" the upgrade makes way at once (platform idle time alone
    # does not see input to a window of this desktop's own in every session).
    Operation("note_input"),
)}
