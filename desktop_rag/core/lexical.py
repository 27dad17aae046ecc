"""Words for the keyword index: lower-cased, stop words dropped, stemmed, and identifiers split.

`DiffExecutor` and `run_target` are indexed both whole and as their parts, so a query for "diff executor" or
"run target" finds them; the same function tokenizes documents and queries, so both sides always agree.
"""

from __future__ import annotations

import re
from functools import lru_cache

from desktop_rag.core.keyterms import STOPWORDS

_TOKEN = re.compile(r"\w+", re.UNICODE)
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer  # PyStemmer: Snowball in C

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer().stemWord(word)


def lexical_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        parts = [p for p in _PARTS.findall(raw)] if (("_" in raw) or not raw.islower()) else []
        for word in [raw, *parts] if len(parts) > 1 else [raw]:
            word = word.strip("_").lower()
            if len(word) < 2 or word in STOPWORDS:
                continue
            tokens.append(_stem(word))
    return tokens
