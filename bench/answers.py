"""Answers measured on the answer sets (issue 63; core/evaluation/answer_quality.py): each set's questions asked as
`desktop-rag ask` asks them, with the questions the set does not hold, and the same model asked plainly beside it.

    python bench/answers.py [--datasets ../shared/datasets] [--sets codebase,jsquad] [--questions 30] [--no-baseline]
                            [--passage-pieces 300,180] [--passages 5] [--model NAME]

`--thresholds` adds a table of the sentence check's thresholds (citations.SUPPORTING_WORDS, SIMILAR_ENOUGH): each
set's answers judged again at each pair, the model asked once.

Prints one table (docs/benchmarks.md "Answers"): answered, right, citation precision, sentences not found in the
files, abstention, and the seconds to the evidence, the first word and the whole answer (p50 / p95). The sets are
the full ones in ../shared (their questions' reference answers), else the retrieval check's (pyref, an English prose
set of our own, judged like code: a relevant passage cited), `--questions` of them evenly spread; the
unanswerable questions are tests/files/answers/SET-unanswerable.jsonl. Note the machine: the seconds are its own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from desktop_rag import offline  # noqa: E402,F401 (no model hub, whatever imports next)
from desktop_rag.config import Settings  # noqa: E402
from desktop_rag.core.answering.answer_format import PASSAGE_PIECES  # noqa: E402
from desktop_rag.core.answering.asking import PASSAGES  # noqa: E402
from desktop_rag.core.evaluation.answer_quality import (AnswersReport, evaluate_answers, load_unanswerable,  # noqa: E402
                                                        print_answers_table)
from desktop_rag.core.evaluation.evaluation import load_dataset, spread_questions  # noqa: E402

SIMILAR_OFF = 1.01  # above any cosine: the meaning never stands in for words
SHIPPED = HERE.parent / "tests" / "files" / "retrieval"
UNANSWERABLE = HERE.parent / "tests" / "files" / "answers"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=HERE.parent.parent / "shared" / "datasets")
    parser.add_argument("--sets", default="codebase,jsquad")
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--model", help="the GGUF model (a packaged model's name or a file); default the setting's")
    parser.add_argument("--passage-pieces", default=str(PASSAGE_PIECES), metavar="N[,N…]",
                        help="of each passage given to the model, in its word pieces; several: each measured "
                             "(answers only)")
    parser.add_argument("--passages", type=int, default=PASSAGES, help="passages given to the model")
    parser.add_argument("--thresholds", action="store_true", help="the check's thresholds weighed (answers only)")
    args = parser.parse_args()
    settings = Settings(contexts="rules")
    if args.model:
        settings = Settings(contexts="rules", llm_model=args.model)
    reports = []
    for name in args.sets.split(","):
        folder = args.datasets / name if (args.datasets / name).is_dir() else SHIPPED / name  # pyref: ours
        dataset = spread_questions(load_dataset(folder), args.questions)
        unanswerable = load_unanswerable(UNANSWERABLE / f"{name}-unanswerable.jsonl")
        runs = [(False, int(size)) for size in args.passage_pieces.split(",")]
        for baseline, size in runs + ([] if args.no_baseline else [(True, PASSAGE_PIECES)]):
            print(f"{name}: {'baseline' if baseline else f'answers, {size} word pieces a passage'}…",
                  file=sys.stderr, flush=True)
            report = evaluate_answers(dataset, unanswerable, settings, baseline=baseline, log=sys.stderr,
                                      passages=args.passages, passage_pieces=size)
            report.dataset += "" if baseline else f", {args.passages} passages of {size} word pieces"
            reports.append(report)
            print_answers_table(reports[-1:], sys.stderr)
    print(f"\nmodel: {settings.llm_model}")
    print_answers_table(reports, sys.stdout)
    if args.thresholds:
        print_thresholds([r for r in reports if not r.baseline], sys.stdout)


WORDS = (0.4, 0.5, 0.6, 0.7)
SIMILAR = (0.8, 0.85, 0.88, 0.9, 0.93, SIMILAR_OFF)
SHOWN = ("answered %", "right of answered %", "citation precision %", "abstained right %")


def print_thresholds(reports: list[AnswersReport], out: TextIO) -> None:
    """Each report judged again at each pair of thresholds: a row per pair, the sets side by side."""
    out.write("\n| words held ≥ | meaning ≥ | " + " | ".join(f"{r.dataset.split(',')[0]} {c}" for r in reports
                                                    for c in SHOWN) + " |\n")
    out.write("|---:|---:|" + "---:|" * (len(SHOWN) * len(reports)) + "\n")
    for words in WORDS:
        for similar in SIMILAR:
            cells = []
            for report in reports:
                figures = report.at(words, similar).figures()
                cells += ["—" if figures[c] is None else str(figures[c]) for c in SHOWN]
            shown_similar = "off" if similar == SIMILAR_OFF else str(similar)
            out.write(f"| {words} | {shown_similar} | " + " | ".join(cells) + " |\n")


if __name__ == "__main__":
    main()
