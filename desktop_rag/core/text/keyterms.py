"""Key terms of a document: the names a person would search for, found without any model.

Scored by frequency times shape: identifiers (CamelCase, snake_case, dotted, with digits) and capitalised words
in running text carry names; plain lower-case words rarely do. Deterministic per document, so a context built
from them only changes when the document does.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import cache

# Letters of the alphabets written with spaces between words (Latin with its accents, Greek, Cyrillic): "Müller"
# is one word, not "ller". Kanji and kana are cjk_key_terms' (no spaces to split on).
LETTERS = "A-Za-z_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u0370-\u03ff\u0400-\u04ff"
_WORD = re.compile(f"[{LETTERS}][{LETTERS}0-9]*(?:[.:][{LETTERS}][{LETTERS}0-9]*)*")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having he
    her here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only
    or other our out over own same she should so some such than that the their them then there these they this
    those through to too under until up very was we were what when where which while who whom why will with would
    you your yours may might must shall one two new use used using via per etc see get set make made like""".split()
)

# Words of programming languages and markup: frequent in code, useless as search terms.
CODE_WORDS = frozenset(
    """fn pub let mut impl struct enum trait use mod crate self super where match return true false none null nil
    def class import from as pass lambda yield async await try except finally raise with elif else if for while
    in is not and or const var function static public private protected void int long float double char bool
    string str usize isize u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 new this extends implements interface package
    include define ifdef endif ifndef typedef unsigned signed sizeof struct namespace template typename auto
    break continue case switch default goto do end then local require module export type dyn ref box vec ok err
    some option result unwrap clone into iter map len args kwargs cls http https www com org html div span""".split()
)


# The languages whose function words a document's key terms leave out besides English's (NLTK's lists, as bm25s
# ships them): without them a German PDF's terms were "ist, von, eine, Sei, mit, der, die, ein".
_OTHER_LANGUAGES = ("GERMAN", "FRENCH", "SPANISH", "ITALIAN", "PORTUGUESE", "DUTCH", "SWEDISH", "DANISH",
                    "NORWEGIAN", "RUSSIAN")
_LANGUAGE_SAMPLE_CHARS = 5_000


@cache
def _stop_lists() -> dict[str, frozenset[str]]:
    import bm25s.stopwords

    return {name: frozenset(getattr(bm25s.stopwords, f"STOPWORDS_{name}")) for name in _OTHER_LANGUAGES}


def stop_words_of(text: str) -> frozenset[str]:
    """English's function words, and those of the language whose function words `text` uses most, when it uses
    them clearly more than English's (counted on its beginning): one language's list only, so that an English "die"
    or "fast" stays a word while a German "die" goes. Measured: a German paragraph 18 German to 1 English, a French
    one 11 to 0, this README 41 Portuguese (its most) to 286 English, "Die casting… runs fast" 3 German to 2."""
    words = [w.lower() for w in _WORD.findall(text[:_LANGUAGE_SAMPLE_CHARS])]
    english = sum(w in STOPWORDS for w in words)
    hits = {name: sum(w in stop for w in words) for name, stop in _stop_lists().items()}
    language = max(hits, key=lambda name: hits[name], default=None)
    if language is None or hits[language] <= 2 * english + 2:
        return STOPWORDS
    return STOPWORDS | _stop_lists()[language]


def key_terms(text: str, limit: int = 8, exclude: str = "") -> list[str]:
    """The `limit` best terms of `text`; words of `exclude` (the title, already in the context) are left out.
    NFKC first: PDFs set "Deﬁnition" with a ligature, which split it into "De" and "nition" (a German PDF's terms)."""
    text = unicodedata.normalize("NFKC", text)
    excluded = {w.lower() for w in _WORD.findall(exclude)}
    stop_words = stop_words_of(text)
    counts: Counter[str] = Counter()
    shape: dict[str, float] = {}
    first_seen: dict[str, int] = {}
    for m in _WORD.finditer(text):
        word = m.group(0).strip(".:")
        lower = word.lower()
        if len(word) < 3 or lower in stop_words or lower in CODE_WORDS or lower in excluded:
            continue
        counts[word] += 1
        first_seen.setdefault(word, m.start())
        if word not in shape:
            shape[word] = _shape_weight(word, text, m.start())
    scored = sorted(counts, key=lambda w: (-counts[w] * shape[w], first_seen[w]))
    chosen: list[str] = []
    seen_lower: set[str] = set()
    for word in scored:
        if word.lower() in seen_lower:
            continue
        chosen.append(word)
        seen_lower.add(word.lower())
        if len(chosen) == limit:
            break
    return chosen


def _shape_weight(word: str, text: str, pos: int) -> float:
    if "_" in word.strip("_") or _CAMEL.search(word) or "." in word or "::" in word:
        return 3.0  # an identifier: almost always a name worth searching for
    if any(ch.isdigit() for ch in word):
        return 2.0
    if word[0].isupper() and not _starts_sentence(text, pos):
        return 2.0  # a proper noun in running text
    return 1.0


def _starts_sentence(text: str, pos: int) -> bool:
    before = text[max(0, pos - 3) : pos].rstrip(" \t")
    return not before or before[-1] in ".!?\n#*-"


# In Japanese and Chinese, names and technical terms are mostly runs of kanji (物流コスト's 物流, 梅雨前線) or of
# katakana (コスト, ロジスティクス); hiragana are grammar. Runs are counted like words above, without a dictionary.
CJK_TERM = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf々]{2,8}|[\u30a1-\u30fa\u30fc]{3,12}|[\uac00-\ud7af]{2,8}")


def cjk_key_terms(text: str, limit: int = 8, exclude: str = "") -> list[str]:
    counts = Counter(m.group(0) for m in CJK_TERM.finditer(text))
    first_seen: dict[str, int] = {}
    for m in CJK_TERM.finditer(text):
        first_seen.setdefault(m.group(0), m.start())
    chosen = [t for t in counts if t not in exclude]
    # Longer runs carry more: a count weighted by length favours 梅雨前線 (4 kanji) seen 3 times over 日本 seen 4.
    chosen.sort(key=lambda t: (-counts[t] * min(len(t), 4), first_seen[t]))
    return chosen[:limit]
