"""Index throughput by stage and search latency at 10k and 100k chunks, with peak memory.

    .venv/bin/python bench/index_search.py                  # 10k and 100k chunks
    .venv/bin/python bench/index_search.py --sizes 10000 --embed-all

Each size runs in its own process (so peak memory is that size's). Embedding 100k chunks for real takes ~15 min
on 2 cores; by default only --embed-sample chunks, spread over the library, are embedded by the model and the
rest get a real vector of a random sampled chunk plus noise (normalised), which keeps the index's size and
clustering realistic for search latency. The embed rate reported is always the model's own. Rerank latency uses a cross-encoder of
the ms-marco-MiniLM-L-6 shape (6 layers, 384 wide) with random weights: the same compute as the real one, which
no package ships.

Filtered search: half the files sit in a folder "half" (a broad filter, `in:half`), and one in a hundred is a
`.py` file (a narrow one, `type:code`: 1% of the chunks). Both are timed as hybrid searches, beside the unfiltered.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # its random-weight cross-encoder

import numpy as np

from documents import write_random_cross_encoder
from synthetic import queries, write_corpus


class SampledEmbedder:
    """The real embedder for the first `sample` texts, then sampled real vectors plus noise (see module doc)."""

    def __init__(self, real, sample: int, total: int, seed: int = 3):
        self.real, self.sample = real, sample
        self.stride, self.seen = max(1, total // max(1, sample)), 0
        self.bank: list[np.ndarray] = []
        self.model_seconds = 0.0
        self.model_texts = 0
        self.rng = np.random.default_rng(seed)
        self.model_path, self.name = real.model_path, real.name

    def embed(self, texts):
        # The model's own vectors go to chunks spread over the whole library (every `stride`-th text), not to
        # the first ones indexed: those are one folder's, and a folder filter would then find the query's
        # neighbours all outside it (or all inside), which no real library does for every query.
        real_rows = [i for i in range(len(texts)) if (self.seen + i) % self.stride == 0 or (i == 0 and not self.bank)]
        real_rows = real_rows[:max(0, self.sample - self.model_texts)]
        self.seen += len(texts)
        vectors = np.empty((len(texts), 0), dtype=np.float32)
        if real_rows:
            t0 = time.perf_counter()
            real = self.real.embed([texts[i] for i in real_rows])
            self.model_seconds += time.perf_counter() - t0
            self.model_texts += len(real_rows)
            self.bank.extend(real)
            vectors = np.zeros((len(texts), real.shape[1]), dtype=np.float32)
            vectors[real_rows] = real
        taken = set(real_rows)
        rest = [i for i in range(len(texts)) if i not in taken]
        if rest:
            base = np.stack([self.bank[i] for i in self.rng.integers(0, len(self.bank), len(rest))])
            noisy = base + self.rng.normal(0, 0.05, base.shape).astype(np.float32)
            if vectors.shape[1] == 0:
                vectors = np.zeros((len(texts), base.shape[1]), dtype=np.float32)
            vectors[rest] = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
        return vectors

    def embed_query(self, text):
        return self.real.embed_query(text)


def spread(folder: Path) -> None:
    """Half the files into the folder "half", one in a hundred made a .py file (see the module doc)."""
    (folder / "half").mkdir()
    for number, path in enumerate(sorted(folder.glob("*.md"))):
        target = folder / "half" / path.name if number % 2 else path
        if number % 100 == 0:
            target = target.with_suffix(".py")
        if target != path:
            path.rename(target)


def percentile(values, q):
    return float(np.percentile(np.asarray(values) * 1000, q))


def run_size(size: int, embed_sample: int, query_count: int) -> dict:
    from desktop_rag.config import Settings
    from desktop_rag.core.library.library import Library
    from desktop_rag.core.search.filters import make_filters

    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        tmp = Path(tmp)
        vocab = write_corpus(tmp / "docs", size)
        spread(tmp / "docs")
        reranker_dir = write_random_cross_encoder(tmp / "reranker", hidden=384, layers=6)
        library = Library(tmp / "data", Settings(rerank_model=str(reranker_dir)))
        sampled = SampledEmbedder(library.embedder, embed_sample, size)
        library.__dict__["embedder"] = sampled  # replaces the cached property for this run only
        t0 = time.perf_counter()
        summary = library.index([tmp / "docs"], contexts="rules")
        wall = time.perf_counter() - t0
        chunks = summary.chunks
        phase = summary.phase_seconds
        embed_rate = sampled.model_texts / sampled.model_seconds if sampled.model_seconds else 0.0
        row = {
            "chunks": chunks,
            "files": summary.indexed,
            "index_wall_s": round(wall, 1),
            "parse_chunk_per_s": round(chunks / phase["parse"], 0) if phase["parse"] else None,
            "rules_context_per_s": round(chunks / phase["contextualize"], 0) if phase["contextualize"] else None,
            "embed_model_per_s": round(embed_rate, 1),
            "embedded_by_model": sampled.model_texts,
            "embed_phase_s": round(phase["embed"], 1),
            "bm25_build_s": round(phase["index"], 1),
            "precision": getattr(library.embedder.real, "effective_precision", "?"),
        }
        texts = queries(vocab, query_count)
        library.search(texts[0])  # warm: loads the bm25 index and the query path
        filters = {"": None, "+broad": make_filters(folders=["half"]), "+narrow": make_filters(types=["code"])}
        for name, one in list(filters.items())[1:]:
            row[f"chunks_in{name}"] = len(library.catalog.filters.filtered_chunk_ids(one))
        for mode, rerank, name in (("hybrid", False, ""), ("hybrid", False, "+broad"), ("hybrid", False, "+narrow"),
                                   ("dense", False, ""), ("bm25", False, ""), ("hybrid", True, "")):
            if rerank:
                library.search(texts[0], rerank=True)  # load the cross-encoder outside the timing
            timings = []
            for q in texts if not rerank else texts[: max(20, query_count // 5)]:
                t = time.perf_counter()
                library.search(q, k=10, mode=mode, rerank=rerank, filters=filters[name])
                timings.append(time.perf_counter() - t)
            label = mode + ("+rerank" if rerank else "") + name
            row[f"{label}_p50_ms"] = round(percentile(timings, 50), 1)
            row[f"{label}_p95_ms"] = round(percentile(timings, 95), 1)
        row["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0)
        library.close()
        return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--embed-sample", type=int, default=10_000, help="chunks embedded by the model per size")
    parser.add_argument("--embed-all", action="store_true", help="embed every chunk with the model (slow)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sample = args.child if args.embed_all else args.embed_sample
        print(json.dumps(run_size(args.child, sample, args.queries)))
        return
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        command = [sys.executable, __file__, "--child", str(size), "--embed-sample", str(args.embed_sample),
                   "--queries", str(args.queries)] + (["--embed-all"] if args.embed_all else [])
        print(f"running {size} chunks…", file=sys.stderr)
        out = subprocess.run(command, capture_output=True, text=True)
        if out.returncode != 0:
            sys.stderr.write(out.stderr)
            raise SystemExit(out.returncode)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    keys = list(rows[0])
    width = max(len(k) for k in keys)
    print(f"{'metric':<{width}}  " + "  ".join(f"{r['chunks']:>10}" for r in rows))
    for key in keys:
        print(f"{key:<{width}}  " + "  ".join(f"{r[key]!s:>10}" for r in rows))
    print(f"\nmachine: {_machine()}")


def _machine() -> str:
    import os
    import platform

    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


if __name__ == "__main__":
    main()
