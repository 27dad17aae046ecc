"""What a person typed into the search box: words, "quoted phrases", prefixes (`tomat*`) and filter words
(`type:pdf in:~/Work after:2025-03 before:2025-06-30 from:anna`, core/search/filters.py).

Phrases are searched as their words (both retrievers) and then required verbatim, ignoring case and runs of
whitespace; a prefix matches every indexed word it begins. The meaning side gets the query without the marks.
A filter word counts outside quotes only ("type:pdf" in quotes is searched for); its value may be quoted
(`in:"~/My Documents"`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_PHRASE = re.compile(r'"([^"]+)"|“([^”]+)”|「([^」]+)」')
_PREFIX = re.compile(r"(?<![\w*])(\w{2,})\*(?!\w)")
FILTER_KEYS = ("type", "in", "after", "before", "from")
# A filter word, or a phrase (skipped whole, so a filter word inside quotes is searched for).
_FILTER_OR_PHRASE = re.compile(r"(?<!\S)(?P<key>" + "|".join(FILTER_KEYS) + r'):(?:"(?P<quoted>[^"]*)"'
                               r'|(?P<bare>[^\s"“「]+))|' + _PHRASE.pattern, re.IGNORECASE)


@dataclass
class ParsedQuery:
    text: str  # for the embedding: the words as typed, without quotes or stars
    keywords_text: str  # for BM25: the words and phrases, prefixes left out (they are expanded apart)
    phrases: list[str] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    filters: list[tuple[str, str]] = field(default_factory=list)  # (key, value) in the order typed


def parse_query(query: str) -> ParsedQuery:
    query, filters = split_filters(query)
    phrases = [next(g for g in m.groups() if g) for m in _PHRASE.finditer(query)]
    phrases = [" ".join(p.split()) for p in phrases if p.strip()]
    unquoted = _PHRASE.sub(lambda m: " " + next(g for g in m.groups() if g) + " ", query)
    prefixes = _PREFIX.findall(unquoted)
    text = " ".join(_PREFIX.sub(r"\1", unquoted).split())
    keywords_text = " ".join(_PREFIX.sub(" ", unquoted).split())
    return ParsedQuery(text=text, keywords_text=keywords_text, phrases=phrases, prefixes=prefixes,
                       filters=filters)


def _filter_word(match: re.Match) -> tuple[str, str] | None:
    """(key, value) of a _FILTER_OR_PHRASE match that is a filter word; None for a phrase, or `from:` alone."""
    key, value = match.group("key"), match.group("quoted") or match.group("bare")
    if key is None or not (value or "").strip():
        return None
    return key.lower(), value.strip()


def split_filters(query: str) -> tuple[str, list[tuple[str, str]]]:
    """The query without its filter words, and those words as (key, value), from outside quotes only."""
    filters: list[tuple[str, str]] = []

    def take(match: re.Match) -> str:
        word = _filter_word(match)
        if word is None:
            return match.group(0)  # a phrase, kept whole
        filters.append(word)
        return " "

    return _FILTER_OR_PHRASE.sub(take, query), filters


def contains_phrases(text: str, phrases: list[str]) -> bool:
    if not phrases:
        return True
    flat = " ".join(text.split()).casefold()
    return all(p.casefold() in flat for p in phrases)


def without_filter_word(query: str, key: str, value: str) -> str:
    """The query with its first filter word `key:value` taken out (a chip removed in the window)."""
    removed = False

    def take(match: re.Match) -> str:
        nonlocal removed
        if removed or _filter_word(match) != (key, value):
            return match.group(0)
        removed = True
        return " "

    return " ".join(_FILTER_OR_PHRASE.sub(take, query).split())
