class ParseError(Exception):
    """A file that cannot be indexed; the message is shown to the user as the reason."""


class TransientReadError(ParseError):
    """Reading failed for a cause outside the file (a timeout on a loaded machine, a reader that did not start):
    the next run tries it again even if the file has not changed."""
