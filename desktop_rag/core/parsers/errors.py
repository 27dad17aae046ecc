class ParseError(Exception):
    """A file that cannot be indexed; the message is shown to the user as the reason."""
