"""The retrieval check (issue 48): search quality that cannot slip unnoticed.

Three small sets shipped in tests/files/retrieval (English code, Japanese Wikipedia, English prose; their sources
and licences in its README.md) go through the real parts — the embedding model, the rules contexts, Chroma, bm25s
— in every mode. Each figure must stay at or above its floor: today's figure less TOLERANCE questions. When one
falls, the failure lists the questions that moved against the baseline beside the sets, as
`desktop-rag eval SET --mode hybrid,bm25,dense -k 1,5 --compare tests/files/retrieval/baseline/SET.json` would.
After a change that is meant to move quality, `python bench/retrieval_check.py --write` measures the sets again
and writes the new baseline; the floors below are then set from its table, in the same commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.evaluation.evaluation import EvalConfig, evaluate_modes, load_dataset
from desktop_rag.core.evaluation.evaluation_compare import load_reports, moved_questions

SETS = Path(__file__).parents[1] / "files" / "retrieval"
MODES = ("hybrid", "bm25", "dense")
CUTOFFS = [1, 5]
# Questions a figure may lose before the check fails: one, as asked. What was measured (docs/benchmarks.md, "How
# much the figures move"): run after run, and under load, the same figures to the digit; the int8 model's kernels
# run another way here (one thread; ONNX Runtime's graph optimizations off) moved no question in any set and mode.
# A CPU without AVX-512 VNNI runs other int8 kernels (u8s8 with 16-bit sums, which can saturate), which could not be
# reached here (qemu's AVX2 emulation: ~100x too slow); CI runs on this kind of machine.
TOLERANCE = 1
# R@1 and R@5 in % by set and mode, measured at issue 48's mend (python bench/retrieval_check.py).
FIGURES = {
    "codebase": {"hybrid": (60.98, 88.3), "bm25": (62.53, 85.54), "dense": (48.06, 81.15)},
    "jsquad": {"hybrid": (95.0, 100.0), "bm25": (86.25, 98.75), "dense": (87.5, 97.5)},
    "pyref": {"hybrid": (54.29, 84.76), "bm25": (51.43, 78.1), "dense": (49.52, 79.05)},
}
# Where hybrid search does not yet reach keyword search alone (issue 48 asks it to): strict, so the check says so
# the day it does.
HYBRID_BELOW_KEYWORDS = {("codebase", 1)}
_measured: dict[str, tuple[list[dict], dict[str, str], int]] = {}


def floors(name: str, questions: int) -> dict[tuple[str, int], float]:
    """Each figure less TOLERANCE questions' worth of recall, as a share."""
    step = TOLERANCE / questions
    return {(mode, k): figures[i] / 100 - step - 1e-9
            for mode, figures in FIGURES[name].items() for i, k in enumerate(CUTOFFS)}


def what_moved(name: str, reports: list[dict], texts: dict[str, str]) -> str:
    baseline = {report["config"]["mode"]: report for report in load_reports(SETS / "baseline" / f"{name}.json")}
    lines = []
    for report in reports:
        for moved in moved_questions(baseline[report["config"]["mode"]], report, CUTOFFS, texts):
            lines.append(f"  {report['config']['mode']:<6} {'fell' if moved.lost else 'rose'} {moved.query_id}: "
                         f"{moved.before} → {moved.after}  {moved.text[:80]}")
    return "\n".join(lines) or "  (no question crossed a cut-off against the baseline)"


def measured(name: str) -> tuple[list[dict], dict[str, str], int]:
    """The set's reports in every mode (one index built per set, kept for the module's tests), its questions'
    texts and how many there are."""
    if name not in _measured:
        from dataclasses import asdict

        dataset = load_dataset(SETS / name)
        configs = [EvalConfig("rules", mode, rerank=False) for mode in MODES]
        reports = [asdict(r) for r in evaluate_modes(dataset, configs, CUTOFFS, Settings())]
        _measured[name] = reports, {q["_id"]: q["text"] for q in dataset.queries}, len(dataset.queries)
    return _measured[name]


def recall_of(reports: list[dict]) -> dict[tuple[str, int], float]:
    return {(r["config"]["mode"], k): r["recall"][str(k)] for r in reports for k in CUTOFFS}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_search_quality_holds_on_every_set_and_mode(name):
    reports, texts, questions = measured(name)
    recall = recall_of(reports)
    failures = [f"{mode} R@{k} {100 * recall[mode, k]:.2f} < floor {100 * floor:.2f}"
                for (mode, k), floor in floors(name, questions).items() if recall[mode, k] < floor]
    assert not failures, f"{name}: " + "; ".join(failures) + "\n" + what_moved(name, reports, texts)


@pytest.mark.parametrize(("name", "k"), [
    pytest.param(name, k, marks=[pytest.mark.xfail(strict=True, reason="issue 48: not reached yet")]
                 if (name, k) in HYBRID_BELOW_KEYWORDS else [])
    for name in sorted(FIGURES) for k in CUTOFFS])
def test_hybrid_search_finds_at_least_what_keywords_alone_find(name, k):
    reports, _, _ = measured(name)
    recall = recall_of(reports)
    assert recall["hybrid", k] >= recall["bm25", k], (
        f"{name}: hybrid R@{k} {100 * recall['hybrid', k]:.2f} below keywords' {100 * recall['bm25', k]:.2f}")


def test_the_floors_are_what_the_baseline_measured():
    """The floors and the baseline the failure message compares against come from one measurement."""
    for name, by_mode in FIGURES.items():
        baseline = {r["config"]["mode"]: r for r in load_reports(SETS / "baseline" / f"{name}.json")}
        for mode, figures in by_mode.items():
            measured = tuple(round(100 * baseline[mode]["recall"][str(k)], 2) for k in CUTOFFS)
            assert measured == figures, (name, mode, measured, figures)
