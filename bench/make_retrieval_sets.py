"""Write the retrieval check's small evaluation sets (tests/files/retrieval/) from the full ones.

    python bench/make_retrieval_sets.py [--shared ../shared/datasets] [--pyref FOLDER] [--out tests/files/retrieval]

- codebase: every 2nd document of ../shared/datasets/codebase (sorted by id) with its chunks, and the questions
  whose relevant chunks all lie in those documents (core/evaluation.every_nth_document);
- jsquad: every 4th article of ../shared/datasets/jsquad, likewise;
- pyref: an English prose set made by bench/make_prose_set.py (the Python Language Reference, PSF licence, with
  questions the local 1.5B model wrote), shipped whole but for the two questions that point at their paragraph.

The questions' answers are left out (the check reads only questions and their relevant chunks). Each folder gets
the licence of its source (README.md beside them says where each came from). The sets are subsets on purpose:
the test suite ships them, and the full sets stay in ../shared (figures on them: docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from desktop_rag.core.evaluation.evaluation import Dataset, every_nth_document, load_dataset  # noqa: E402

EVERY = {"codebase": 2, "jsquad": 4}


def write(dataset: Dataset, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)

    def jsonl(name: str, rows: list[dict]) -> None:
        (out / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")

    jsonl("documents.jsonl", [{"_id": d["_id"], "title": d["title"], "text": d["text"]} for d in dataset.documents])
    jsonl("chunks.jsonl", dataset.chunks)
    jsonl("queries.jsonl", [{"_id": q["_id"], "text": q["text"]} for q in dataset.queries])
    lines = [f"{q['_id']}\t{chunk}\t1\n" for q in dataset.queries for chunk in sorted(dataset.qrels[q["_id"]])]
    (out / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(lines), encoding="utf-8")
    print(f"{out.name}: {len(dataset.documents)} documents, {len(dataset.chunks)} chunks, "
          f"{len(dataset.queries)} questions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared" / "datasets")
    parser.add_argument("--pyref", type=Path, default=Path.home() / ".cache/desktop-rag/datasets/pyref")
    parser.add_argument("--out", type=Path, default=HERE.parent / "tests" / "files" / "retrieval")
    args = parser.parse_args()
    for name, every in EVERY.items():
        write(every_nth_document(load_dataset(args.shared / name), every), args.out / name)
    write(without_blind_questions(load_dataset(args.pyref)), args.out / "pyref")


# A generated question that points at the text it was written from ("What will be printed by the code?", "… the
# steps mentioned in the paragraph?") has no answer a search could find: left out (2 of 107).
_BLIND = re.compile(r"\b(?:in|by|from) the (?:paragraph|code|text|passage|example)\W*$", re.I)


def without_blind_questions(dataset: Dataset) -> Dataset:
    queries = [q for q in dataset.queries if not _BLIND.search(q["text"])]
    return Dataset(dataset.name, dataset.documents, dataset.chunks, queries,
                   {q["_id"]: dataset.qrels[q["_id"]] for q in queries})


if __name__ == "__main__":
    main()
