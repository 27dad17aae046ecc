"""Does the quality score tell contexts that help retrieval from those that hurt? Measured per (question,
relevant chunk) pair.

For each question and each of its relevant chunks, the chunk's rank with LLM contexts is compared with its rank
without contexts (same search mode; not found counts as one past the search depth): better is "helped", worse is
"hurt", and the gain is log2(rank before) − log2(rank after). Pairs are filed by their context's quality score
in three equal-count bands (by value, so equal scores share a band), and those whose model context was rejected
under "rules fallback". If the score means anything, "helped" should dominate the top band.
"""

from __future__ import annotations

import math
from typing import TextIO

FALLBACK = "rules fallback"


def context_qualities(contexts: dict[str, dict]) -> dict[str, tuple[str, float | None]]:
    """Chunk name → (context source, quality), from an evaluation report's contexts."""
    return {name: (context["source"], context["quality"]) for name, context in contexts.items()}


def quality_vs_retrieval(base_ranks: dict[str, dict[str, int | None]], llm_ranks: dict[str, dict[str, int | None]],
                         qualities: dict[str, tuple[str, float | None]], depth: int) -> list[dict]:
    """Per band of quality: pairs, helped, hurt, same, mean gain."""
    scored, fallback = [], []
    for query_id, ranks in llm_ranks.items():
        for name, rank in ranks.items():
            source, quality = qualities.get(name, ("none", None))
            before = base_ranks.get(query_id, {}).get(name) or depth + 1
            gain = math.log2(before) - math.log2(rank or depth + 1)
            if source == "llm" and quality is not None:
                scored.append((quality, gain))
            elif source == "rules":
                fallback.append(gain)
    bands: list[tuple[str, list[float]]] = []
    if scored:
        cuts = tertile_cuts([q for q, _ in scored])
        limits = [(-math.inf, cuts[0]), (cuts[0], cuts[1]), (cuts[1], math.inf)]
        for low, high in limits:
            gains = [g for q, g in scored if low <= q < high]
            if gains:
                inside = [q for q, _ in scored if low <= q < high]
                bands.append((f"{min(inside):.2f}–{max(inside):.2f}", gains))
    if fallback:
        bands.append((FALLBACK, fallback))
    return [{"band": label, "pairs": len(gains), "helped": sum(g > 0 for g in gains),
             "hurt": sum(g < 0 for g in gains), "same": sum(g == 0 for g in gains),
             "mean_gain": round(sum(gains) / len(gains), 3)} for label, gains in bands]


def tertile_cuts(values: list[float]) -> list[float]:
    """The two values that cut `values` into three bands of about equal count (a band is [low, high))."""
    ordered = sorted(values)
    return [ordered[len(ordered) // 3], ordered[2 * len(ordered) // 3]]


def print_quality_analysis(label: str, rows: list[dict], out: TextIO) -> None:
    out.write(f"\nContext quality vs retrieval ({label}; each relevant chunk's rank against plain chunks):\n")
    out.write(f"  {'quality of the chunk context':<30}{'pairs':>7}{'helped':>8}{'hurt':>6}{'same':>6}"
              f"{'mean gain':>11}\n")
    for row in rows:
        out.write(f"  {row['band']:<30}{row['pairs']:>7}{row['helped']:>8}{row['hurt']:>6}{row['same']:>6}"
                  f"{row['mean_gain']:>11.3f}\n")
