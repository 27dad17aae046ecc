"""Exceptions as sentences a person can act on: the app shows these, never a traceback (desktop_rag/errors.py)."""

from __future__ import annotations

from desktop_rag.errors import as_sentence, user_message


def sentences(notices) -> str:
    """The core's notices ("the dense index was empty …"), which the CLI prints each after "Note:", as sentences
    that can follow one another in a line of the window."""
    return " ".join(as_sentence(n.strip().rstrip(".")) + "." for n in notices if n.strip())


def readable(exc: BaseException) -> str:
    """A UserError's own message; for a bug, a sentence that sends the person to the log (the task runner has
    written the traceback there)."""
    message = user_message(exc)
    if message is not None:
        return as_sentence(message)
    return f"An internal error occurred ({exc.__class__.__name__}: {exc}). The log (desktop-rag.log) has the details."
