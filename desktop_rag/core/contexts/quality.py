"""A quality score in [0, 1] for a context, with the breakdown a person can read.

length: within the target band of words; relevance: the chunk's and document's key terms appear; coherence:
complete sentences, no repetition; specificity: not generic boilerplate; faithfulness: the names it mentions
occur in the document (a small model sometimes invents file or function names); adds: it brings words from
elsewhere in the document that the chunk itself lacks (three make it clearly useful).

`adds` is what measurement asked for (bench/context_features.py over the 1.5B model's contexts on the codebase
set, 306 question/relevant-chunk pairs): contexts naming ≥ 3 such words helped 59 and hurt 34 pairs in dense
search, against 29 / 21 for those naming none; with the first five parts alone the score's top third helped 44 /
hurt 17 and the rest were even. Its weight (0.3) was chosen the same way (docs/benchmarks.md, "Does the quality
score…").
"""

from __future__ import annotations

import re

from desktop_rag.core.text.keyterms import CJK_TERM, LETTERS, STOPWORDS, cjk_key_terms, key_terms
from desktop_rag.core.text.scripts import CJK_CLASS, SENTENCE_ENDS

WEIGHTS = {"length": 0.105, "relevance": 0.175, "coherence": 0.105, "specificity": 0.14, "faithfulness": 0.175,
           "adds": 0.3}
_WORD = re.compile(f"[{LETTERS}][{LETTERS}0-9]*")  # "Müller" one word, as key terms read it
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
TARGET_WORDS = (8, 45)
_BOILERPLATE = re.compile(
    r"\b(?:this|the) (?:passage|chunk|snippet|section|code|document|file|text) (?:is|belongs|comes|contains"
    r"|describes|discusses|defines)\b|does not belong to any specific|\bpart of (?:a|the) (?:larger|bigger)\b",
    re.I,
)
_NAME = re.compile(r"\b(?:[A-Za-z]+[A-Z_][A-Za-z0-9_]*|[A-Z][a-z]+[A-Z][A-Za-z0-9]*|\w+\.\w{1,5})\b|`([^`]+)`")


def score_context(context: str, chunk: str, document: str) -> tuple[float, dict[str, float]]:
    words = context_words(context)
    breakdown = {
        "length": _length(len(words)),
        "relevance": _relevance(context, chunk, document),
        "coherence": _coherence(context, words),
        "specificity": _specificity(context, words),
        "faithfulness": _faithfulness(context, document),
        "adds": _adds(context, chunk, document),
    }
    total = sum(WEIGHTS[k] * v for k, v in breakdown.items())
    return round(total, 3), {k: round(v, 3) for k, v in breakdown.items()}


def context_words(text: str) -> list[str]:
    """Words as a reader counts them: spaced words, and in Japanese or Chinese each two characters of a run
    (a word there is ~2 characters long), so the length band and the share of content words mean the same."""
    words: list[str] = []
    for token in text.split():
        runs = _CJK_RUN.findall(token)
        if not runs:
            words.append(token)
            continue
        words.extend(run[i:i + 2] for run in runs for i in range(0, len(run), 2))
        rest = _CJK_RUN.sub(" ", token).split()
        words.extend(rest)
    return words


def _length(n: int) -> float:
    low, high = TARGET_WORDS
    if n == 0:
        return 0.0
    if n < low:
        return n / low
    if n > high:
        return max(0.0, 1 - (n - high) / high)
    return 1.0


def _relevance(context: str, chunk: str, document: str) -> float:
    lower = context.lower()
    terms = key_terms(chunk, 5) + key_terms(document, 5) + cjk_key_terms(chunk, 5) + cjk_key_terms(document, 5)
    terms = list(dict.fromkeys(t.lower() for t in terms))
    if not terms:
        return 1.0
    hits = sum(1 for t in terms if t in lower)
    return min(1.0, hits / 3)  # three of the ten key terms make a context clearly about this chunk


def _coherence(context: str, words: list[str]) -> float:
    if not words:
        return 0.0
    end = context.rstrip()
    # Cut by the word limit ("…"): half a sentence, which a reader sees at once (issue 37); else unfinished.
    score = 1.0 if end.endswith(SENTENCE_ENDS) else 0.0 if end.endswith("…") else 0.5
    trigrams = [tuple(w.lower() for w in words[i : i + 3]) for i in range(len(words) - 2)]
    if trigrams:
        repeated = 1 - len(set(trigrams)) / len(trigrams)
        score *= 1 - min(1.0, 2 * repeated)
    return score


def _specificity(context: str, words: list[str]) -> float:
    if not words:
        return 0.0
    content = [w for w in words if w.lower().strip(".,;:()`'\"") not in STOPWORDS]
    share = len(content) / len(words)
    penalty = 0.4 * len(_BOILERPLATE.findall(context))
    return max(0.0, min(1.0, share / 0.5) - penalty)


def _faithfulness(context: str, document: str) -> float:
    names = {m.group(1) or m.group(0) for m in _NAME.finditer(context)}
    names = {n for n in names if len(n) > 2}
    if not names:
        return 1.0
    lower_doc = document.lower()
    return sum(1 for n in names if n.lower() in lower_doc) / len(names)


def _adds(context: str, chunk: str, document: str) -> float:
    """Words of the context that the chunk lacks and the document has: what the context tells the index that
    the chunk alone would not."""
    own, in_chunk, in_document = content_words(context), content_words(chunk), content_words(document)
    return min(1.0, len((own - in_chunk) & in_document) / 3)


def content_words(text: str) -> set[str]:
    """Lower-cased words and identifiers of three letters or more, stop words left out; in Japanese and Chinese,
    the runs of kanji or katakana that carry names and terms (key terms' own notion of a term)."""
    return ({w.lower() for w in _WORD.findall(text) if len(w) > 2 and w.lower() not in STOPWORDS}
            | set(CJK_TERM.findall(text)))
