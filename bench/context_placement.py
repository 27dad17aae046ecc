"""Where should a chunk's context go: into the dense input, the keyword index, both, or chosen per chunk?

Reads the contexts an `eval --all --json` run indexed and re-indexes the dataset's chunks under each placement
(no LLM: only embedding and BM25, about a minute), then prints recall and how many question / chunk pairs each
placement helped or hurt against plain chunks.

    .venv/bin/python bench/context_placement.py out.json ../shared/datasets/codebase

Dense input is embedded as the product does (`dense_windows`: a chunk past the embedder's window is embedded in
windows that each carry the context, scored by its best window); keyword search is the product's bm25s index and
tokenizer; hybrid is the product's reciprocal rank fusion. "per chunk" placements put the context into the dense
input only where the context's quality score (recomputed, with `adds`) reaches a threshold, and always into BM25.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_rag.config import Settings
from desktop_rag.core.contexts.quality import score_context
from desktop_rag.core.dense.dense_text import dense_windows
from desktop_rag.core.dense.embedding import Embedder
from desktop_rag.core.dense.tokens import token_counter
from desktop_rag.core.evaluation.evaluation import load_dataset
from desktop_rag.core.search.fusion import reciprocal_rank_fusion
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.documents import index_text
from desktop_rag.storage.keyword_index import KeywordIndex

CUTOFFS = (5, 10, 20)
NOT_FOUND = 101


def dense_rankings(embedder, counter, texts: list[tuple[str, str]], queries: list[str], depth: int) -> list[list[int]]:
    """Per query, chunk positions best first; a chunk scores by its best window."""
    owners, inputs = [], []
    for position, (context, text) in enumerate(texts):
        for window in dense_windows(context, text, counter):
            owners.append(position)
            inputs.append(window)
    vectors = embedder.embed(inputs)
    similarities = embedder.embed(queries) @ vectors.T
    owners_array = np.array(owners)
    rankings = []
    for row in similarities:
        best = np.full(len(texts), -np.inf)
        np.maximum.at(best, owners_array, row)
        rankings.append([int(i) for i in np.argsort(-best)[:depth]])
    return rankings


def keyword_rankings(texts: list[str], queries: list[str], depth: int) -> list[list[int]]:
    with tempfile.TemporaryDirectory() as folder:
        index = KeywordIndex(Path(folder), lexical_tokens)
        index.rebuild(enumerate(texts))
        return [[int(i) for i, _ in index.search(q, depth)] for q in queries]


def recall_and_ranks(rankings, names, dataset):
    recall = {k: 0.0 for k in CUTOFFS}
    ranks = {}
    for query, ranking in zip(dataset.queries, rankings):
        ranked = [names[i] for i in ranking]
        relevant = dataset.qrels[query["_id"]]
        for k in CUTOFFS:
            recall[k] += len(relevant.intersection(ranked[:k])) / len(relevant)
        for name in relevant:
            ranks[(query["_id"], name)] = ranked.index(name) + 1 if name in ranked else NOT_FOUND
    return {k: 100 * v / len(dataset.queries) for k, v in recall.items()}, ranks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("eval_json", type=Path)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--contexts", default="llm", help="which run's contexts to place (llm or rules)")
    args = parser.parse_args()

    rows = json.loads(args.eval_json.read_text())
    contexts = next(r["contexts"] for r in rows if r["config"]["contexts"] == args.contexts and r["contexts"])
    dataset = load_dataset(args.dataset)
    documents = {d["_id"]: d for d in dataset.documents}
    names = [c["_id"] for c in dataset.chunks]
    chunk_texts = [c["text"] for c in dataset.chunks]
    context_texts = [contexts.get(n, {}).get("text", "") for n in names]
    scores = [
        score_context(ctx, c["text"], f"{documents[c['doc_id']]['title']}\n{documents[c['doc_id']]['text']}")[0]
        if ctx else 0.0
        for ctx, c in zip(context_texts, dataset.chunks)
    ]
    cut_high, cut_mid = np.quantile(scores, [2 / 3, 1 / 3])
    settings = Settings()
    depth = settings.candidates
    queries = [q["text"] for q in dataset.queries]
    embedder, counter = Embedder(), token_counter()

    def dense_with(mask):
        pairs = [(ctx if on else "", text) for ctx, text, on in zip(context_texts, chunk_texts, mask)]
        return dense_rankings(embedder, counter, pairs, queries, depth)

    everywhere = [True] * len(names)
    nowhere = [False] * len(names)
    dense = {
        "none": dense_with(nowhere),
        "all": dense_with(everywhere),
        "top third": dense_with([s >= cut_high for s in scores]),
        "top two thirds": dense_with([s >= cut_mid for s in scores]),
    }
    keyword = {
        "none": keyword_rankings(chunk_texts, queries, depth),
        "all": keyword_rankings([index_text(c, t) for c, t in zip(context_texts, chunk_texts)], queries, depth),
    }

    def hybrid(dense_key, keyword_key):
        return [
            # Equal-weight RRF, as when this was measured: these lists are ranks only (no scores to combine).
            [i for i, _ in reciprocal_rank_fusion([d, b], [1.0, 1.0], settings.rrf_k)[:depth]]
            for d, b in zip(dense[dense_key], keyword[keyword_key])
        ]

    placements = [
        ("dense", "no context", dense["none"]),
        ("dense", "context in dense input", dense["all"]),
        ("dense", f"per chunk: score ≥ {cut_mid:.2f} (top two thirds)", dense["top two thirds"]),
        ("dense", f"per chunk: score ≥ {cut_high:.2f} (top third)", dense["top third"]),
        ("hybrid", "no context", hybrid("none", "none")),
        ("hybrid", "context in both (the product)", hybrid("all", "all")),
        ("hybrid", "context in BM25 only", hybrid("none", "all")),
        ("hybrid", "context in dense only", hybrid("all", "none")),
        ("hybrid", "BM25 all, dense top two thirds", hybrid("top two thirds", "all")),
        ("hybrid", "BM25 all, dense top third", hybrid("top third", "all")),
    ]
    baseline = {}
    print(f"{args.contexts} contexts from {args.eval_json}; {len(names)} chunks, {len(queries)} questions\n")
    print("| mode | placement | R@5 | R@10 | R@20 | pairs helped / hurt vs no context |")
    print("|---|---|---|---|---|---|")
    for mode, label, rankings in placements:
        recall, ranks = recall_and_ranks(rankings, names, dataset)
        if label == "no context":
            baseline[mode] = ranks
        before = baseline[mode]
        helped = sum(ranks[p] < before[p] for p in ranks)
        hurt = sum(ranks[p] > before[p] for p in ranks)
        figures = " | ".join(f"{recall[k]:.2f}" for k in CUTOFFS)
        print(f"| {mode} | {label} | {figures} | {helped} / {hurt} |")


if __name__ == "__main__":
    main()
