"""How well a hit matches, in terms a person can read: a strength from 0 to 1, from two signals that mean the same
thing whatever the model, the library's size or the query's length (raw BM25 and fused scores mean none of that).

- keywords: the share of the query's distinct words (or character pairs, in Japanese and Chinese; a lone character
  counts where a pair holds it) that the chunk holds, prefixes included; 1.0 means every word is there.
- meaning: how far the chunk's cosine stands out above the typical candidate's for this query. Cosines themselves
  are not comparable between models (multilingual-e5 puts unrelated texts at ~0.75, MiniLM near 0.1), but every
  query's candidate list has a bulk of unrelated chunks: the median of the list marks "unrelated", and the margin
  above it, scaled, is the strength. A nonsense word gets a flat list, so nothing stands out.

The strength is either signal, and more when both agree: 1 − (1 − keywords)(1 − meaning).
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop_rag.core.search.query import ParsedQuery
from desktop_rag.core.search.tuning import FULL_MARGIN, GOOD_MATCH, STRONG_MATCH
from desktop_rag.core.text.lexical import lexical_tokens, lone_characters, prefix_stem

_MIN_CANDIDATES = 10  # fewer than this (a tiny library): the median is no measure of "unrelated"


def keyword_coverage(parsed: ParsedQuery, text: str) -> float:
    wanted = set(lexical_tokens(parsed.keywords_text))
    prefixes = [prefix_stem(p) for p in parsed.prefixes]
    total = len(wanted) + len(prefixes)
    if not total:
        return 0.0
    present = set(lexical_tokens(text))
    found = len(wanted & present) + sum(any(t.startswith(p) for t in present) for p in prefixes)
    found += sum(any(c in t for t in present) for c in lone_characters(wanted) if c not in present)
    return found / total


# Passages about nothing in particular, in the languages the default model serves: in a library too small for its
# candidates to have a bulk of unrelated chunks (a first folder of three files), the query's similarity to these
# stands in for "unrelated".
UNRELATED_PASSAGES = (
    "The weather stayed mild for most of the week.", "Add two cups of flour and stir until smooth.",
    "Trains leave every ten minutes from platform four.", "Quarterly revenue grew by three percent.",
    "The function returns None when the list is empty.", "Water the plants twice a week in summer.",
    "会議は来週の月曜日に延期された。", "彼は駅前の本屋で雑誌を買った。", "明天下午我们去公园散步。",
    "The museum closes early on public holidays.",
)


def needs_unrelated_scores(dense: Sequence[tuple[int, float]]) -> bool:
    return 0 < len(dense) < _MIN_CANDIDATES


def meaning_strengths(dense: Sequence[tuple[int, float]], unrelated: Sequence[float] = ()) -> dict[int, float]:
    """`unrelated`: the query's cosines to UNRELATED_PASSAGES, for a list too short to be its own baseline."""
    if len(dense) + len(unrelated) < _MIN_CANDIDATES:
        return {}
    scores = sorted([score for _, score in dense] + list(unrelated))
    median = scores[len(scores) // 2]
    return {item: min(max((score - median) / FULL_MARGIN, 0.0), 1.0) for item, score in dense}


def likeness_strengths(dense: Sequence[tuple[int, float]], unrelated: Sequence[float]) -> dict[int, float]:
    """For passages like a given one ("Search for similar passages"): how far each stands out from passages about
    nothing in particular. Its own list is no baseline: the hundred nearest neighbours of a passage are all near,
    and against their median the nearest were labelled "weak" (issue 37)."""
    if not unrelated:
        return {}
    baseline = sorted(unrelated)[len(unrelated) // 2]
    return {item: min(max((score - baseline) / FULL_MARGIN, 0.0), 1.0) for item, score in dense}


def match_strength(scores) -> float:
    meaning = scores.meaning or 0.0
    return 1 - (1 - scores.keywords) * (1 - meaning)


def strength_label(strength: float) -> str:
    return "strong" if strength >= STRONG_MATCH else "good" if strength >= GOOD_MATCH else "weak"
