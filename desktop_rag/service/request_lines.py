"""The endpoint's wire format, one JSON object per line each way: a request line read into (method, params) with
its limits — size, nesting, shape — and an answer (a result, or an error of a type the client raises again) as
the line sent back. Whatever bytes arrive, the outcome is a request or a BadInput, never an exception from the
JSON parser (a deeply nested line used to end the endpoint with a RecursionError)."""

from __future__ import annotations

import json
import re

from desktop_rag import errors
from desktop_rag.errors import UserError, user_message

MAX_REQUEST_BYTES = 1_000_000  # far above any valid request (queries are capped at 2,000 characters)
MAX_NESTING = 16  # a valid request nests 3 deep (the request, its params, a list of folders)

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_A_BRACKET = bytes(set(range(256)) - set(b"[]{}"))


def read_request(line: bytes) -> tuple[str, dict]:
    """(method, params) of one request line, or a BadInput saying what is wrong with it."""
    if len(line) > MAX_REQUEST_BYTES:
        raise errors.BadInput(f"the request is over {MAX_REQUEST_BYTES:,} bytes")
    if _nesting(line) > MAX_NESTING:
        raise errors.BadInput(f"the request nests deeper than {MAX_NESTING} levels")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:  # json.loads would guess UTF-16 or 32 from the first bytes
        raise errors.BadInput(f"not a request: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        request = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise errors.BadInput(f"not a request: {exc}") from None
    if not isinstance(request, dict) or "method" not in request:
        raise errors.BadInput('not a request: a request is {"method": NAME, "params": {...}}')
    method, params = request["method"], request.get("params") or {}
    if not isinstance(method, str) or not isinstance(params, dict):
        raise errors.BadInput("not a request: method must be a string and params an object")
    return method, params


LONG_POLLS = frozenset({"events", "status"})  # with a wait_s, they wait for a change for up to 30 s


def waits_long(line: bytes) -> bool:
    """A request that may wait for long: an event stream's or the tray's long poll (a pool of its own answers
    them: service/connection_loop.py). A line that is no request is not one."""
    try:
        method, params = read_request(line)
    except errors.BadInput:
        return False
    wait = params.get("wait_s")
    return method in LONG_POLLS and isinstance(wait, (int, float)) and wait > 0


def _nesting(line: bytes) -> int:
    """How deep the brackets of a JSON line nest, strings left out (a bracket inside one is text)."""
    brackets = _JSON_STRING.sub(b"", line).translate(None, _NOT_A_BRACKET)
    depth = deepest = 0
    for byte in brackets:
        depth += 1 if byte in b"[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            break  # deep enough to refuse: a megabyte of brackets is not walked to its end
    return deepest


def answer_line(answer: dict) -> bytes:
    """An answer as its line. A result JSON cannot carry (a NaN, an object) is an internal error said as such."""
    try:
        return json.dumps(answer, allow_nan=False).encode() + b"\n"
    except (TypeError, ValueError) as exc:
        return json.dumps(error_answer(exc)).encode() + b"\n"


def error_answer(exc: Exception) -> dict:
    message = user_message(exc)
    if message is None:
        return {"error": {"type": "InternalError", "message": f"internal error ({exc.__class__.__name__}: {exc})"}}
    kind = exc.__class__.__name__ if isinstance(exc, UserError) else "UserError"
    return {"error": {"type": kind, "message": str(exc) if isinstance(exc, UserError) else message}}
