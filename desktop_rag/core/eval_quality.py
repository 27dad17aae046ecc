"""Does the quality score tell contexts that help retrieval from those that hurt? Measured per question.

For each question, the rank of its first relevant chunk with LLM contexts is compared with the rank without
contexts (same search mode): better is "helped", worse is "hurt". The question is filed under the quality score
of its relevant chunks' contexts (their mean), or under "rules fallback" when the model's context was rejected.
If the score means anything, "helped" should dominate the high bands and "hurt" gather in the low ones.
"""

from __future__ import annotations

from typing import TextIO

BANDS = ((0.75, "≥ 0.75"), (0.6, "0.60–0.75"), (0.0, "< 0.60"))
FALLBACK = "rules fallback"


def context_qualities(contexts: dict[str, dict]) -> dict[str, tuple[str, float | None]]:
    """Chunk name → (context source, quality), from an evaluation report's contexts."""
    return {name: (context["source"], context["quality"]) for name, context in contexts.items()}


def quality_vs_retrieval(base_ranks: dict[str, int | None], llm_ranks: dict[str, int | None],
                         qrels: dict[str, set[str]], qualities: dict[str, tuple[str, float | None]],
                         depth: int) -> list[dict]:
    """Per band: questions, helped, hurt, unchanged."""
    table = {label: {"band": label, "questions": 0, "helped": 0, "hurt": 0, "same": 0}
             for label in [label for _, label in BANDS] + [FALLBACK]}
    for query_id, llm_rank in llm_ranks.items():
        before = base_ranks.get(query_id) or depth + 1
        after = llm_rank or depth + 1
        scored = [qualities[name][1] for name in qrels[query_id]
                  if name in qualities and qualities[name][0] == "llm" and qualities[name][1] is not None]
        if scored:
            mean = sum(scored) / len(scored)
            label = next(label for floor, label in BANDS if mean >= floor)
        else:
            label = FALLBACK
        row = table[label]
        row["questions"] += 1
        row["helped" if after < before else "hurt" if after > before else "same"] += 1
    return [row for row in table.values() if row["questions"]]


def print_quality_analysis(label: str, rows: list[dict], out: TextIO) -> None:
    out.write(f"\nContext quality vs retrieval ({label}; first relevant rank against plain chunks):\n")
    out.write(f"  {'quality of the relevant chunks':<32}{'questions':>10}{'helped':>8}{'hurt':>6}{'same':>6}\n")
    for row in rows:
        out.write(f"  {row['band']:<32}{row['questions']:>10}{row['helped']:>8}{row['hurt']:>6}{row['same']:>6}\n")
