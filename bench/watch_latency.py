"""Folder watching: time from saving a file to finding it by search, and the cost of the reconciliation scan.

    .venv/bin/python bench/watch_latency.py                 # 10,000 files, 10 saves of each kind
    .venv/bin/python bench/watch_latency.py --files 2000 --saves 5

Builds a library of small Markdown files (one or two chunks each, rules contexts), then:
- reconciliation: `index` over the folder with nothing changed (what the app and `watch` do on start);
- save → searchable: with the watcher feeding a write lane (`WriteLane`, as `desktop-rag watch` runs it), a new file and an
  edit to an existing one, each with a word found nowhere else; the clock stops when a hybrid search returns the
  file (so its vector and its BM25 entry are both in). Target: ≤ 3 s.
Prints one table; machine load matters, so run it on a quiet machine or read the figures as ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_rag.config import Settings
from desktop_rag.core.library.library import Library
from desktop_rag.core.runs.lane import WriteLane
from desktop_rag.core.watching.watch import feeding


def write_files(folder: Path, count: int) -> None:
    for i in range(count):
        sub = folder / f"part{i // 1000:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note{i:05d}.md").write_text(
            f"# Note {i}\n\nMeeting note number {i} about project {i % 97} and budget line {i % 13}.\n")


def time_until_found(library: Library, word: str, path: Path, timeout: float = 60.0) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        hits = library.search(word, k=3, mode="hybrid").hits
        if hits and hits[0].path == str(path) and word in hits[0].text:
            return time.perf_counter() - started
        time.sleep(0.02)
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--saves", type=int, default=10)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-watch-") as tmp:
        folder = Path(tmp) / "notes"
        write_files(folder, args.files)
        library = Library(Path(tmp) / "data", Settings(contexts="rules", llm_upgrade_when_idle=False))
        library.load_embedding_model()  # load the model before any clock runs
        t0 = time.perf_counter()
        first = library.index([folder])
        first_seconds = time.perf_counter() - t0

        rescans = []
        for _ in range(3):
            t0 = time.perf_counter()
            summary = library.index([folder])
            rescans.append(time.perf_counter() - t0)
            assert summary.unchanged == args.files and summary.indexed == 0

        batches = []
        lane = WriteLane(library, upgrade="never", on_batch=lambda batch, summary: batches.append(summary))
        watching = feeding(lane, [folder])
        watching.__enter__()  # changes from now on are seen
        lane.start()
        created, edited = [], []
        for n in range(args.saves):
            path = folder / "new" / f"fresh{n}.md"
            path.parent.mkdir(exist_ok=True)
            word = f"zyxnew{n}q"
            path.write_text(f"# Fresh {n}\n\nThe word {word} appears only here.\n")
            created.append(time_until_found(library, word, path))
            path = folder / "part00" / f"note{n:05d}.md"
            word = f"zyxedit{n}q"
            path.write_text(path.read_text() + f"\nEdited: {word}.\n")
            edited.append(time_until_found(library, word, path))
        lane.stop()
        lane.join()
        watching.__exit__(None, None, None)
        library.close()

    apply_seconds = [s.seconds for s in batches]
    index_phase = [s.phase_seconds["index"] for s in batches]
    rows = [
        ("files / chunks", f"{args.files} / {first.chunks}"),
        ("first index (s)", f"{first_seconds:.1f}"),
        ("reconciliation scan, nothing changed (s)", " / ".join(f"{s:.2f}" for s in rescans)),
        ("save → searchable, new file (s): median / max", f"{statistics.median(created):.2f} / {max(created):.2f}"),
        ("save → searchable, edited file (s): median / max", f"{statistics.median(edited):.2f} / {max(edited):.2f}"),
        ("batches applied", f"{len(batches)}"),
        ("apply one batch (s): median", f"{statistics.median(apply_seconds):.2f}"),
        ("  of which keyword index rebuild (s): median", f"{statistics.median(index_phase):.2f}"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
