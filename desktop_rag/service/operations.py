"""How an operation's arguments are checked and told: the door every request comes through (`request_handler`: the
local endpoint, and a front end's library of its own) checks them — types, ranges, lengths, choices — before
anything reaches the library, and the MCP tools' JSON schemas are made from the same declaration (service/wire.py,
where each operation is declared once): what an assistant is told and what is checked cannot drift apart.

A bad argument is a BadInput naming it and what it should be; nothing a client sends ends as a traceback.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any

from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.errors import BadInput

MAX_QUERY_CHARS = 2_000  # a question, or a paragraph to find the like of; past this it is a document, not a query
MAX_LIMIT = 100  # hits a search gives at most (the CLI's own library allows more: see `check`'s `maximums`)
MAX_CHUNK_CHARS = 20_000
MAX_PATH_CHARS = 4_096  # PATH_MAX on Linux
MAX_LIST_ITEMS = 1_000
LARGEST_ID = 2**63 - 1  # SQLite's INTEGER: a larger number names no row and cannot even be looked up

REQUIRED = inspect.Parameter.empty  # as a signature says it: a declaration compares equal to its function's
_JSON_TYPES = {"integer": "integer", "number": "number", "boolean": "boolean", "string": "string",
               "strings": "array", "object": "object", "filters": "object"}


@dataclass(frozen=True)
class Argument:
    name: str
    kind: str  # integer, number, boolean, string, strings (a list of strings), object (names → JSON values),
    # filters (a SearchFilters, on the wire as its to_dict)
    default: object = REQUIRED
    nullable: bool = False  # null allowed: "not given"
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None  # characters of a string; items of a list (each item: MAX_PATH_CHARS)
    choices: tuple[str, ...] = ()
    for_agents: bool = True  # False: the window's alone, left out of the MCP tool an agent is given

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

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
                   "string": self._string, "strings": self._strings, "object": self._object,
                   "filters": self._filters}[self.kind]
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

    def _filters(self, value, maximum) -> SearchFilters:
        if isinstance(value, SearchFilters):  # a front end's library of its own: no wire between
            return value
        try:
            return SearchFilters.checked(value)
        except ValueError as exc:
            raise BadInput(str(exc)) from None

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


@dataclass(frozen=True)
class Limits:
    """What an argument takes beyond its type, in its annotation: `Annotated[int, Limits(minimum=1)]`."""
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None  # characters of a string; items of a list; entries of an object
    choices: tuple[str, ...] = ()
    for_agents: bool = True  # False: the window's alone, left out of the MCP tool an agent is given


_KINDS: dict[object, str] = {int: "integer", float: "number", bool: "boolean", str: "string", list: "strings",
                             dict: "object", SearchFilters: "filters"}


def operation_of(request: type[Any]) -> Operation:
    """The declaration of a request of service/wire.py: a field an argument, its annotation what it takes."""
    hints = typing.get_type_hints(request, include_extras=True)
    return Operation(request.method, tuple(_argument(field, hints[field.name])
                                           for field in dataclasses.fields(request)))


def _argument(field: dataclasses.Field, hint: object) -> Argument:
    limits = next((x for x in getattr(hint, "__metadata__", ()) if isinstance(x, Limits)), Limits())
    base = typing.get_args(hint)[0] if typing.get_origin(hint) is Annotated else hint
    nullable = False
    if isinstance(base, types.UnionType):
        others = [a for a in typing.get_args(base) if a is not type(None)]
        nullable, base = len(others) < len(typing.get_args(base)), others[0]
    kind = _KINDS[typing.get_origin(base) or base]
    default = REQUIRED if field.default is dataclasses.MISSING else field.default
    return Argument(field.name, kind, default, nullable=nullable, minimum=limits.minimum, maximum=limits.maximum,
                    max_length=limits.max_length, choices=limits.choices, for_agents=limits.for_agents)
