"""The background service at rest: the memory of all its processes while it waits, and how long a search takes
after it has waited, then the next ones (issue 40; target: ≤ 300 MB idle at 100k chunks, first search ≤ 1.5 s).

    .venv/bin/python bench/idle_service.py                       # 10,000 chunks
    .venv/bin/python bench/idle_service.py --files 50000 --idle 300
    .venv/bin/python bench/idle_service.py --files 15000 --keep /tmp/idle-100k   # 105k chunks, kept for reruns

Builds a library of small Markdown files (about two chunks each, rules contexts) with `desktop-rag index`, starts
`desktop-rag service` on it as a user's session would, and measures from outside: after the catch-up, the RSS of
the service and each of its child processes (the embedding model, the reader, the vector store) while nothing
happens, sampled for `--idle` seconds; then searches through the endpoint, as `desktop-rag search` and the quick
popup ask them (the popup asks the service to prepare as it opens, a second before the first search). Prints one
table; run it on a quiet machine or read the figures as ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_rag.service.endpoint import EndpointClient

TYPING_S = 1.0  # a person typing a few words into the quick popup after it opened
QUERIES = ["budget line for project", "meeting note about the harbour", "project 12 invoice", "note 4711",
           "what was decided about the budget"]


def write_files(folder: Path, count: int) -> None:
    for i in range(count):
        sub = folder / f"part{i // 1000:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note{i:06d}.md").write_text(
            f"# Note {i}\n\nMeeting note number {i} about project {i % 97}, the harbour works and budget line "
            f"{i % 13}. " * 6 + f"\n\n## Decisions\n\nWe decided to move item {i % 31} to the next quarter. " * 6)


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), *args],
                          capture_output=True, text=True, check=True)


def memory_by_process(root: psutil.Process) -> dict[str, float]:
    """MB of resident memory of the service and each child, named as `ps` shows them."""
    found = {}
    for process in [root, *root.children(recursive=True)]:
        try:
            name = " ".join(process.cmdline()[-1:]) if process is root else process.name()
            found[f"{process.pid} {name}"] = process.memory_info().rss / 2**20
        except psutil.Error:
            continue
    return found


def timed_search(data_dir: Path, query: str) -> float:
    started = time.perf_counter()
    client = EndpointClient.for_library(data_dir)
    assert client is not None, "the service does not answer"
    try:
        client.call("search", query=query, limit=10)
    finally:
        client.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=5_000, help="files (about two chunks each)")
    parser.add_argument("--idle", type=float, default=120.0, help="seconds of rest sampled")
    parser.add_argument("--keep", type=Path, help="build the library in this folder and keep it; a library built "
                        "there before is measured again as it is (indexing takes ~30 min at 100k chunks)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-idle-") as tmp:
        tmp = str(args.keep or tmp)
        folder, data_dir = Path(tmp) / "notes", Path(tmp) / "data"
        t0 = time.perf_counter()
        if not (data_dir / "catalog.sqlite3").exists():
            write_files(folder, args.files)
            cli(data_dir, "settings", "contexts", "rules")
            cli(data_dir, "index", str(folder))
        indexed_s = time.perf_counter() - t0
        chunks = json.loads(cli(data_dir, "stats", "--json", "--local").stdout)["chunks"]
        log = open(Path(tmp) / "service.log", "w")  # noqa: SIM115 — open for the service's whole life
        service = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "service"],
                                   stdout=log, stderr=subprocess.STDOUT)
        try:
            while "Watching" not in (Path(tmp) / "service.log").read_text():
                time.sleep(0.2)
            root = psutil.Process(service.pid)
            rested = rest(root, args.idle)
            first = timed_search(data_dir, QUERIES[0])
            next_ones = [timed_search(data_dir, q) for q in QUERIES[1:] * 3]
            used = memory_by_process(root)
            rested_again = rest(root, max(args.idle, 200.0))  # past the service's release of the model (180 s)
            after_rest = timed_search(data_dir, QUERIES[1])
            rest(root, max(args.idle, 200.0))
            prepared = prepared_search(data_dir, QUERIES[2])
        finally:
            service.terminate()
            service.wait(timeout=30)
            log.close()

    columns = {"at rest": rested[-1], "after searches": used, "rested again": rested_again[-1]}
    print(f"\n{args.files:,} files, {chunks:,} chunks (rules contexts), indexed in {indexed_s:.0f} s; "
          f"rests of {args.idle:.0f} s and {max(args.idle, 200.0):.0f} s sampled every 2 s")
    print(f"{'process (RSS, MB)':<34}" + "".join(f"{name:>16}" for name in columns))
    for process in sorted(set().union(*columns.values())):
        print(f"{process[:34]:<34}" + "".join(f"{column.get(process, 0):>16.0f}" for column in columns.values()))
    print(f"{'all of the service':<34}" + "".join(f"{sum(c.values()):>16.0f}" for c in columns.values()))
    print(f"first search (models loaded on demand): {first * 1000:.0f} ms; next {len(next_ones)}: median "
          f"{statistics.median(next_ones) * 1000:.0f} ms, max {max(next_ones) * 1000:.0f} ms; first after the "
          f"second rest: {after_rest * 1000:.0f} ms (each with a new connection, as a CLI search makes)")
    print(f"after a third rest, as the quick popup asks (prepare_search as it opens, the search {TYPING_S:.1f} s "
          f"later): {prepared * 1000:.0f} ms from the keystroke")


def prepared_search(data_dir: Path, query: str) -> float:
    client = EndpointClient.for_library(data_dir)
    assert client is not None, "the service does not answer"
    try:
        client.call("prepare_search")
    finally:
        client.close()
    time.sleep(TYPING_S)
    return timed_search(data_dir, query)


def rest(root: psutil.Process, seconds: float) -> list[dict[str, float]]:
    samples, started = [], time.monotonic()
    while time.monotonic() - started < seconds:
        samples.append(memory_by_process(root))
        time.sleep(2.0)
    return samples


if __name__ == "__main__":
    main()
