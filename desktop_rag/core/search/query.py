"""What a person typed into the search box: words, "quoted phrases" and prefixes (`tomat*`).

Phrases are searched as their words (both retrievers) and then required verbatim, ignoring case and runs of
whitespace; a prefix matches every indexed word it begins. The meaning side gets the query without the marks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_PHRASE = re.compile(r'"([^"]+)"|“([^”]+)”|「([^」]+)」')
_PREFIX = re.compile(r"(?<![\w*])(\w{2,})\*(?!\w)")


@dataclass
class ParsedQuery:
    text: str  # for the embedding: the words as typed, without quotes or stars
    keywords_text: str  # for BM25: the words and phrases, prefixes left out (they are expanded apart)
    phrases: list[str] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)


def parse_query(query: str) -> ParsedQuery:
    phrases = [next(g for g in m.groups() if g) for m in _PHRASE.finditer(query)]
    phrases = [" ".join(p.split()) for p in phrases if p.strip()]
    unquoted = _PHRASE.sub(lambda m: " " + next(g for g in m.groups() if g) + " ", query)
    prefixes = _PREFIX.findall(unquoted)
    text = " ".join(_PREFIX.sub(r"\1", unquoted).split())
    keywords_text = " ".join(_PREFIX.sub(" ", unquoted).split())
    return ParsedQuery(text=text, keywords_text=keywords_text, phrases=phrases, prefixes=prefixes)


def contains_phrases(text: str, phrases: list[str]) -> bool:
    if not phrases:
        return True
    flat = " ".join(text.split()).casefold()
    return all(p.casefold() in flat for p in phrases)
