"""Why a file could not be read, in words a person can act on: every reader raises these, and the run records the
reason for that file and goes on (a transient cause is tried again by the next run)."""


class ParseError(Exception):
    """A file that cannot be indexed; the message is shown to the user as the reason."""


class TransientReadError(ParseError):
    """Reading failed for a cause outside the file (a timeout on a loaded machine, a reader that did not start):
    the next run tries it again even if the file has not changed."""


def unreadable(what: str, exc: BaseException) -> ParseError:
    """The error for a file its library could not read: `what` the person reads ("not a readable Excel workbook"),
    the library's own words (an exception's class and text, which mean nothing to a person: issue 38) in the log."""
    import logging

    logging.getLogger("desktop_rag.parsers").info("%s: %s: %s", what, exc.__class__.__name__, exc)
    return ParseError(f"{what}: it is damaged or cut short, or another kind of file under that name")
