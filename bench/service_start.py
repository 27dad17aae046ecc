"""Searches from a plain client in the service's first seconds (issue 49): the service is started on a kept
library (its catch-up compares every file with the catalog), and searches are sent one after another from its first
answer for --seconds; each search's start and time are printed, with the p50/p95 and the last search over 60 ms.
`--profile FILE`: py-spy records the service meanwhile (raw stacks by thread: pip install py-spy).

    .venv/bin/python bench/service_start.py DATA_DIR [--seconds 6] [--profile /tmp/spy.txt]

DATA_DIR: a library built beforehand, e.g. by bench/window_client.py --keep (its synthetic vocabulary is the one
searched), with no service running.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import queries, vocabulary

from desktop_rag.service.endpoint import EndpointClient


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--profile", type=Path)
    args = parser.parse_args()
    texts = queries(vocabulary(20_000, random.Random(7)), 1000)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    started = time.perf_counter()
    service = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(args.data_dir), "service"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = None
    while client is None:
        client = EndpointClient.for_library(args.data_dir)
        time.sleep(0.02)
    answering = time.perf_counter() - started
    profiler = None
    if args.profile:
        profiler = subprocess.Popen(["py-spy", "record", "-p", str(service.pid), "-d", str(int(args.seconds)),
                                     "-r", "200", "-f", "raw", "-o", str(args.profile), "--threads"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times: list[tuple[float, float]] = []
    for text in texts:
        if time.perf_counter() - started > answering + args.seconds:
            break
        t = time.perf_counter()
        client.call("search", query=text, limit=20, facets=True)
        times.append((t - started, 1000 * (time.perf_counter() - t)))
    client.close()
    if profiler:
        profiler.wait()
    subprocess.run([sys.executable, "-m", "desktop_rag", "--data-dir", str(args.data_dir), "stop"], env=env,
                   capture_output=True)
    service.wait(60)
    print(f"answering {answering:.2f} s after start; the first search took {times[0][1]:.0f} ms (models loaded)")
    print(" ".join(f"{t:.2f}s:{ms:.0f}" for t, ms in times))
    rest = sorted(ms for _, ms in times[1:])
    if rest:
        slow = [t for t, ms in times[1:] if ms > 60]
        print(f"after the first: {len(rest)} searches, p50 {rest[len(rest) // 2]:.0f} ms, "
              f"p95 {rest[int(0.95 * len(rest))]:.0f} ms; the last over 60 ms at {max(slow, default=0):.2f} s")


if __name__ == "__main__":
    main()
