"""Exceptions as sentences a person can act on: the app shows these, never a traceback."""

from __future__ import annotations

import errno

from desktop_rag.core.llm.models import ModelUnavailable
from desktop_rag.core.search import NoIndexError


def readable(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return "The disk is full. Free some space, then run the task again; finished work is kept."
    if isinstance(exc, PermissionError):
        return f"Permission denied: {exc.filename or exc}. Check that you may read (or write) it."
    if isinstance(exc, FileNotFoundError):
        return f"Not found: {exc.filename or exc}."
    if isinstance(exc, ModelUnavailable):
        return f"The language model is not available: {exc}"
    if isinstance(exc, NoIndexError):
        return str(exc) or "Nothing is indexed yet: add a folder first."
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}"
    message = str(exc).strip()
    return message[:1].upper() + message[1:] if message else f"Unexpected error ({exc.__class__.__name__})."
