"""The child's side of child_process.py: the object built, each lane's calls answered in turn, a failure sent back
as a sentence (and as the exception itself where it can cross the pipe). The child lowers its priority, ignores
Ctrl-C (the app decides, and closes its children) and ends with the process it serves."""

from __future__ import annotations

import pickle
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection

from desktop_rag.errors import UserError
from desktop_rag.platform import parent_watch, processes


def serve(conns: list[Connection], lifeline: Connection | None, factory: Callable[..., object], args: tuple,
          name: str) -> None:
    from desktop_rag.logs import warnings_to_the_log

    warnings_to_the_log()  # a library's warning (openpyxl's, reading a workbook) is not the terminal's to print
    processes.lower_priority()
    processes.name_process(name)
    # Ctrl-C in the app's terminal reaches the whole process group: the app decides, and closes its children.
    processes.ignore_interrupts()
    # It ends as soon as the process it serves is gone, whatever it is doing (issue 61: a busy child noticed only
    # when its call ended and its pipe was closed: after a kill of the service the vector store wrote Chroma's
    # files for 2-3 s beside the new service's, the language model worked 4 minutes more).
    if lifeline is not None:
        parent_watch.end_when_lifeline_ends(lifeline.fileno())  # (`lifeline` kept open by this frame: for good)
    else:
        parent_watch.end_when_parent_ends()
    first, others = conns[0], conns[1:]
    try:
        served = factory(*args)
    except Exception as exc:  # reported to the parent as a readable line
        _reply(first, (False, _failure(exc, f"cannot open {name}: ")))
        return
    if not _reply(first, (True, "ready")):
        return
    for conn in others:
        threading.Thread(target=serve_lane, args=(served, conn), daemon=True).start()
    serve_lane(served, first)  # the process ends when the first lane closes


def serve_lane(served: object, conn: Connection) -> None:
    while True:
        try:
            method, args = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if method == "close":
            _reply(conn, (True, None))
            return
        try:
            answer = (True, getattr(served, method)(*args))
        except Exception as exc:  # the parent raises it; the child keeps serving
            answer = (False, _failure(exc))
        if not _reply(conn, answer):
            return


def _reply(conn: Connection, message: tuple) -> bool:
    """Send an answer; False if the parent is gone (killed while this child worked): the child then ends quietly
    instead of printing a BrokenPipeError traceback into the terminal the parent left."""
    try:
        conn.send(message)
        return True
    except OSError:
        return False


def _failure(exc: Exception, prefix: str = "") -> tuple[str, Exception | None]:
    try:
        original = pickle.loads(pickle.dumps(exc))
    except Exception:  # an exception that cannot cross the pipe goes as its message alone
        original = None
    if isinstance(exc, UserError):  # a sentence for a person already: no class name before it
        return f"{prefix}{exc}", original
    return f"{prefix}{exc.__class__.__name__}: {exc}", original
