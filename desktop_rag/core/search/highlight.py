"""Where a query's words occur in a text, for highlighting hits: the keyword index's own notion of a match.

A word of the text matches when it, or one of its identifier parts, stems like a query word ("payments" for
"payment", `late_payment_interest` for "interest"); a run of Japanese or Chinese matches where its character pairs
are the query's, exactly as BM25 matched it (a query word of one kanji: that kanji in every pair holding it). A
`word*` in the query highlights every word it is the start of.

Japanese and Chinese are marked by stretches, not pairs: a pair of the query's found alone ("って", "する", "を"
beside a noun) is most often a particle or a fragment, and marking every one lit a passage up all over (issue 60,
8). A stretch is marked when it is three characters or more of the query as written, or a whole word of the query
(a run between its spaces, "東京"); pairs that are neither stay unmarked, though the keyword search counted them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from desktop_rag.core.search.query import ParsedQuery, parse_query
from desktop_rag.core.text.lexical import lexical_tokens, lone_characters, prefix_stem, tokens_with_spans
from desktop_rag.core.text.scripts import CJK_CLASS, has_cjk


Span = tuple[int, int]
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
SHOWN_STRETCH_CHARS = 3  # a stretch of the query this long is marked wherever it is found


@dataclass(frozen=True)
class QueryMatch:
    """A query's words as the keyword index matches them, worked out once from the parsed query (the searcher's):
    each hit's matches are found with it on the search's thread, and a preview's on the read lane, so the window
    paints marks it is given rather than parsing the query again for every hit on its own thread."""

    wanted: frozenset[str]  # the query's words, stemmed as the index stems them
    lone: tuple[str, ...]  # lone Japanese or Chinese characters, matched inside the index's character pairs
    prefixes: tuple[str, ...]  # `word*`: every word it is the start of
    cjk_runs: tuple[str, ...] = ()  # the query's runs of Japanese or Chinese characters, NFKC

    def to_dict(self) -> dict[str, list[str]]:
        """As the endpoint carries it: a client marks hits with the search's own parse, not one of its own."""
        return {"wanted": sorted(self.wanted), "lone": list(self.lone), "prefixes": list(self.prefixes),
                "cjk_runs": list(self.cjk_runs)}

    @classmethod
    def from_dict(cls, values: dict[str, list[str]]) -> QueryMatch:
        return cls(frozenset(values["wanted"]), tuple(values["lone"]), tuple(values["prefixes"]),
                   tuple(values["cjk_runs"]))

    @classmethod
    def of(cls, parsed: ParsedQuery) -> QueryMatch:
        wanted = frozenset(lexical_tokens(parsed.keywords_text))
        return cls(wanted, lone_characters(wanted), tuple(prefix_stem(p) for p in parsed.prefixes),
                   _cjk_runs(parsed.keywords_text))

    @classmethod
    def of_words(cls, text: str, words: frozenset[str]) -> QueryMatch:
        """The words of `text` that are among `words` (stemmed as the index stems them): an answer's sentence,
        marked where the passage it cites holds its words (core/answering/citations.py)."""
        return cls(words, lone_characters(words), (), _cjk_runs(text))

    def spans(self, text: str) -> list[Span]:
        """(start, end) of every stretch of `text` that matches a query word, in order, not overlapping."""
        if not self.wanted and not self.prefixes:
            return []
        words: list[Span] = []
        pairs: list[Span] = []  # Japanese or Chinese: judged by the stretch they make (the module's note)
        for term, start, end in tokens_with_spans(text):
            if term in self.wanted or (self.prefixes and term.startswith(self.prefixes)):
                matched = [(start, end)]
            elif self.lone and any(c in term for c in self.lone):
                matched = _lone_character_spans(term, start, end, self.lone)
            else:
                continue
            _extend(pairs if has_cjk(term) else words, matched)
        if not pairs:
            return words
        spans: list[Span] = []
        _extend(spans, sorted(words + self._shown_stretches(text, pairs)))
        return spans

    def _shown_stretches(self, text: str, stretches: list[Span]) -> list[Span]:
        shown = []
        for start, end in stretches:
            if self._is_shown(text[start:end]):
                shown.append((start, end))
            else:  # its pairs that are whole words of the query ("東京" inside "東京都")
                shown += [(a, a + 2) for a in range(start, end - 1) if self._is_shown(text[a:a + 2], whole=True)]
        return shown

    def _is_shown(self, piece: str, whole: bool = False) -> bool:
        piece = unicodedata.normalize("NFKC", piece)
        if piece in self.cjk_runs:
            return True
        return not whole and len(piece) >= SHOWN_STRETCH_CHARS and any(piece in run for run in self.cjk_runs)

    def matches_in(self, **texts: str) -> dict[str, list[Span]]:
        """The spans in each named text that has any (a hit's "text", "context", "questions")."""
        found = {name: self.spans(text) for name, text in texts.items() if text}
        return {name: spans for name, spans in found.items() if spans}


def _cjk_runs(text: str) -> tuple[str, ...]:
    """Its runs of Japanese or Chinese characters, NFKC: the stretches marked whole (`_is_shown`)."""
    return tuple(_CJK_RUN.findall(unicodedata.normalize("NFKC", text)))


def match_spans(text: str, query: str) -> list[Span]:
    """`QueryMatch.spans` for a query given as typed."""
    return QueryMatch.of(parse_query(query)).spans(text)


def _extend(spans: list[Span], matched: list[Span]) -> None:
    """Each span added in order; one that overlaps the last (a word's parts, overlapping pairs) makes one stretch."""
    for start, end in matched:
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))


def _lone_character_spans(term: str, start: int, end: int, lone: tuple[str, ...]) -> list[Span]:
    """The query's lone characters inside an indexed pair: just them, not their neighbour (the whole pair where
    normalization changed its length, so characters and offsets do not line up)."""
    if end - start != len(term):
        return [(start, end)]
    return [(start + i, start + i + 1) for i, character in enumerate(term) if character in lone]
