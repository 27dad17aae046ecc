"""Where a query's words occur in a text, for highlighting hits: the keyword index's own notion of a match.

A word of the text matches when it, or one of its identifier parts, stems like a query word ("payments" for
"payment", `late_payment_interest` for "interest"); a run of Japanese or Chinese matches where its character pairs
are the query's, exactly as BM25 matched it (a query word of one kanji: that kanji in every pair holding it). A
`word*` in the query highlights every word it is the start of.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_rag.core.search.query import ParsedQuery, parse_query
from desktop_rag.core.text.lexical import lexical_tokens, lone_characters, prefix_stem, tokens_with_spans


Span = tuple[int, int]


@dataclass(frozen=True)
class QueryMatch:
    """A query's words as the keyword index matches them, worked out once from the parsed query (the searcher's):
    each hit's matches are found with it on the search's thread, and a preview's on the read lane, so the window
    paints marks it is given rather than parsing the query again for every hit on its own thread."""

    wanted: frozenset[str]  # the query's words, stemmed as the index stems them
    lone: tuple[str, ...]  # lone Japanese or Chinese characters, matched inside the index's character pairs
    prefixes: tuple[str, ...]  # `word*`: every word it is the start of

    @classmethod
    def of(cls, parsed: ParsedQuery) -> QueryMatch:
        wanted = frozenset(lexical_tokens(parsed.keywords_text))
        return cls(wanted, lone_characters(wanted), tuple(prefix_stem(p) for p in parsed.prefixes))

    def spans(self, text: str) -> list[Span]:
        """(start, end) of every stretch of `text` that matches a query word, in order, not overlapping."""
        if not self.wanted and not self.prefixes:
            return []
        spans: list[Span] = []
        for term, start, end in tokens_with_spans(text):
            if term in self.wanted or (self.prefixes and term.startswith(self.prefixes)):
                matched = [(start, end)]
            elif self.lone and any(c in term for c in self.lone):
                matched = _lone_character_spans(term, start, end, self.lone)
            else:
                continue
            for start, end in matched:
                if spans and start <= spans[-1][1]:  # overlapping character pairs, or a word's parts: one stretch
                    spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
                else:
                    spans.append((start, end))
        return spans

    def matches_in(self, **texts: str) -> dict[str, list[Span]]:
        """The spans in each named text that has any (a hit's "text", "context", "questions")."""
        found = {name: self.spans(text) for name, text in texts.items() if text}
        return {name: spans for name, spans in found.items() if spans}


def match_spans(text: str, query: str) -> list[Span]:
    """`QueryMatch.spans` for a query given as typed."""
    return QueryMatch.of(parse_query(query)).spans(text)


def _lone_character_spans(term: str, start: int, end: int, lone: tuple[str, ...]) -> list[Span]:
    """The query's lone characters inside an indexed pair: just them, not their neighbour (the whole pair where
    normalization changed its length, so characters and offsets do not line up)."""
    if end - start != len(term):
        return [(start, end)]
    return [(start + i, start + i + 1) for i, character in enumerate(term) if character in lone]
