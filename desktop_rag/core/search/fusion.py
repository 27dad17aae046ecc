"""Merging the keyword list and the meaning list into one ranking.

Two families, measured side by side in bench/fusion.py on three sets (docs/benchmarks.md, "Fusion"):
- reciprocal rank fusion (RRF): each list adds weight / (k + rank); ranks only, no calibration needed;
- a convex combination of normalized scores: alpha · BM25 / best BM25 + (1 − alpha) · cosine rescaled over the
  candidates. Scores keep what ranks throw away: a chunk that BM25 scores far above the rest (a rare word that
  occurs in it alone) stays on top even when the meaning list ranks it low.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

Ranked = Sequence[tuple[int, float]]  # (chunk id, score), best first


@dataclass(frozen=True)
class Fusion:
    method: str  # "rrf" or "convex"
    bm25_weight: float = 0.5  # RRF: weight of the BM25 list (the dense list has 1 − it); convex: alpha
    k: int = 60  # RRF's rank offset


FUSIONS = {
    "rrf k=60 1:1": Fusion("rrf", 0.5, 60),
    "rrf k=60 bm25 2:1": Fusion("rrf", 2 / 3, 60),
    "rrf k=10 1:1": Fusion("rrf", 0.5, 10),
    "convex a=0.3": Fusion("convex", 0.3),
    "convex a=0.4": Fusion("convex", 0.4),
    "convex a=0.5": Fusion("convex", 0.5),
    "convex a=0.6": Fusion("convex", 0.6),
    "convex a=0.65 (the default)": Fusion("convex", 0.65),
    "convex a=0.7": Fusion("convex", 0.7),
}


def fuse(dense: Ranked, bm25: Ranked, fusion: Fusion) -> list[tuple[int, float]]:
    """(chunk id, fused score) best first, ties broken by id."""
    if fusion.method == "rrf":
        return reciprocal_rank_fusion([[i for i, _ in dense], [i for i, _ in bm25]],
                                      [1 - fusion.bm25_weight, fusion.bm25_weight], fusion.k)
    if fusion.method == "convex":
        return convex_combination(dense, bm25, fusion.bm25_weight)
    raise ValueError(f"unknown fusion {fusion.method!r}")


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[int]], weights: Sequence[float], k: int = 60
) -> list[tuple[int, float]]:
    """(id, fused score) best first; each list contributes weight / (k + rank), rank counted from 1."""
    fused: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))


def convex_combination(dense: Ranked, bm25: Ranked, alpha: float) -> list[tuple[int, float]]:
    """alpha · BM25 / its best + (1 − alpha) · cosine min-max scaled over the dense candidates; a chunk missing
    from a list gets 0 from it."""
    fused: dict[int, float] = {}
    if bm25:
        best = max(score for _, score in bm25) or 1.0
        for item, score in bm25:
            fused[item] = alpha * score / best
    if dense:
        high, low = max(s for _, s in dense), min(s for _, s in dense)
        spread = (high - low) or 1.0
        for item, score in dense:
            fused[item] = fused.get(item, 0.0) + (1 - alpha) * (score - low) / spread
    return sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))
