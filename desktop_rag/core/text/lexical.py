"""Words for the keyword index, for every script: the one tokenizer of documents, queries, highlighting and key terms.

- Text is NFKC-normalized first, so full-width "ＡＢＣ" and half-width katakana match their usual forms.
- Latin, Cyrillic and other spaced scripts: words lower-cased, stop words dropped, stemmed; identifiers are indexed
  whole and as their parts (`DiffExecutor` → diffexecutor, diff, executor), so "diff executor" finds them.
- Chinese, Japanese and Korean are written without spaces between words, so a run of their characters is indexed
  as overlapping character pairs ("物流コスト" → 物流 流コ コス スト), as Lucene's CJK analyzer and Recoll do; a
  lone character is a token of its own. Measured on jsquad against a morphological analyzer (SudachiPy) in the
  docs/benchmarks.md: bigrams need no dictionary (SudachiPy's is 70 MB) and serve Chinese and Korean as well.
- Names with symbols people search for, `C++`, `C#`, `F#`, are one token each, not "c".

Every token keeps the span of the text it came from, so a hit highlights exactly what BM25 matched.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple
from collections.abc import Iterator

from desktop_rag.core.text.keyterms import STOPWORDS
from desktop_rag.core.text.scripts import CJK_CLASS, has_cjk

# Bump when tokens change: a library whose keyword index was built by another version is rebuilt from the catalog.
TOKENIZER_VERSION = 2

_CJK_RUN = f"[{CJK_CLASS}]+"
_SYMBOL_NAME = r"(?<![\w+#])[A-Za-z]{1,2}(?:\+\+|#)(?![\w+#])"  # C++, C#, F#, G++
_SPACED_WORD = rf"(?:(?![{CJK_CLASS}])\w)+"
_TOKEN = re.compile(f"(?P<symbol>{_SYMBOL_NAME})|(?P<cjk>{_CJK_RUN})|(?P<word>{_SPACED_WORD})")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_PLAIN_WORD = re.compile(r"\w+")
_SYMBOL_NAME_RE = re.compile(_SYMBOL_NAME)


class Token(NamedTuple):
    term: str
    start: int  # span in the text as given (before normalization)
    end: int


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer  # PyStemmer: Snowball in C

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer().stemWord(word)


def normalized(text: str) -> tuple[str, list[int] | None]:
    """NFKC of text, and for each of its characters the index of the original character it came from (None when
    NFKC changed nothing, the common case, so offsets need no mapping)."""
    folded = unicodedata.normalize("NFKC", text)
    if folded == text:
        return text, None
    origin: list[int] = []
    out: list[str] = []
    for i, ch in enumerate(text):
        piece = unicodedata.normalize("NFKC", ch) if not ch.isascii() else ch
        out.append(piece)
        origin.extend([i] * len(piece))
    return "".join(out), origin


def tokens_with_spans(text: str) -> Iterator[Token]:
    folded, origin = normalized(text)

    def span(a: int, b: int) -> tuple[int, int]:
        if origin is None:
            return a, b
        return origin[a], (origin[b - 1] + 1) if b > a else origin[a]

    for m in _TOKEN.finditer(folded):
        if m.group("symbol"):
            yield Token(m.group(0).lower(), *span(m.start(), m.end()))
        elif m.group("cjk"):
            run, at = m.group(0), m.start()
            if len(run) == 1:
                yield Token(run, *span(at, at + 1))
            for i in range(len(run) - 1):
                yield Token(run[i:i + 2], *span(at + i, at + i + 2))
        else:
            yield from _word_tokens(m.group(0), *span(m.start(), m.end()))


def _word_tokens(raw: str, start: int, end: int) -> Iterator[Token]:
    for term in _word_terms(raw):
        yield Token(term, start, end)


# A word as written → its terms, kept: words repeat. Tokenizing 30k chunks (a keyword rebuild's main work) took
# 2.9 s instead of 4.4, a 20-hit search's highlighting and match strength ~7 ms instead of ~9 (2 cores, bench text);
# 50,000 words hold ~10 MB.
@lru_cache(maxsize=50_000)
def _word_terms(raw: str) -> tuple[str, ...]:
    parts = _PARTS.findall(raw) if ("_" in raw or not raw.islower()) else []
    terms = []
    for word in [raw, *parts] if len(parts) > 1 else [raw]:
        word = word.strip("_").lower()
        if len(word) < 2 or word in STOPWORDS:
            continue
        terms.append(_stem(word))
    return tuple(terms)


def lexical_tokens(text: str) -> list[str]:
    folded = text if text.isascii() else unicodedata.normalize("NFKC", text)
    if has_cjk(folded) or (("+" in folded or "#" in folded) and _SYMBOL_NAME_RE.search(folded)):
        return [token.term for token in tokens_with_spans(text)]
    # The common case, spaced words only, without spans: 2.4× faster (a keyword index rebuild is mostly this).
    terms: list[str] = []
    for m in _PLAIN_WORD.finditer(folded):
        terms.extend(_word_terms(m.group(0)))
    return terms


def lone_characters(terms) -> tuple[str, ...]:
    """The query's terms of one Chinese or Japanese character ("鷺"). Their runs are indexed as pairs, so such a
    term matches every indexed pair it is part of ("の鷺", "鷺は"), in search, highlighting and match strength."""
    return tuple(term for term in terms if len(term) == 1 and has_cjk(term))


def prefix_stem(word: str) -> str:
    """What a `word*` query matches the start of: the word as the index holds it, stemmed unless the stem is
    longer (a stem can only shorten an English word), so `tomat*` matches "tomato" and "tomatoes"."""
    folded = unicodedata.normalize("NFKC", word).lower()
    stem = _stem(folded)
    return stem if len(stem) <= len(folded) else folded
