"""A sentence of an answer checked against the passages it cites (issue 63): what can be checked exactly — its
numbers, dates, amounts, codes and names — must be written in them, and its words must be theirs (or, given the
meaning, close to theirs). Small models quote a year from the wrong passage or invent an amount with confidence
(arXiv 2603.11513: 360M–8B models often ignore a correct passage they are given); a person shown "[2]" trusts it,
so a sentence that fails is not shown as found in the files.

Pure: text in, a verdict out; the meaning's similarity, where wanted, is given by the caller (the embedder)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from desktop_rag.core.text.lexical import lexical_tokens

# Facts a sentence states that a passage must hold as written (after NFKC, case and thousands separators).
_NUMBER = r"\d+(?:[.,:/-]\d+)*%?"  # 31, 3.5, 1,200, 2025-03-14, 14/03/2025, 10:30, 12%
# INV-2231, v1.2, 3rd, run_target, DiffExecutor
_CODE = (r"[A-Za-z]+-?\d[\w-]*|\d+[A-Za-z][\w-]*|[A-Za-z]+_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*")
# Bounded by Latin letters and digits only: "1940年" states 1940.
# A Japanese or Chinese date is one fact: "2020年9月23日" stands or falls whole, not as 2020, 9 and 23 found apart
# (answer sets, JSQuAD: a wrong date made of a passage's numbers passed).
_CJK_DATE = r"\d+年\d+月(?:\d+日)?|\d+月\d+日"
_FACT = re.compile(rf"(?<![A-Za-z0-9_.])(?:{_CJK_DATE}|{_CODE}|{_NUMBER})(?![A-Za-z0-9_])")
# A capitalised word inside a sentence (not its first): a name the passage must hold ("Harbour Office", "Ito").
_NAME = re.compile(r"(?<=[^\s.!?:;\"“(\[]\s)[A-Z][a-zà-ÿ]+(?:[-'][A-Z]?[a-zà-ÿ]+)*")
_NAME_ANYWHERE = re.compile(r"[A-Z][a-zà-ÿ]+(?:[-'’][A-Z]?[a-zà-ÿ]+)*")  # in a question: its first word too
_THOUSANDS = re.compile(r"(?<=\d)[,  ](?=\d{3}(?!\d))")  # not \b: "2,200時間" has no word boundary before 時
_ASKS_WHAT = re.compile(r"\b(?:what|who|whom|whose|when|where|which|why|how)\b|何|誰|いつ|どこ|どの|どれ|どう|なぜ|"
                        r"いくつ|いくら", re.IGNORECASE)
_MARKER = re.compile(r"\s*\[(\d+)\]")
# Names in Japanese: a katakana run, or a kanji run of three or more ("和歌山県"); a two-kanji word is an ordinary
# word the sentence may put otherwise ("役職" for the passage's "職階": refused as a missing name, answer sets).
_KATAKANA_OR_KANJI_NAME = re.compile(r"[\u30a0-\u30ff]{2,}|[\u4e00-\u9fff]{3,}")

# The share of a sentence's words its passages must hold to stand on them by words alone. Measured (bench/answers.py
# --thresholds, 40 questions of codebase, jsquad and pyref each, twice: docs/benchmarks.md "Answers"): at 0.5 code
# and prose answer 10–12 points more often but cite a relevant passage 7–18 points less often; at 0.7 code answers
# a third less, as precisely or barely more; JSQuAD the same at 0.4–0.7 (its refusals are missing facts).
SUPPORTING_WORDS = 0.6
# The meaning's similarity (the embedder's cosine, sentence to the nearest sentence of its passages) at which a
# sentence would stand on them though its words are put otherwise — never for a missing fact. Measured with the
# above: at 0.80–0.90 it let through sentences citing passages that do not hold their answer (code 71→60 %
# precise at 0.85, prose 63→56 %), and never a right one more on JSQuAD; above 1, it is not used. The verdict still
# carries the similarity, for the bench.
SIMILAR_ENOUGH = 1.01
# The share of a sentence's words that are the question's, at which it only repeats it (not 1: Japanese character
# pairs across a reordered phrase differ, "はエ"; a judgement, to weigh with the answer sets).
REPEATS_SHARE = 0.9


REPEATS = "it only repeats the question"


@dataclass(frozen=True)
class Verdict:
    supported: bool
    missing: tuple[str, ...] = ()  # facts the sentence states that no passage it cites holds
    words_held: float = 0.0  # share of the sentence's words (stemmed, stop words left out) its passages hold
    reason: str = ""  # why not, in a person's words
    held: frozenset[str] = frozenset()  # the sentence's words its passages hold, as the keyword index stems them
    similarity: float | None = None  # the meaning's, where measured (check's `similarity`)
    # Judged by its words and meaning alone (every fact held, not a repeat of the question): what the thresholds
    # decide, and what bench/answers.py weighs them on.
    weighed: bool = False


@dataclass
class CitedSentence:
    text: str  # as shown, its markers taken out
    cites: list[int] = field(default_factory=list)  # the passages' numbers it names, 1-based, as the model wrote


def split_markers(sentence: str) -> CitedSentence:
    """"The lease ends in 2027 [1][3]." → the text without markers and [1, 3]."""
    cites = [int(n) for n in _MARKER.findall(sentence)]
    text = _MARKER.sub("", sentence).strip()
    return CitedSentence(text, list(dict.fromkeys(cites)))


def facts_in(sentence: str, question: str = "") -> list[str]:
    """What the sentence states that can be checked exactly: numbers, dates, amounts, codes, names. A word-like
    name the question names too is its subject, not a claim ("…the raise statement in Python?" → "In Python, …":
    a paragraph of the Language Reference rarely says "Python"; 19 of pyref's 27 refusals, answer sets); numbers
    and codes stay facts wherever they come from (an answer naming the question's `on_add` over a passage
    without it describes another function)."""
    flat = unicodedata.normalize("NFKC", sentence)
    facts = [m.group(0).rstrip(".,:/-") for m in _FACT.finditer(flat)]
    asked = {_flat(_bare_name(m.group(0))) for m in _NAME_ANYWHERE.finditer(unicodedata.normalize("NFKC", question))}
    facts += [name for m in _NAME.finditer(flat) if _flat(name := _bare_name(m.group(0))) not in asked]
    facts += _KATAKANA_OR_KANJI_NAME.findall(flat) if not facts else []
    return list(dict.fromkeys(f for f in facts if f))


def _bare_name(name: str) -> str:
    """"Python's" → "Python": the passages name it without the possessive."""
    return re.sub(r"['’]s$", "", name)


def _flat(text: str) -> str:
    return _THOUSANDS.sub("", unicodedata.normalize("NFKC", text)).casefold()


def repeats(words: set[str], question: str) -> bool:
    """A sentence of these `words` (its lexical tokens) only says again what a wh-question asks ("Which country
    did Islam conquer?" → "Islam conquered the north of Africa."): almost no word of it is new. A yes/no
    question's answer may rightly repeat it."""
    if not words or _ASKS_WHAT.search(question) is None:
        return False
    return len(words & set(lexical_tokens(question))) / len(words) >= REPEATS_SHARE


def stands(words_held: float, similarity: float | None, supporting_words: float = SUPPORTING_WORDS,
           similar_enough: float = SIMILAR_ENOUGH) -> bool:
    """A sentence whose every fact its passages hold stands on them by its words, or by its meaning."""
    return words_held >= supporting_words or (similarity is not None and similarity >= similar_enough)


def check(sentence: str, passages: list[str], similarity: float | None = None,
          similar_enough: float = SIMILAR_ENOUGH, question: str = "") -> Verdict:
    """`sentence` (markers taken out) against the passages it cites. `similarity`: the meaning's, sentence to its
    nearest passage sentence (0–1), where the caller measured it; at `similar_enough` or above it stands in for
    words the passages put otherwise (a paraphrase), never for a missing fact. `question`: a sentence that only
    repeats it answers nothing."""
    if not passages:
        return Verdict(False, reason="it names no passage it was given")
    words = set(lexical_tokens(sentence))
    if question and repeats(words, question):
        return Verdict(False, reason=REPEATS)
    passages_text = "\n".join(passages)
    held_text = _flat(passages_text)
    missing = tuple(f for f in facts_in(sentence, question) if _flat(f) not in held_text)
    shared = frozenset(words & set(lexical_tokens(passages_text)))
    words_held = len(shared) / len(words) if words else 0.0
    if missing:
        return Verdict(False, missing, words_held, "the passages it cites do not hold " + ", ".join(missing), shared,
                       similarity)
    if stands(words_held, similarity, similar_enough=similar_enough):
        return Verdict(True, (), words_held, held=shared, similarity=similarity, weighed=True)
    return Verdict(False, (), words_held, "the passages it cites do not say this", shared, similarity, True)
