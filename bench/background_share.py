"""The CPU the background service takes from the person's own programs: while it embeds a folder, N busy
processes of another session (a compile in a terminal, say) run beside it; the CPU each side got is measured,
then the time a person's searches take meanwhile (through the service, as the window asks).

    python bench/background_share.py FOLDER [--load 4] [--seconds 20]

The service is started as the window starts it (detached: a session of its own), through `index FOLDER`. Linux
shares the CPU between sessions first (autogroup) and a nice counts only within one: what a background service
yields depends on its session's nice, which the table shows beside the shares. A folder of text files suits it
(read in seconds, embedded in minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

COMMAND = [sys.executable, "-m", "desktop_rag"]
BUSY = "while True: pass"


def _cpu(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def _family(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


QUERIES = ("pump seal pressure", "turbine bearing lubricant", "relay fuse breaker", "boiler condenser duct",
           "gasket flange coupling", "compressor refrigerant filter")


def _searches(data: Path, times: int) -> list[float]:
    """Seconds for each of `times` hybrid searches through the service (the window's way), while it embeds."""
    from desktop_rag.service.endpoint import EndpointClient

    from desktop_rag.errors import NoIndexError

    client = EndpointClient.for_library(data)
    took = []
    try:
        for _ in range(600):  # (the run's first passages searchable)
            try:
                client.call("search", query=QUERIES[0], limit=10)
                break
            except NoIndexError:
                time.sleep(0.5)
        for n in range(times):
            asked = time.monotonic()
            client.call("search", query=QUERIES[n % len(QUERIES)], limit=10)
            took.append(time.monotonic() - asked)
            time.sleep(0.5)
    finally:
        client.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--load", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--searches", type=int, default=10, help="searches timed after the share is measured")
    args = parser.parse_args()
    from desktop_rag.service.background_process import who_answers

    with tempfile.TemporaryDirectory(prefix="desktop-rag-share-") as base:
        data = Path(base) / "data"
        data.mkdir(mode=0o700)
        (data / "settings.json").write_text(json.dumps({"contexts": "rules", "llm_upgrade_when_idle": False}))
        busy = [subprocess.Popen([sys.executable, "-c", BUSY], start_new_session=True) for _ in range(args.load)]
        index = subprocess.Popen([*COMMAND, "--data-dir", str(data), "index", str(args.folder.resolve())],
                                 env={**os.environ, "DESKTOP_RAG_START_SERVICE": "1"},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 600
            hello = None
            while hello is None and time.monotonic() < deadline:
                time.sleep(0.5)
                hello = who_answers(data)
            if hello is None:
                raise SystemExit("the service did not answer in 10 minutes")
            time.sleep(5)  # (its reader and embedder started: the run in its stride)
            loops = [psutil.Process(p.pid) for p in busy]
            service, loops_before, started = _cpu(_family(hello["pid"])), _cpu(loops), time.monotonic()
            time.sleep(args.seconds)
            family = _family(hello["pid"])
            wall = time.monotonic() - started
            service_cores = (_cpu(family) - service) / wall
            loops_cores = (_cpu(loops) - loops_before) / wall
            searches = _searches(data, args.searches)
            group = Path(f"/proc/{hello['pid']}/autogroup")
            session = group.read_text().strip() if group.exists() else "(no autogroup)"
            nice = psutil.Process(hello["pid"]).nice()
        finally:
            subprocess.run([*COMMAND, "--data-dir", str(data), "stop"], capture_output=True)
            index.wait(timeout=120)
            for process in busy:
                process.kill()
    print(f"{os.cpu_count()} CPUs, {args.load} busy processes of another session, {args.seconds:g} s while it embeds")
    print(f"{'service nice':>12} {'its session':>24} {'service cores':>14} {'busy loops cores':>17} "
          f"{'search median s':>16} {'worst s':>8}")
    print(f"{nice:>12} {session:>24} {service_cores:>14.2f} {loops_cores:>17.2f} "
          f"{statistics.median(searches):>16.2f} {max(searches):>8.2f}")


if __name__ == "__main__":
    main()
