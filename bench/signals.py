"""Signals beyond the two lists: which of them lift hybrid recall, measured on every set at once.

    python bench/signals.py DATASET_DIR [DATASET_DIR...] [--contexts none rules] [--every N] [--refresh]

Each dataset is indexed once per contexts choice (as `desktop-rag eval` does: real catalog, embedder, Chroma), then
every question's scores over *every* chunk are kept in a cache (~/.cache/desktop-rag/signals): the product's BM25
(context + text) and cosine (best window), and the candidate signals —

- fields: BM25 over a chunk's title and heading path alone (a second small index, BM25F-like);
- doc: BM25 of the chunk's whole document (its chunks' texts together), given to each of its chunks;
- docmax: the best BM25 of any chunk of the same document;
- neighbours: the mean BM25 of the chunks just before and after;
- rare: BM25 with each query word's part weighted again by its IDF (rare words count more);
- prf: BM25 of the query expanded by pseudo relevance feedback (the top 5 keyword hits' best 10 terms);
- exact: share of the query's identifier-like words (DiffExecutor, run_target, 0x1F) found verbatim;
- cover: the IDF-weighted share of the query's words the chunk holds (BM25 can be carried by one repeated word).

"adaptive" variants move α per question by how much of the query the best keyword hit covers: a question whose
words the documents do not use (a paraphrase) leans on meaning, one whose rare words match leans on keywords.

The hybrid score is the product's (convex: α · BM25 / best + (1 − α) · cosine min-max scaled over the top 100;
a chunk outside a list's top 100 gets 0 from it) plus w · signal / its best. Each signal is tried alone over a grid
of weights, then the best together; the table shows R@1/5/10/20 for every set, and an oracle bound (each question
scored by whichever variant ranked its first relevant chunk best). Last, a linear ranker over all the signals,
trained on question pairs, scored on each set held out of its training.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_rag.config import Settings
from desktop_rag.core.evaluation.evaluation import IndexedDataset, every_nth_document, load_dataset
from desktop_rag.core.search.identifiers import identifiers_in
from desktop_rag.core.search.query import parse_query
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.documents import index_text

CUTOFFS = (1, 5, 10, 20)
TOP = 100  # candidates each list gives the fusion (Settings.candidates)
CACHE = Path.home() / ".cache" / "desktop-rag" / "signals"
SIGNALS = ("fields", "doc", "docmax", "neighbours", "rare", "prf", "exact", "cover")
class Bm25:
    """bm25s over token lists, scoring each query token apart (so tokens can be weighted)."""

    def __init__(self, token_lists: list[list[str]]):
        import bm25s

        self.vocabulary: dict[str, int] = {}
        corpus = [[self.vocabulary.setdefault(t, len(self.vocabulary)) for t in (tokens or [""])]
                  for tokens in token_lists]
        self.retriever = bm25s.BM25()
        self.retriever.index((corpus, dict(self.vocabulary)), show_progress=False)
        df = Counter(t for tokens in token_lists for t in set(tokens))
        n = len(token_lists)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self.size = n

    def per_token(self, tokens: list[str]) -> dict[str, np.ndarray]:
        return {t: self.retriever.get_scores_from_ids([self.vocabulary[t]]) for t in dict.fromkeys(tokens)
                if t in self.vocabulary}

    def scores(self, tokens: list[str], weights: dict[str, float] | None = None) -> np.ndarray:
        total = np.zeros(self.size, dtype=np.float32)
        for token, part in self.per_token(tokens).items():
            total += (weights or {}).get(token, 1.0) * part
        return total


def collect(dataset, contexts: str, settings: Settings) -> dict[str, np.ndarray]:
    indexed = IndexedDataset(dataset, contexts, settings, log=sys.stderr)
    try:
        lib = indexed.library
        rows = list(lib.catalog.iter_index_texts())
        ids = [chunk_id for chunk_id, _, _ in rows]
        texts = [index_text(context, text) for _, context, text in rows]
        records = lib.catalog.chunks_by_id(ids)
        names = [indexed.chunk_names[i] for i in ids]
        documents = [name.rsplit(":", 1)[0] for name in names]
        positions = [int(name.rsplit(":", 1)[1]) for name in names]
        tokens = [lexical_tokens(t) for t in texts]
        fields = [lexical_tokens(" ".join([records[i].title or ""] + list(records[i].heading_path))) for i in ids]
        by_doc: dict[str, list[int]] = {}
        for row, doc in enumerate(documents):
            by_doc.setdefault(doc, []).append(row)
        doc_names = sorted(by_doc)
        doc_rows = np.array([doc_names.index(d) for d in documents])
        chunk_index = Bm25(tokens)
        field_index = Bm25(fields)
        doc_index = Bm25([[t for row in by_doc[d] for t in tokens[row]] for d in doc_names])
        vectors = lib.catalog.filters.chunk_vectors(ids, lib.embedder.dimension)
        out: dict[str, list] = {name: [] for name in ("bm25", "dense", *SIGNALS)}
        before = np.array([_neighbour(by_doc, documents, positions, r, -1) for r in range(len(ids))])
        after = np.array([_neighbour(by_doc, documents, positions, r, +1) for r in range(len(ids))])
        for query in dataset.queries:
            parsed = parse_query(query["text"])
            q_tokens = lexical_tokens(parsed.keywords_text)
            bm25 = chunk_index.scores(q_tokens)
            query_vector = lib.embedder.embed_query(parsed.text)
            dense = np.array([float(np.max(vectors[i] @ query_vector)) if i in vectors else 0.0 for i in ids])
            out["bm25"].append(bm25)
            out["dense"].append(dense)
            out["fields"].append(field_index.scores(q_tokens))
            out["doc"].append(doc_index.scores(q_tokens)[doc_rows])
            best_in_doc = np.zeros(len(doc_names), dtype=np.float32)
            np.maximum.at(best_in_doc, doc_rows, bm25)
            out["docmax"].append(best_in_doc[doc_rows])
            padded = np.append(bm25, 0.0)  # row -1: no neighbour
            out["neighbours"].append((padded[before] + padded[after]) / 2)
            out["rare"].append(chunk_index.scores(q_tokens, {t: chunk_index.idf.get(t, 0.0) for t in q_tokens}))
            out["prf"].append(_expanded(chunk_index, tokens, q_tokens, bm25))
            out["exact"].append(_exact(parsed.keywords_text, texts))
            out["cover"].append(_cover(chunk_index, q_tokens))
        arrays = {name: np.asarray(values, dtype=np.float32) for name, values in out.items()}
        arrays["names"] = np.asarray(names)
        return arrays
    finally:
        indexed.close()


def _neighbour(by_doc, documents, positions, row: int, step: int) -> int:
    for other in by_doc[documents[row]]:
        if positions[other] == positions[row] + step:
            return other
    return -1


def _expanded(index: Bm25, tokens: list[list[str]], q_tokens: list[str], bm25: np.ndarray,
              feedback: int = 5, terms: int = 10) -> np.ndarray:
    """RM3-like: the top `feedback` chunks' terms weighted by share of the chunk × IDF, the best `terms` of them
    added at half weight."""
    top = [int(i) for i in np.argsort(-bm25)[:feedback] if bm25[i] > 0]
    weights: Counter = Counter()
    for row in top:
        counts = Counter(tokens[row])
        for term, count in counts.items():
            if term not in q_tokens:
                weights[term] += count / len(tokens[row]) * index.idf.get(term, 0.0)
    chosen = [t for t, _ in weights.most_common(terms)]
    return index.scores(q_tokens + chosen, {t: 0.5 for t in chosen})


def _cover(index: Bm25, q_tokens: list[str]) -> np.ndarray:
    parts = index.per_token(q_tokens)
    weights = {t: index.idf.get(t, 0.0) for t in dict.fromkeys(q_tokens)}
    total = sum(weights.values()) or 1.0
    cover = np.zeros(index.size, dtype=np.float32)
    for token, part in parts.items():
        cover += weights[token] * (part > 0)
    return cover / total


def _exact(query: str, texts: list[str]) -> np.ndarray:
    words = identifiers_in(query)
    if not words:
        return np.zeros(len(texts), dtype=np.float32)
    return np.array([sum(w in text for w in words) / len(words) for text in texts], dtype=np.float32)


def top_scaled(scores: np.ndarray, minmax: bool) -> np.ndarray:
    """The product's normalization: only the top TOP count; BM25 over its best, cosine min-max over the top."""
    out = np.zeros_like(scores)
    top = np.argsort(-scores)[:TOP]
    top = top[scores[top] > 0] if not minmax else top
    if not len(top):
        return out
    high, low = scores[top].max(), scores[top].min()
    out[top] = (scores[top] - low) / ((high - low) or 1.0) if minmax else scores[top] / (high or 1.0)
    return out


def distribution_scaled(scores: np.ndarray) -> np.ndarray:
    out = np.zeros_like(scores)
    top = np.argsort(-scores)[:TOP]
    top = top[scores[top] > 0]
    if len(top) < 2:
        out[top] = 1.0
        return out
    mean, sd = scores[top].mean(), scores[top].std() or 1.0
    out[top] = np.clip((scores[top] - (mean - 3 * sd)) / (6 * sd), 0, 1)
    return out


def over_best(scores: np.ndarray) -> np.ndarray:
    best = scores.max()
    return scores / best if best > 0 else scores


class Scorer:
    def __init__(self, arrays: dict[str, np.ndarray], qrels: list[set[str]]):
        self.names = arrays["names"]
        self.qrels = qrels
        self.bm25 = np.array([top_scaled(row, False) for row in arrays["bm25"]])
        self.dense = np.array([top_scaled(row, True) for row in arrays["dense"]])
        # Distribution-based scaling (Qdrant's DBSF): each list's top TOP scaled between mean ± 3 sd.
        self.raw_bm25, self.raw_cover = arrays["bm25"], arrays["cover"]
        self.bm25_dbsf = np.array([distribution_scaled(row) for row in arrays["bm25"]])
        self.dense_dbsf = np.array([distribution_scaled(row) for row in arrays["dense"]])
        self.signals = {s: np.array([over_best(row) for row in arrays[s]]) for s in SIGNALS}
        self.signals["rare_top"] = np.array([top_scaled(row, False) for row in arrays["rare"]])
        self.signals["prf_top"] = np.array([top_scaled(row, False) for row in arrays["prf"]])

    def ranks(self, alpha: float, weights: dict[str, float], keyword_list: str = "") -> np.ndarray:
        """Rank (1-based) of each question's first relevant chunk; TOP + 1 when not in the top TOP."""
        if keyword_list.startswith("adaptive"):  # "adaptive LOW HIGH": α from LOW to HIGH by the top hit's cover
            low, high = (float(x) for x in keyword_list.split()[1:])
            best = np.argmax(self.raw_bm25, axis=1)
            cover = self.raw_cover[np.arange(len(best)), best][:, None]
            a = low + (high - low) * cover
            total = a * self.bm25 + (1 - a) * self.dense
        elif keyword_list == "dbsf":
            total = alpha * self.bm25_dbsf + (1 - alpha) * self.dense_dbsf
        else:
            keywords = self.signals[keyword_list] if keyword_list else self.bm25
            total = alpha * keywords + (1 - alpha) * self.dense
        for name, weight in weights.items():
            if weight:
                total = total + weight * self.signals[name]
        return self._first_ranks(total)

    def only(self, which: str) -> np.ndarray:
        return self._first_ranks(self.bm25 if which == "bm25" else self.dense)

    def _first_ranks(self, total: np.ndarray) -> np.ndarray:
        order = np.argsort(-total, axis=1, kind="stable")[:, :TOP]
        self._last_order = order
        return np.array([next((r for r, i in enumerate(row, 1) if self.names[i] in rel), TOP + 1)
                         for row, rel in zip(order, self.qrels)])

    def recall(self) -> dict[int, float]:
        order = self._last_order
        return {k: 100 * float(np.mean([len(rel.intersection(self.names[row[:k]])) / len(rel)
                                         for row, rel in zip(order, self.qrels)])) for k in CUTOFFS}


def load(folder: str, contexts: str, every: int, settings: Settings, refresh: bool):
    dataset = load_dataset(Path(folder))
    if every > 1:
        dataset = every_nth_document(dataset, every)
    CACHE.mkdir(parents=True, exist_ok=True)
    cache = CACHE / f"{Path(folder).name}-{contexts}-every{every}.npz"
    if refresh or not cache.exists():
        np.savez_compressed(cache, **collect(dataset, contexts, settings))
    arrays = dict(np.load(cache))
    return dataset, Scorer(arrays, [dataset.qrels[q["_id"]] for q in dataset.queries])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--contexts", nargs="+", default=["none", "rules"])
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--refresh", action="store_true")
    parser.add_argument("--json", help="write every variant's recall here")
    args = parser.parse_args()
    settings = Settings()
    sets = {}
    for folder in args.datasets:
        for contexts in args.contexts:
            _dataset, scorer = load(folder, contexts, args.every, settings, args.refresh)
            sets[f"{Path(folder).name}/{contexts}"] = scorer
    variants: dict[str, tuple] = {"bm25 alone": ("bm25",), "dense alone": ("dense",)}
    for alpha in (0.5, 0.6, 0.7):
        variants[f"hybrid a={alpha}"] = (alpha, {})
    for signal in SIGNALS + ("rare_top", "prf_top"):
        for weight in (0.05, 0.1, 0.2, 0.3, 0.5):
            variants[f"+{signal} {weight}"] = (0.6, {signal: weight})
    for signal in ("rare_top", "prf_top"):
        variants[f"{signal} as the keyword list"] = (0.6, {}, signal)
    for alpha in (0.4, 0.5, 0.6, 0.7):
        variants[f"dbsf a={alpha}"] = (alpha, {}, "dbsf")
    for low, high in ((0.3, 0.7), (0.4, 0.7), (0.4, 0.8), (0.5, 0.7), (0.3, 0.8), (0.2, 0.8)):
        variants[f"adaptive a={low}..{high}"] = (0, {}, f"adaptive {low} {high}")
    results = run(sets, variants)
    best = best_single(results, sets)
    combos = {}
    for size in (2, 3):
        for chosen in itertools.combinations(best, size):
            for alpha in (0.5, 0.6):
                combos[f"a={alpha} " + " ".join(f"+{s} {best[s]}" for s in chosen)] = (
                    alpha, {s: best[s] for s in chosen})
    results.update(run(sets, combos))
    singles = {label: r for label, r in results.items() if label not in combos}
    best_combos = sorted(combos, key=lambda label: -mean_gain(results[label], results["hybrid a=0.6"]))[:12]
    print_table({**singles, **{label: results[label] for label in best_combos}}, sets)
    print_oracle(results, sets)
    if len({name.split("/")[0] for name in sets}) > 1:
        leave_one_set_out(sets)
    if args.json:
        Path(args.json).write_text(json.dumps({label: {s: r for s, (r, _) in per_set.items()}
                                               for label, per_set in results.items()}, indent=1))


def run(sets, variants):
    results = {}
    for label, variant in variants.items():
        per_set = {}
        for name, scorer in sets.items():
            if len(variant) == 1:
                ranks = scorer.only(variant[0])
            else:
                ranks = scorer.ranks(variant[0], variant[1], variant[2] if len(variant) > 2 else "")
            per_set[name] = (scorer.recall(), ranks)
        results[label] = per_set
    return results


def mean_gain(per_set, base) -> float:
    """Mean over sets of the change in R@1 + R@5 + R@10 + R@20 against the plain hybrid."""
    return float(np.mean([sum(per_set[s][0][k] - base[s][0][k] for k in CUTOFFS) for s in per_set]))


def best_single(results, sets) -> dict[str, float]:
    base = results["hybrid a=0.6"]
    chosen = {}
    for signal in SIGNALS + ("rare_top", "prf_top"):
        options = {float(label.split()[-1]): mean_gain(r, base) for label, r in results.items()
                   if label.startswith(f"+{signal} ")}
        weight, gain = max(options.items(), key=lambda pair: pair[1])
        print(f"{signal:<12} best weight {weight}: mean gain {gain:+.2f} (sum of R@1/5/10/20 points, mean over sets)")
        if gain > 0:
            chosen[signal] = (weight, gain)
    strongest = sorted(chosen.items(), key=lambda pair: -pair[1][1])[:4]  # combinations of the four best
    return {signal: weight for signal, (weight, _) in strongest}


def print_table(results, sets) -> None:
    base = results["hybrid a=0.6"]
    header = f"{'variant':<44}" + "".join(f"{name:<26}" for name in sets) + "gain"
    print("\nR@1 / 5 / 10 / 20 per set; gain = mean over sets of the change in their sum against hybrid a=0.6")
    print(header)
    for label, per_set in results.items():
        cells = "".join(f"{'/'.join(f'{r[k]:.1f}' for k in CUTOFFS):<26}" for r, _ in per_set.values())
        print(f"{label:<44}{cells}{mean_gain(per_set, base):+.2f}")


def print_oracle(results, sets) -> None:
    """Best rank any variant gave each question's first relevant chunk: how far choosing per question could go."""
    print("\noracle (each question by its best variant): R@1 / 5 / 10 / 20")
    for name in sets:
        best = np.min([per_set[name][1] for per_set in results.values()], axis=0)
        print(f"  {name:<24}" + " / ".join(f"{100 * float(np.mean(best <= k)):.1f}" for k in CUTOFFS)
              + "   (first relevant chunk only)")


if __name__ == "__main__":
    main()


# -- a linear ranker over the signals, trained by pairs (RankNet with no hidden layer) ------------------------

FEATURES = ("bm25", "dense", "cover", "exact", "doc", "docmax", "fields", "rare", "bm25_rank", "dense_rank",
            "dense_x_uncovered")


def features(scorer: Scorer) -> np.ndarray:
    """[questions, chunks, features]; ranks as 1 / (1 + rank / 10), 0 outside a list's top TOP."""
    def rank_feature(scores):
        ranks = np.argsort(np.argsort(-scores, axis=1), axis=1)
        return np.where(scores > 0, 1 / (1 + ranks / 10), 0.0)

    best = np.argmax(scorer.raw_bm25, axis=1)
    top_cover = scorer.raw_cover[np.arange(len(best)), best][:, None]
    columns = [scorer.bm25, scorer.dense, scorer.signals["cover"], scorer.signals["exact"], scorer.signals["doc"],
               scorer.signals["docmax"], scorer.signals["fields"], scorer.signals["rare"],
               rank_feature(scorer.bm25), rank_feature(scorer.dense), scorer.dense * (1 - top_cover)]
    return np.stack(columns, axis=2).astype(np.float32)


def train_pairs(scorers: list[Scorer], negatives: int = 30, epochs: int = 300, rate: float = 0.5,
                l2: float = 1e-3) -> np.ndarray:
    """Weights w such that w·x(relevant) > w·x(top non-relevant candidates of the plain hybrid), by gradient
    descent on the logistic loss of the differences; every question weighs the same."""
    differences, weights = [], []
    for scorer in scorers:
        x = features(scorer)
        base = 0.6 * scorer.bm25 + 0.4 * scorer.dense
        for q, relevant in enumerate(scorer.qrels):
            is_relevant = np.isin(scorer.names, list(relevant))
            positives = np.flatnonzero(is_relevant)
            order = np.argsort(-base[q])
            negative = [i for i in order[:negatives + len(positives)] if not is_relevant[i]][:negatives]
            pairs = [x[q, p] - x[q, n] for p in positives for n in negative]
            if pairs:
                differences += pairs
                weights += [1 / len(pairs)] * len(pairs)
    d, sample = np.array(differences), np.array(weights)
    sample /= sample.sum()
    w = np.zeros(d.shape[1])
    w[0], w[1] = 0.6, 0.4  # start from the product's fusion
    for _ in range(epochs):
        margin = d @ w
        gradient = -(d * (sample / (1 + np.exp(margin)))[:, None]).sum(axis=0) + l2 * w
        w -= rate * gradient * 10
    return w


def learned_ranks(scorer: Scorer, w: np.ndarray):
    total = features(scorer) @ w
    ranks = scorer._first_ranks(total)
    return scorer.recall(), ranks


def leave_one_set_out(sets: dict[str, Scorer]) -> None:
    print("\nlinear ranker over", ", ".join(FEATURES))
    names = sorted({name.split("/")[0] for name in sets})
    for held in names + ["(all sets: the weights that would ship)"]:
        train = [s for name, s in sets.items() if not name.startswith(held + "/")]
        w = train_pairs(train)
        cells = []
        for name, scorer in sets.items():
            if held.startswith("(") or name.startswith(held + "/"):
                recall, _ = learned_ranks(scorer, w)
                cells.append(f"{name} " + "/".join(f"{recall[k]:.1f}" for k in CUTOFFS))
        print(f"  held out {held}: " + "; ".join(cells))
        print("    weights " + ", ".join(f"{f} {v:+.2f}" for f, v in zip(FEATURES, w)))
