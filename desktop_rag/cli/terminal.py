"""Text from files on a person's terminal: shown, never obeyed (issue 50). A file name or a file's content may
hold escape sequences — a name with ESC]0;…BEL set the terminal's title and split the line it was printed on."""

from __future__ import annotations

import re
from typing import TextIO

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# What a terminal takes as a command rather than text: the C0 controls but newline and tab (ESC starts the
# sequences that set a window's title, move the cursor, or with some terminals answer back), DEL, the C1 controls
# (\x9b is CSI to some), and the bidirectional overrides that reorder what is shown (a name reading as another).
# A file's text or name reaches the terminal with these written as escapes (issue 50).
_NOT_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _as_escape(match: re.Match) -> str:
    return match.group(0).encode("unicode_escape").decode("ascii")


def harmless(text: str) -> str:
    return _NOT_TEXT.sub(_as_escape, text)


class HarmlessStream:
    """The CLI's stdout or stderr, writing every text harmless (`harmless`): whatever a file's name or content
    holds, it is shown, never obeyed. The CLI's own control sequences (a progress line redrawn) go by `control`."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(harmless(text))

    def control(self, sequence: str) -> int:
        return self._stream.write(sequence)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def shown(path: str) -> str:
    """A path on one line: a newline or other control character in a file name is written as an escape (\\n),
    so it cannot break the output into lines that look like other files."""
    return _CONTROL.sub(_as_escape, str(path))
