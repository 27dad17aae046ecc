"""What embedding a chunk costs by its length, in word pieces: the shape the run's ETA plans with (run_meter.py).

    python bench/embedding_cost.py DATA_DIR [--per-bin 128] [--rounds 3]

DATA_DIR is a library indexed from real files (its catalog's chunks are used as they are, with their contexts).
Chunks are put in bins by their word pieces; each bin's chunks are embedded as a run embeds them (their windows, the
app's embedder in this process, `embed_batch_size` at a time), the bins taken in turn each round, so a machine's
noise falls on all of them alike. Prints ms per chunk per bin (the median of the rounds), then the line
ms = a + b × pieces fitted through the bins, and a / b: a chunk's fixed cost, in pieces.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

BINS = [(1, 16), (17, 48), (49, 96), (97, 160), (161, 10_000)]


def chunks_by_bin(catalog: Path, per_bin: int) -> dict[tuple[int, int], list[tuple[str, str]]]:
    db = sqlite3.connect(f"file:{catalog}?mode=ro", uri=True)
    found = {}
    for low, high in BINS:
        found[(low, high)] = db.execute(
            "SELECT COALESCE(x.text, ''), c.text FROM chunks c LEFT JOIN contexts x ON x.chunk_id = c.id "
            "WHERE c.token_count BETWEEN ? AND ? ORDER BY c.id LIMIT ?", (low, high, per_bin)).fetchall()
    db.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--per-bin", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from desktop_rag.config import Settings
    from desktop_rag.core.dense.dense_text import dense_windows_of
    from desktop_rag.core.dense.embedding import shared_embedder
    from desktop_rag.core.dense.tokens import embedding_model_path, token_counter

    settings = Settings.load(args.data_dir)
    model = embedding_model_path(settings.embedding_model)
    counter = token_counter(model)
    embedder = shared_embedder(model, settings.embedding_precision, settings.embed_batch_size)
    embedder.embed(["warm up"])
    bins = {key: pairs for key, pairs in chunks_by_bin(args.data_dir / "catalog.sqlite3", args.per_bin).items()
            if pairs}
    shape = {}
    for key, pairs in bins.items():
        pieces = counter.count([f"{context}\n\n{text}".strip() for context, text in pairs])
        shape[key] = (statistics.mean(pieces), statistics.mean(len(c) + len(t) for c, t in pairs))
    took: dict[tuple[int, int], list[float]] = {key: [] for key in bins}
    for _ in range(args.rounds):
        for key, pairs in bins.items():
            t0 = time.perf_counter()
            texts = [window for windows in dense_windows_of(pairs, counter) for window in windows]
            embedder.embed(texts)
            took[key].append((time.perf_counter() - t0) * 1000 / len(pairs))

    print(f"{'pieces':>10} {'chunks':>6} {'mean pieces':>11} {'mean chars':>10} {'ms/chunk':>8} {'µs/char':>7}")
    points = []
    for key, pairs in bins.items():
        ms = statistics.median(took[key])
        mean_pieces, mean_chars = shape[key]
        points.append((mean_pieces, ms))
        print(f"{key[0]:>4}–{key[1]:<5} {len(pairs):>6} {mean_pieces:>11.0f} {mean_chars:>10.0f} {ms:>8.1f} "
              f"{ms * 1000 / mean_chars:>7.0f}")
    slope, intercept = statistics.linear_regression([p for p, _ in points], [ms for _, ms in points])
    print(f"fit: ms per chunk = {intercept:.2f} + {slope:.4f} × pieces; a chunk's fixed cost = "
          f"{intercept / slope:.0f} pieces")


if __name__ == "__main__":
    main()
