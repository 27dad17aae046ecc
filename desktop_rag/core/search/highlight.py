"""Where a query's words occur in a text, for highlighting hits: the keyword index's own notion of a match.

A word of the text matches when it, or one of its identifier parts, stems like a query word ("payments" for
"payment", `late_payment_interest` for "interest"); a run of Japanese or Chinese matches where its character pairs
are the query's, exactly as BM25 matched it (a query word of one kanji: that kanji in every pair holding it). A
`word*` in the query highlights every word it is the start of.
"""

from __future__ import annotations

from desktop_rag.core.search.query import parse_query
from desktop_rag.core.text.lexical import lexical_tokens, lone_characters, prefix_stem, tokens_with_spans


def match_spans(text: str, query: str) -> list[tuple[int, int]]:
    """(start, end) of every stretch of `text` that matches a query word, in order, not overlapping."""
    parsed = parse_query(query)
    wanted = set(lexical_tokens(parsed.keywords_text))
    lone = lone_characters(wanted)
    prefixes = tuple(prefix_stem(p) for p in parsed.prefixes)
    if not wanted and not prefixes:
        return []
    spans: list[tuple[int, int]] = []
    for term, start, end in tokens_with_spans(text):
        if term in wanted or (prefixes and term.startswith(prefixes)):
            matched = [(start, end)]
        elif lone and any(c in term for c in lone):
            matched = _lone_character_spans(term, start, end, lone)
        else:
            continue
        for start, end in matched:
            if spans and start <= spans[-1][1]:  # overlapping character pairs, or a word's parts: one stretch
                spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
            else:
                spans.append((start, end))
    return spans


def _lone_character_spans(term: str, start: int, end: int, lone: tuple[str, ...]) -> list[tuple[int, int]]:
    """The query's lone characters inside an indexed pair: just them, not their neighbour (the whole pair where
    normalization changed its length, so characters and offsets do not line up)."""
    if end - start != len(term):
        return [(start, end)]
    return [(start + i, start + i + 1) for i, character in enumerate(term) if character in lone]
