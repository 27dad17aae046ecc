"""Answers measured on the answer sets (issue 63; core/evaluation/answer_quality.py): each set's questions asked as
`desktop-rag ask` asks them, with the questions the set does not hold, and the same model asked plainly beside it.

    python bench/answers.py [--datasets ../shared/datasets] [--sets codebase,jsquad] [--questions 30] [--no-baseline]
                            [--passage-chars 1200,600] [--passages 5] [--model NAME]

Prints one table (docs/benchmarks.md "Answers"): answered, right, citation precision, sentences not found in the
files, abstention, and the seconds to the evidence, the first word and the whole answer (p50 / p95). The sets are
the full ones in ../shared (their questions' reference answers), `--questions` of them evenly spread; the
unanswerable questions are tests/files/answers/SET-unanswerable.jsonl. Note the machine: the seconds are its own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from desktop_rag import offline  # noqa: E402,F401 (no model hub, whatever imports next)
from desktop_rag.config import Settings  # noqa: E402
from desktop_rag.core.answering.answer_format import PASSAGE_CHARS  # noqa: E402
from desktop_rag.core.answering.asking import PASSAGES  # noqa: E402
from desktop_rag.core.evaluation.answer_quality import evaluate_answers, load_unanswerable, print_answers_table  # noqa: E402
from desktop_rag.core.evaluation.evaluation import load_dataset, spread_questions  # noqa: E402

UNANSWERABLE = HERE.parent / "tests" / "files" / "answers"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=HERE.parent.parent / "shared" / "datasets")
    parser.add_argument("--sets", default="codebase,jsquad")
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--model", help="the GGUF model (a packaged model's name or a file); default the setting's")
    parser.add_argument("--passage-chars", default=str(PASSAGE_CHARS), metavar="N[,N…]",
                        help="of each passage given to the model; several: each measured (answers only)")
    parser.add_argument("--passages", type=int, default=PASSAGES, help="passages given to the model")
    args = parser.parse_args()
    settings = Settings(contexts="rules")
    if args.model:
        settings = Settings(contexts="rules", llm_model=args.model)
    reports = []
    for name in args.sets.split(","):
        dataset = spread_questions(load_dataset(args.datasets / name), args.questions)
        unanswerable = load_unanswerable(UNANSWERABLE / f"{name}-unanswerable.jsonl")
        runs = [(False, int(chars)) for chars in args.passage_chars.split(",")]
        for baseline, chars in runs + ([] if args.no_baseline else [(True, PASSAGE_CHARS)]):
            print(f"{name}: {'baseline' if baseline else f'answers, {chars} characters a passage'}…",
                  file=sys.stderr, flush=True)
            report = evaluate_answers(dataset, unanswerable, settings, baseline=baseline, log=sys.stderr,
                                      passages=args.passages, passage_chars=chars)
            report.dataset += "" if baseline else f", {args.passages} passages of {chars} characters"
            reports.append(report)
            print_answers_table(reports[-1:], sys.stderr)
    print(f"\nmodel: {settings.llm_model}")
    print_answers_table(reports, sys.stdout)


if __name__ == "__main__":
    main()
