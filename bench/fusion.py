"""How to fuse the keyword and meaning lists: recall@k of each fusion rule on each dataset, from one index build.

    python bench/fusion.py DATASET_DIR [DATASET_DIR...] [--contexts none|rules] [--every N]

Indexes each dataset once (as `desktop-rag eval` does), keeps every query's two candidate lists, then scores each
rule over them, so a dozen rules cost one build. Prints one table per dataset; the rule the app uses is marked.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from desktop_rag.config import Settings
from desktop_rag.core.evaluation import _IndexedDataset, every_nth_document, load_dataset
from desktop_rag.core.search.fusion import FUSIONS, fuse
from desktop_rag.core.search.match_strength import GOOD_MATCH
from desktop_rag.core.search.query import parse_query
from desktop_rag.core.search.searcher import keyword_candidates

CUTOFFS = (1, 5, 10, 20)


def candidate_lists(indexed, dataset, n: int):
    lib = indexed.library
    lists = []
    for query in dataset.queries:
        parsed = parse_query(query["text"])
        dense = lib.vectors.query(lib.embedder.embed_query(parsed.text), n)
        bm25 = keyword_candidates(lib.keywords, parsed, n)
        lists.append((query["_id"], dense, bm25))
    return lists


def recall(ranked_names, relevant, k):
    return len(relevant.intersection(ranked_names[:k])) / len(relevant)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--contexts", default="none")
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--embedding-model", default="")
    args = parser.parse_args()
    settings = replace(Settings(), embedding_model=args.embedding_model)
    for folder in args.datasets:
        dataset = load_dataset(Path(folder))
        if args.every > 1:
            dataset = every_nth_document(dataset, args.every)
        indexed = _IndexedDataset(dataset, args.contexts, settings, log=sys.stderr)
        try:
            lists = candidate_lists(indexed, dataset, settings.candidates)
            names = indexed.chunk_names
            rules = {"bm25 alone": lambda d, b: b, "dense alone": lambda d, b: d}
            rules.update({label: (lambda d, b, f=f: fuse(d, b, f)) for label, f in FUSIONS.items()})
            print(f"\n{dataset.name}, {args.contexts} contexts, {len(dataset.queries)} queries, "
                  f"model {indexed.library.embedder.name}")
            print(f"{'rule':<34}" + "".join(f"R@{k:<6}" for k in CUTOFFS) + "MRR")
            for label, rule in rules.items():
                sums = {k: 0.0 for k in CUTOFFS}
                rr = 0.0
                for query_id, dense, bm25 in lists:
                    ranked = [names[i] for i, _ in rule(dense, bm25)]
                    relevant = dataset.qrels[query_id]
                    for k in CUTOFFS:
                        sums[k] += recall(ranked, relevant, k)
                    first = next((r for r, name in enumerate(ranked[:20], 1) if name in relevant), None)
                    rr += 1 / first if first else 0
                q = len(lists)
                print(f"{label:<34}" + "".join(f"{100 * sums[k] / q:<8.2f}" for k in CUTOFFS) + f"{rr / q:.3f}")
            strengths(indexed, dataset, lists)
        finally:
            indexed.close()


NONSENSE = ["xylophonequux", "zqvbnm wibblefrotz", "florbnak dweezle vantrop", "ぴゃらりぷーもげ", "qwxz jjkvb 9931zz"]


def strengths(indexed, dataset, lists) -> None:
    """The best hit's match strength for the set's real questions and for nonsense: where the floor goes."""
    from desktop_rag.core.search.searcher import Searcher

    lib = indexed.library
    searcher = Searcher(lib.catalog, lib.vectors, lib.keywords, lib.embedder, lib.settings)
    real = sorted(_best_strength(searcher, q["text"]) for q in dataset.queries)
    nonsense = sorted(_best_strength(searcher, q) for q in NONSENSE)

    def pct(xs: list[float], p: float) -> float:
        return xs[min(int(p * len(xs)), len(xs) - 1)]

    below = 100 * sum(x < GOOD_MATCH for x in real) / len(real)
    print(f"best hit's strength, real questions: p5 {pct(real, .05):.2f} p25 {pct(real, .25):.2f} "
          f"p50 {pct(real, .5):.2f}; share below {GOOD_MATCH:.2f}: {below:.1f}%")
    print("nonsense queries: " + ", ".join(f"{x:.2f}" for x in nonsense))


def _best_strength(searcher, query: str) -> float:
    hits = searcher.search(query, k=5).hits
    return max((h.scores.strength for h in hits), default=0.0)


if __name__ == "__main__":
    main()
