"""Where a query's words occur in a text, for highlighting hits: the keyword index's own notion of a match.

A word of the text matches when it, or one of its identifier parts, stems like a query word ("payments" for
"payment", `late_payment_interest` for "interest"), exactly as BM25 matched it.
"""

from __future__ import annotations

import re

from desktop_rag.core.lexical import lexical_tokens

_WORD = re.compile(r"\w+", re.UNICODE)


def match_spans(text: str, query: str) -> list[tuple[int, int]]:
    """(start, end) of every word in `text` that matches a query word, in order, not overlapping."""
    wanted = set(lexical_tokens(query))
    if not wanted:
        return []
    return [(m.start(), m.end()) for m in _WORD.finditer(text) if wanted.intersection(lexical_tokens(m.group(0)))]
