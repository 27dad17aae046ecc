"""Reciprocal rank fusion: merge ranked lists by rank, not by score, so BM25 and cosine need no calibration."""

from __future__ import annotations

from typing import Sequence


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[int]], weights: Sequence[float], k: int = 60
) -> list[tuple[int, float]]:
    """(id, fused score) best first; each list contributes weight / (k + rank), rank counted from 1."""
    fused: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))
