"""The retrieval check's sets measured (tests/end2end/test_retrieval_quality.py): a table, and with --write the
baseline its failure message compares against.

    python bench/retrieval_check.py [--write] [--sets codebase,jsquad,pyref] [--perturb one-thread|unoptimized|segments]

Prints R@1 / R@5 / MRR per set and mode (rules contexts, the default embedding model, bm25s, Chroma), and the
FIGURES to put in the test beside the new baseline. Figures are deterministic on one machine. `--perturb` runs the
int8 model's kernels another way — one thread (other partial sums), or ONNX Runtime's graph optimizations off (its
quantize/matmul fusions not made) — and counts the questions that crossed a cut-off against the baseline: the
nearest this machine comes to another CPU's kernels (docs/benchmarks.md). `--perturb segments` builds each keyword
index in two segments instead of one (90 % of the passages, then the other 10 % and 5 % of the first changed, as
saves would leave them: issue 64) and counts the same.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from desktop_rag import offline  # noqa: E402,F401 (no model hub, whatever imports next)
from desktop_rag.config import Settings  # noqa: E402
from desktop_rag.core.evaluation.evaluation import EvalConfig, evaluate_modes, load_dataset  # noqa: E402
from desktop_rag.core.evaluation.evaluation_compare import load_reports, moved_questions  # noqa: E402

SETS = HERE.parent / "tests" / "files" / "retrieval"
MODES = ("hybrid", "bm25", "dense")
CUTOFFS = [1, 5]
KEPT = ("dataset", "config", "recall", "mrr", "queries", "chunks", "first_relevant_rank")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write tests/files/retrieval/baseline/SET.json")
    parser.add_argument("--sets", default="codebase,jsquad,pyref")
    parser.add_argument("--perturb", choices=("one-thread", "unoptimized", "segments"))
    args = parser.parse_args()
    if args.perturb:
        _perturb(args.perturb)
    figures: dict[str, dict[str, tuple[float, float]]] = {}
    print(f"{'set':<9} {'mode':<7} {'questions':>9} {'R@1':>6} {'R@5':>6} {'MRR':>6} {'seconds':>7}")
    for name in args.sets.split(","):
        dataset = load_dataset(SETS / name)
        started = time.perf_counter()
        reports = evaluate_modes(dataset, [EvalConfig("rules", mode) for mode in MODES], CUTOFFS, Settings())
        seconds = time.perf_counter() - started
        for report in reports:
            r1, r5 = (round(100 * report.recall[str(k)], 2) for k in CUTOFFS)
            figures.setdefault(name, {})[report.config["mode"]] = (r1, r5)
            print(f"{name:<9} {report.config['mode']:<7} {report.queries:>9} {r1:>6.2f} {r5:>6.2f} "
                  f"{report.mrr:>6.3f} {seconds:>7.1f}")
        if args.perturb:
            baseline = {r["config"]["mode"]: r for r in load_reports(SETS / "baseline" / f"{name}.json")}
            for report in reports:
                moved = moved_questions(baseline[report.config["mode"]], asdict(report), CUTOFFS)
                print(f"  {name} {report.config['mode']}: {len(moved)} questions crossed a cut-off "
                      f"({sum(m.lost for m in moved)} fell)")
        if args.write:
            out = SETS / "baseline" / f"{name}.json"
            out.parent.mkdir(exist_ok=True)
            trimmed = [{key: value for key, value in asdict(r).items() if key in KEPT} for r in reports]
            out.write_text(json.dumps(trimmed, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print("\nFIGURES = " + json.dumps(figures).replace("[", "(").replace("]", ")"))


def _perturb(how: str) -> None:
    """The int8 model's sessions made another way (every session the run opens), or the keyword index in two
    segments."""
    if how == "segments":
        _in_two_segments()
        return
    import onnxruntime

    made = onnxruntime.InferenceSession.__init__

    def session(self, graph, options=None, *rest, **named):
        options = options or onnxruntime.SessionOptions()
        if how == "one-thread":
            options.intra_op_num_threads = 1
        else:
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        made(self, graph, options, *rest, **named)

    onnxruntime.InferenceSession.__init__ = session


def _in_two_segments() -> None:
    from desktop_rag.storage.keyword_index import KeywordIndex

    whole = KeywordIndex.rebuild

    def in_two(self, items, stopped=lambda: False) -> int:
        items = list(items)
        later = [item for n, item in enumerate(items) if n % 10 == 0]
        again = [item for n, item in enumerate(items) if n % 20 == 5]  # in the large segment, masked, written again
        whole(self, [item for n, item in enumerate(items) if n % 10], stopped)
        self.update(later + again, [chunk for chunk, _ in later + again], stopped)
        return len(items)

    KeywordIndex.rebuild = in_two  # type: ignore[method-assign]


if __name__ == "__main__":
    main()
