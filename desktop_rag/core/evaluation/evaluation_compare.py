"""Two evaluation runs side by side: recall per mode and cut-off, and the questions that moved.

Issue 48: about four codebase questions fell out of the top five between two commits and nothing noticed; the
figures alone said "85.15 instead of 86.56", not which questions. `desktop-rag eval … --compare OLD.json` prints
both, so the next change that moves quality shows what it moved.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from desktop_rag.errors import BadInput


@dataclass(frozen=True)
class MovedQuestion:
    mode: str
    query_id: str
    before: int | None  # rank of the first relevant chunk; None: not within the run's depth
    after: int | None
    text: str = ""

    @property
    def lost(self) -> bool:
        return _rank(self.after) > _rank(self.before)


def load_reports(path: Path) -> list[dict]:
    """The reports an `eval --json` run wrote (one report, or a list of them)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path} is not a saved evaluation run ({exc})") from None
    reports = data if isinstance(data, list) else [data]
    if not all(isinstance(r, dict) and {"config", "recall", "first_relevant_rank"} <= set(r) for r in reports):
        raise BadInput(f"{path} is not a saved evaluation run (no recall and ranks in it)")
    return reports


def _key(report: dict) -> tuple[str, str, bool]:
    config = report["config"]
    return config["contexts"], config["mode"], bool(config["rerank"])


def _rank(rank: int | None) -> float:
    return math.inf if rank is None else rank


def _bucket(rank: int | None, cutoffs: list[int]) -> int | None:
    """The smallest cut-off the rank is within: a question moves when this changes."""
    return next((k for k in sorted(cutoffs) if _rank(rank) <= k), None)


def moved_questions(before: dict, after: dict, cutoffs: list[int], texts: dict[str, str] | None = None
                    ) -> list[MovedQuestion]:
    """The questions whose first relevant chunk crossed a cut-off between two reports of one configuration,
    losses first, each group by how far it moved."""
    texts = texts or {}
    old, new = before["first_relevant_rank"], after["first_relevant_rank"]
    moved = [MovedQuestion(after["config"]["mode"], query_id, old[query_id], new[query_id], texts.get(query_id, ""))
             for query_id in sorted(set(old) & set(new))
             if _bucket(old[query_id], cutoffs) != _bucket(new[query_id], cutoffs)]
    return sorted(moved, key=lambda m: (not m.lost, -abs(min(_rank(m.after), 999) - min(_rank(m.before), 999))))


def print_comparison(before: list[dict], after: list[dict], cutoffs: list[int], out: TextIO,
                     texts: dict[str, str] | None = None) -> None:
    """Recall before / now / change per configuration and cut-off, then the questions that moved."""
    earlier = {_key(report): report for report in before}
    pairs = [(earlier[_key(report)], report) for report in after if _key(report) in earlier]
    if not pairs:
        out.write("nothing to compare: the old run has none of these configurations "
                  f"({', '.join(sorted({r['config']['mode'] for r in before}))})\n")
        return
    rows = [["contexts, mode", "k", "before", "now", "change"]]
    for old, new in pairs:
        label = f"{new['config']['contexts']}, {new['config']['mode']}" + (" + rerank" if new["config"]["rerank"]
                                                                             else "")
        for k in cutoffs:
            if str(k) in old["recall"] and str(k) in new["recall"]:
                was, now = 100 * old["recall"][str(k)], 100 * new["recall"][str(k)]
                rows.append([label, f"R@{k}", f"{was:.2f}", f"{now:.2f}", f"{now - was:+.2f}"])
        rows.append([label, "MRR", f"{old['mrr']:.3f}", f"{new['mrr']:.3f}", f"{new['mrr'] - old['mrr']:+.3f}"])
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for number, row in enumerate(rows):
        out.write("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) + "\n")
        if number == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")
    for old, new in pairs:
        moved = moved_questions(old, new, cutoffs, texts)
        lost = sum(m.lost for m in moved)
        out.write(f"\n{new['config']['mode']}: {lost} questions fell past a cut-off, {len(moved) - lost} rose\n")
        for m in moved:
            shown = lambda rank: "—" if rank is None else str(rank)  # noqa: E731
            out.write(f"  {'-' if m.lost else '+'} {m.query_id:<8} {shown(m.before):>3} → {shown(m.after):<3} "
                      f"{m.text[:90]}\n")
