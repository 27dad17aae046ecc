"""The evidence, before any model writes a word (issue 63): the sentences of the top passages that best answer the
question, each with its passage and document, found in well under a second. Each sentence is scored by the share of
the question's words it holds (as the keyword index matches words: stems, identifiers, Japanese character pairs)
and, where the embedder is at hand, by its closeness in meaning to the question; the best few are shown, never more
than PER_PASSAGE from one passage, so one long passage does not fill the list.

Pure but for `meaning`, the caller's: the question's similarity to each sentence (the embedder's cosine)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from desktop_rag.core.answering.sentences import sentence_spans
from desktop_rag.core.search.match_strength import keyword_coverage
from desktop_rag.core.search.query import parse_query

SHOWN = 3  # evidence sentences shown (not measured yet: bench/answers.py will)
PER_PASSAGE = 2
MEANING_SHARE = 0.5  # of a sentence's score; the rest its share of the question's words (not measured yet)

Meaning = Callable[[str, list[str]], Sequence[float]]  # (question, sentences) -> cosine of each


class Passage(Protocol):
    """What evidence needs of a hit (core/search/searcher.py Hit)."""
    chunk_id: int
    path: str
    title: str | None
    text: str


@dataclass(frozen=True)
class EvidenceSentence:
    passage: int  # 1-based: the passage's number as the model is given it, and as markers name it
    chunk_id: int
    path: str
    title: str | None
    start: int  # span in the passage's text
    end: int
    text: str
    score: float


def evidence(question: str, passages: Sequence[Passage], meaning: Meaning | None = None,
             shown: int = SHOWN) -> list[EvidenceSentence]:
    """The `shown` best sentences of `passages` (in their order: the search's), best first."""
    parsed = parse_query(question)
    candidates: list[tuple[int, Passage, tuple[int, int], str]] = []
    for number, passage in enumerate(passages, 1):
        candidates += [(number, passage, span, passage.text[span[0]:span[1]])
                       for span in sentence_spans(passage.text)]
    if not candidates:
        return []
    texts = [text for *_, text in candidates]
    words = [keyword_coverage(parsed, text) for text in texts]
    closeness = list(meaning(parsed.text or question, texts)) if meaning is not None else None
    scored = []
    for i, (number, passage, (start, end), text) in enumerate(candidates):
        score = words[i] if closeness is None else (1 - MEANING_SHARE) * words[i] + MEANING_SHARE * closeness[i]
        scored.append(EvidenceSentence(number, passage.chunk_id, passage.path, passage.title, start, end, text,
                                       round(score, 4)))
    chosen: list[EvidenceSentence] = []
    per_passage: dict[int, int] = {}
    for sentence in sorted(scored, key=lambda s: (-s.score, s.passage, s.start)):
        if per_passage.get(sentence.passage, 0) < PER_PASSAGE:
            chosen.append(sentence)
            per_passage[sentence.passage] = per_passage.get(sentence.passage, 0) + 1
        if len(chosen) == shown:
            break
    return chosen
