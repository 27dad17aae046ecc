"""Regular-expression scans of long texts, a piece of whole lines at a time.

One search runs in C with the GIL held until it finds the next match: over a 15 MB file without one, that kept
the app's window waiting ~70 ms per search. The patterns used this way match within a line, so cutting the text
between lines finds the same matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

SCAN_CHARS = 1_000_000


def line_matches(pattern: re.Pattern, text: str, piece_chars: int = SCAN_CHARS) -> Iterator[re.Match]:
    start = 0
    while start < len(text):
        end = text.find("\n", start + piece_chars)
        end = len(text) if end == -1 else end + 1
        yield from pattern.finditer(text, start, end)
        start = end
