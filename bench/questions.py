"""Do the questions each chunk answers (doc2query, `llm_questions`) help search? Scored from contexts already written.

    .venv/bin/python bench/questions.py DATASET_DIR RUN.json [RUN.json...] [--every N] [--situation-from RUN.json]

Each RUN.json is the output of `desktop-rag eval DATASET_DIR --all --json` (with `llm_questions` set or not): its
LLM row holds every chunk's context and questions. For each run the dataset's chunks (every N-th document with
--every) are indexed again with those contexts — no LLM, a minute — and scored three ways: keywords, meaning, and
the product's hybrid fusion; a run with questions is scored once without them in the keyword index and once with
them, so the two rows differ only by the questions. Prints R@1/5/10/20 and the context and question words.

--situation-from re-seats every model-written context under the situation ("title — heading path (part 2 of 7).")
that the given run's rules contexts open with, and gives a rejected one that run's rules context: runs made before
and after a change of headings then differ only by what the model wrote (a prompt against a prompt, no LLM run).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_rag.config import Settings
from desktop_rag.core.contexts.rules import RulesContextualizer
from desktop_rag.core.dense.dense_text import dense_windows
from desktop_rag.core.dense.embedding import Embedder
from desktop_rag.core.dense.tokens import token_counter
from desktop_rag.core.evaluation.evaluation import every_nth_document, load_dataset
from desktop_rag.core.search.fusion import Fusion, fuse
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.documents import keyword_text
from desktop_rag.storage.keyword_index import KeywordIndex

CUTOFFS = (1, 5, 10, 20)
DEPTH = Settings().candidates


def dense_lists(embedder, counter, pairs: list[tuple[str, str]], queries: list[str]) -> list[list[tuple[int, float]]]:
    owners, inputs = [], []
    for position, (context, text) in enumerate(pairs):
        for window in dense_windows(context, text, counter):
            owners.append(position)
            inputs.append(window)
    similarities = np.array([embedder.embed_query(q) for q in queries]) @ embedder.embed(inputs).T
    owners_array, lists = np.array(owners), []
    for row in similarities:
        best = np.full(len(pairs), -np.inf)
        np.maximum.at(best, owners_array, row)
        top = np.argsort(-best)[:DEPTH]
        lists.append([(int(i), float(best[i])) for i in top])
    return lists


def keyword_lists(texts: list[str], queries: list[str]) -> list[list[tuple[int, float]]]:
    with tempfile.TemporaryDirectory() as folder:
        index = KeywordIndex(Path(folder), lexical_tokens)
        index.rebuild(enumerate(texts))
        return [index.search(q, DEPTH) for q in queries]


def recall(lists, names, dataset) -> dict[int, float]:
    sums = {k: 0.0 for k in CUTOFFS}
    for query, ranked in zip(dataset.queries, lists):
        ranked_names = [names[i] for i, _ in ranked]
        relevant = dataset.qrels[query["_id"]]
        for k in CUTOFFS:
            sums[k] += len(relevant.intersection(ranked_names[:k])) / len(relevant)
    return {k: 100 * v / len(dataset.queries) for k, v in sums.items()}


def contexts_of(run: Path, kind: str) -> dict:
    rows = json.loads(run.read_text())
    return next(r for r in rows if r["config"]["contexts"] == kind and r["contexts"])["contexts"]


# The situation a context opens with (core/contexts/rules.py, `situation`): up to its position and full stop; a
# single-chunk document's has no position, only its title and a full stop.
_SITUATION = re.compile(r"^.*?(?:\((?:page \d+, )?part \d+ of \d+\)\.|（[^（）]*全\d+部分の\d+）。)\s*|^[^.。]*[.。]\s*")


def split_situation(context: str) -> tuple[str, str]:
    match = _SITUATION.match(context)
    return (context[: match.end()].rstrip(), context[match.end():]) if match else ("", context)


def reseated(contexts: dict, rules_contexts: dict, fit) -> dict:
    """Every model-written sentence under the situation of the same chunk's rules context in the other run."""
    moved = {}
    for name, written in contexts.items():
        rules = rules_contexts.get(name, {}).get("text", "")
        if written.get("source") != "llm":
            moved[name] = {**written, "text": rules}
            continue
        situation, _ = split_situation(rules)
        _, sentences = split_situation(written["text"])
        if not situation:
            moved[name] = written
            continue
        # A sentence the budget had cut keeps its mark, and is cut no further if it fits under the new situation.
        body = situation + ("" if situation.endswith("。") else " ") + sentences.removesuffix("…")
        fitted = fit(body)
        moved[name] = {**written, "text": fitted + "…" if sentences.endswith("…") and fitted == body else fitted}
    return moved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--situation-from", type=Path)
    args = parser.parse_args()
    dataset = every_nth_document(load_dataset(args.dataset), args.every)
    names = [c["_id"] for c in dataset.chunks]
    texts = [c["text"] for c in dataset.chunks]
    queries = [q["text"] for q in dataset.queries]
    embedder, counter = Embedder(), token_counter()
    settings = Settings()
    fit = RulesContextualizer(max_words=settings.context_max_words, max_tokens=settings.context_max_tokens,
                              counter=counter).fit
    situations = contexts_of(args.situation_from, "rules") if args.situation_from else None
    print(f"{dataset.name}: {len(names)} chunks, {len(queries)} questions\n")
    print("| contexts | keywords R@1/5/10/20 | meaning | hybrid | context words | questions per chunk |")
    print("|---|---|---|---|---|---|")
    for run in args.runs:
        contexts = contexts_of(run, "llm")
        if situations is not None:
            contexts = reseated(contexts, situations, fit)
        written = [contexts.get(n, {}) for n in names]
        pairs = [(c.get("text", ""), t) for c, t in zip(written, texts)]
        questions = [c.get("questions") or "" for c in written]
        dense = dense_lists(embedder, counter, pairs, queries)
        variants = [("", [""] * len(names))] + ([(" + questions", questions)] if any(questions) else [])
        for label, asked in variants:
            keywords = keyword_lists([keyword_text(c, t, q) for (c, t), q in zip(pairs, asked)], queries)
            hybrid = [fuse(d, b, Fusion("convex", 0.6)) for d, b in zip(dense, keywords)]
            cells = [recall(lists, names, dataset) for lists in (keywords, dense, hybrid)]
            words = np.mean([len(c.split()) for c, _ in pairs])
            per_chunk = np.mean([len([q for q in a.split("\n") if q]) for a in asked])
            print(f"| {run.name}{label} | " + " | ".join(" / ".join(f"{r[k]:.1f}" for k in CUTOFFS) for r in cells)
                  + f" | {words:.0f} | {per_chunk:.1f} |")


if __name__ == "__main__":
    main()
