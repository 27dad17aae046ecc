"""How to fuse the keyword and meaning lists: recall@k of each fusion rule on each dataset, from one index build.

    python bench/fusion.py DATASET_DIR [DATASET_DIR...] [--contexts none|rules] [--every N]

Indexes each dataset once (as `desktop-rag eval` does), keeps every query's two candidate lists, then scores each
rule over them, so a dozen rules cost one build. Prints one table per dataset; the rule the app uses is marked.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import replace
from pathlib import Path

from desktop_rag.config import Settings
from desktop_rag.core.evaluation.evaluation import IndexedDataset, every_nth_document, load_dataset
from desktop_rag.core.search.fusion import FUSIONS, convex_combination, fuse
from desktop_rag.core.search.identifiers import identifiers_in
from desktop_rag.core.search.tuning import GOOD_MATCH
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
        lists.append((query["_id"], dense, bm25, parsed.keywords_text))
    return lists


def _leads_by(ranked) -> float:
    """How far a list's first score stands above its second, as a share of the first."""
    if len(ranked) < 2 or not ranked[0][1]:
        return 1.0
    return (ranked[0][1] - ranked[1][1]) / abs(ranked[0][1])


def _alpha_to_the_surer_list(dense, bm25, base: float = 0.7, meaning_scale: float = 10.0):
    """α moved toward the list whose first stands out more (the meaning list's cosines lie ~10× closer)."""
    lead_keywords, lead_meaning = _leads_by(bm25), _leads_by(dense) * meaning_scale
    shift = 0.1 * (lead_keywords - lead_meaning) / ((lead_keywords + lead_meaning) or 1.0)
    return convex_combination(dense, bm25, min(0.9, max(0.4, base + shift)))


def _meaning_scaled(dense, bm25, alpha: float, scale):
    """The convex combination with the meaning side scaled by `scale(scores) -> (zero, one)` instead of min-max."""
    best = max((s for _, s in bm25), default=1.0) or 1.0
    fused = {item: alpha * score / best for item, score in bm25}
    if dense:
        zero, one = scale([s for _, s in dense])
        for item, score in dense:
            fused[item] = fused.get(item, 0.0) + (1 - alpha) * max(0.0, (score - zero) / ((one - zero) or 1.0))
    return sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))


def _as_z(scores):  # standard scores over the candidates, the first at 1
    return statistics.mean(scores), max(scores)


def _window(scores, width: float = 0.1):  # a fixed cosine window below the first
    return max(scores) - width, max(scores)


# Rules measured for issue 48 and not taken (docs/benchmarks.md, "Full sets, today"): none brings codebase R@1 up
# to the keyword list's without lowering jsquad's or the prose set's.
TRIED = {
    "α 0.7 when the query names code": lambda d, b, q: convex_combination(d, b, 0.7 if identifiers_in(q) else 0.65),
    "α toward the surer list": lambda d, b, q: _alpha_to_the_surer_list(d, b),
    "meaning from its mean, α 0.65": lambda d, b, q: _meaning_scaled(d, b, 0.65, _as_z),
    "meaning over a 0.1 window, α 0.65": lambda d, b, q: _meaning_scaled(d, b, 0.65, _window),
}


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
        indexed = IndexedDataset(dataset, args.contexts, settings, log=sys.stderr)
        try:
            lists = candidate_lists(indexed, dataset, settings.candidates)
            names = indexed.chunk_names
            rules = {"bm25 alone": lambda d, b, q: b, "dense alone": lambda d, b, q: d}
            rules.update({label: (lambda d, b, q, f=f: fuse(d, b, f)) for label, f in FUSIONS.items()})
            rules.update(TRIED)
            print(f"\n{dataset.name}, {args.contexts} contexts, {len(dataset.queries)} queries, "
                  f"model {indexed.library.embedder.name}")
            print(f"{'rule':<34}" + "".join(f"R@{k:<6}" for k in CUTOFFS) + "MRR")
            for label, rule in rules.items():
                sums = {k: 0.0 for k in CUTOFFS}
                rr = 0.0
                for query_id, dense, bm25, keywords in lists:
                    ranked = [names[i] for i, _ in rule(dense, bm25, keywords)]
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
    real, right_but_weak, right_first = [], 0, 0
    for query in dataset.queries:
        hits = searcher.search(query["text"], k=5).hits
        real.append(max((h.scores.strength for h in hits), default=0.0))
        if hits and indexed.chunk_names.get(hits[0].chunk_id) in dataset.qrels[query["_id"]]:
            right_first += 1  # the right passage first: is it labelled as the good match it is? (issue 60, 8)
            right_but_weak += hits[0].scores.strength < GOOD_MATCH
    real.sort()
    nonsense = sorted(_best_strength(searcher, q) for q in NONSENSE)
    partly = sorted(_best_strength(searcher, f"{q['text']} {n}") for q, n in zip(dataset.queries[:5], NONSENSE))

    def pct(xs: list[float], p: float) -> float:
        return xs[min(int(p * len(xs)), len(xs) - 1)]

    below = 100 * sum(x < GOOD_MATCH for x in real) / len(real)
    print(f"best hit's strength, real questions: p5 {pct(real, .05):.2f} p25 {pct(real, .25):.2f} "
          f"p50 {pct(real, .5):.2f}; share below {GOOD_MATCH:.2f}: {below:.1f}%")
    print(f"the right passage first but labelled weak: {right_but_weak} of {right_first}")
    print("nonsense queries: " + ", ".join(f"{x:.2f}" for x in nonsense))
    print("real questions with a nonsense word added: " + ", ".join(f"{x:.2f}" for x in partly))


def _best_strength(searcher, query: str) -> float:
    hits = searcher.search(query, k=5).hits
    return max((h.scores.strength for h in hits), default=0.0)


if __name__ == "__main__":
    main()
