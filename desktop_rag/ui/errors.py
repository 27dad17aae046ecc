"""Exceptions, and the ends of runs, as sentences a person can act on: the app shows these, never a traceback
(desktop_rag/errors.py)."""

from __future__ import annotations

from desktop_rag.errors import NoIndexError, as_sentence, user_message
from desktop_rag.remedies import for_window  # the core's remedies in the window's words (desktop_rag/remedies.py)


NOTHING_INDEXED = "Nothing is searchable yet: add a folder, and its files become searchable as they are indexed."
NOTHING_SEARCHABLE_YET = "Nothing is searchable yet: this search runs again as files become searchable."


def sentences(notices) -> str:
    """The core's notices ("the dense index was empty …"), which the CLI prints each after "Note:", as sentences
    that can follow one another in a line of the window."""
    return " ".join(as_sentence(for_window(n.strip()).rstrip(".")) + "." for n in notices if n.strip())


def readable(exc: BaseException) -> str:
    """A UserError's own message; for a bug, a sentence that sends the person to the log (the task runner has
    written the traceback there)."""
    if isinstance(exc, NoIndexError):
        return NOTHING_INDEXED
    message = user_message(exc)
    if message is not None:
        return as_sentence(for_window(message))
    return (f"An internal error occurred ({exc.__class__.__name__}: {exc}). The window's log (logs/window.log in "
            "the data folder) has the details.")


def ended_text(headline: str, notices) -> str:
    """A run's end in the progress panel: its headline and what it noticed, each a sentence (run together they
    read "… agree The keyword index …")."""
    return f"{headline.rstrip('.')}. {sentences(notices)}".strip()


def changes_text(summary) -> str:
    """A batch the watcher applied, in a few words: "Updated from disk: 1 indexed, 1 removed." """
    parts = summary.change_words()
    return f"Updated from disk: {', '.join(parts)}." if parts else ""


def nothing_indexed_is_none(search):
    """The search's result, or None when nothing is indexed yet (the search view says so in the window's words)."""
    try:
        return search()
    except NoIndexError:
        return None
