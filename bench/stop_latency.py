"""How long a stop takes while a run embeds: Ctrl-C to `desktop-rag index` working in its own process, and
`desktop-rag stop` to the service running the same index. The promise: within a second (Ctrl-C), 2 s (stop). And
kill -9 of that service (a crash): until its last helper is gone (issue 61: no helper outlives its service).

    python bench/stop_latency.py FOLDER [--times 3] [--load 0] [--moments 0.5 1.5 3 5] [--early-times N]

Each time: a fresh data folder, `index FOLDER` started (rules contexts, no LLM); once the catalog says more than 40
chunks are embedded (past the 32 a run embeds while it reads: in its embedding proper) and a random moment of up
to 3 s later, the stop is sent; the time until the process is gone is what a person waits. With `--load N`, N busy
processes load the CPU meanwhile. A folder of text files suits it (read in seconds, embedded in minutes). Then
Ctrl-C at fixed moments of a run's first seconds (EARLY_MOMENTS_S: the reader's child starting, the embedder
loading), with whether `--json` still printed its JSON.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMAND = [sys.executable, "-m", "desktop_rag"]


def _busy(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _embedding_started(data: Path) -> bool:
    try:
        db = sqlite3.connect(f"file:{data / 'catalog.sqlite3'}?mode=ro", uri=True, timeout=1)
        try:
            # Past the first 32, which a run embeds while it reads (to measure the pace): in the embedding proper.
            return db.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 1").fetchone()[0] > 40
        finally:
            db.close()
    except sqlite3.Error:
        return False


def _settings(data: Path) -> None:
    data.mkdir(parents=True, mode=0o700)  # (a data folder others may read is refused)
    (data / "settings.json").write_text(json.dumps({"contexts": "rules", "llm_upgrade_when_idle": False}))


def _wait_for_embedding(data: Path, process: subprocess.Popen) -> bool:
    deadline = time.monotonic() + 900
    while not _embedding_started(data):
        if process.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    time.sleep(random.uniform(0, 3))
    return process.poll() is None


def ctrl_c(folder: Path, base: Path) -> float | None:
    data = base / "ctrl-c"
    _settings(data)
    env = {**os.environ, "DESKTOP_RAG_START_SERVICE": "0"}
    process = subprocess.Popen([*COMMAND, "--data-dir", str(data), "index", str(folder)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not _wait_for_embedding(data, process):
        process.kill()
        return None
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    process.wait()
    return time.monotonic() - sent


EARLY_MOMENTS_S = (0.5, 1.5, 3.0, 5.0)  # after `index` starts: its imports, the reader's start, its first files


def early_ctrl_c(folder: Path, base: Path, after_s: float) -> tuple[float, bool, int]:
    """Ctrl-C `after_s` seconds into `index --json` (its first seconds: the reader's child starting, the embedder
    loading): (seconds until it is gone, whether its output is JSON, its exit code)."""
    data = base / f"early-{after_s}"
    _settings(data)
    process = subprocess.Popen([*COMMAND, "--data-dir", str(data), "index", str(folder), "--json"],
                               env={**os.environ, "DESKTOP_RAG_START_SERVICE": "0"}, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    time.sleep(after_s)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate()
    took = time.monotonic() - sent
    try:
        json.loads(out)
        is_json = True
    except ValueError:
        is_json = False
    return took, is_json, process.returncode


def _service_embedding(folder: Path, data: Path) -> tuple[subprocess.Popen, int] | None:
    """`index FOLDER` handed to a service it starts (detached, as the window's), once the service embeds: the
    `index` following it, and the service's pid; None if it never got there."""
    _settings(data)
    index = subprocess.Popen([*COMMAND, "--data-dir", str(data), "index", str(folder)],
                             env={**os.environ, "DESKTOP_RAG_START_SERVICE": "1"},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not _wait_for_embedding(data, index):
        index.kill()
        return None
    from desktop_rag.service.background_process import who_answers

    pid = (who_answers(data) or {}).get("pid")
    return (index, pid) if pid else None


def service_stop(folder: Path, base: Path) -> float | None:
    started = _service_embedding(folder, base / "service")
    if started is None:
        return None
    index, pid = started
    sent = time.monotonic()
    subprocess.run([*COMMAND, "--data-dir", str(base / "service"), "stop"], capture_output=True)
    while _alive(pid):
        time.sleep(0.02)
    took = time.monotonic() - sent
    index.wait(timeout=60)
    return took


def service_killed(folder: Path, base: Path) -> float | None:
    """kill -9 of the service while it embeds, as a crash would: seconds until the last of its helpers is gone."""
    import psutil

    started = _service_embedding(folder, base / "killed")
    if started is None:
        return None
    index, pid = started
    helpers = [p.pid for p in psutil.Process(pid).children(recursive=True)]
    os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    while any(_alive(helper) for helper in helpers) and time.monotonic() - killed < 120:
        time.sleep(0.02)
    took = time.monotonic() - killed
    index.wait(timeout=60)
    return took


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a child of nobody here: a zombie is gone for a person
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--times", type=int, default=3)
    parser.add_argument("--load", type=int, default=0)
    parser.add_argument("--moments", type=float, nargs="+", default=list(EARLY_MOMENTS_S),
                        help="seconds into `index --json` for the early Ctrl-C")
    parser.add_argument("--early-times", type=int, help="tries of each early moment, alone: the mid-run stops "
                        "skipped (default: --times of both)")
    args = parser.parse_args()
    stop = multiprocessing.Event()
    load = [multiprocessing.Process(target=_busy, args=(stop,), daemon=True) for _ in range(args.load)]
    for process in load:
        process.start()
    rows: dict[str, list[float]] = {"Ctrl-C to `index` (in its process)": [], "`stop` to the service": [],
                                    "kill -9 of the service: helpers gone": []}
    early: dict[float, list[tuple[float, bool, int]]] = {moment: [] for moment in args.moments}
    early_times = args.times if args.early_times is None else args.early_times
    if args.early_times is not None:
        args.times = 0  # (the early moments alone)
    try:
        for _ in range(args.times):
            for label, way in zip(rows, (ctrl_c, service_stop, service_killed)):
                with tempfile.TemporaryDirectory(prefix="desktop-rag-stop-") as base:
                    took = way(args.folder.resolve(), Path(base))
                if took is not None:
                    rows[label].append(took)
        for _ in range(early_times):
            for moment in args.moments:
                with tempfile.TemporaryDirectory(prefix="desktop-rag-stop-") as base:
                    early[moment].append(early_ctrl_c(args.folder.resolve(), Path(base), moment))
    finally:
        stop.set()
    print(f"load {args.load}, {os.cpu_count()} CPUs, {args.times} times each")
    print(f"{'what':40} {'median s':>8} {'worst s':>8}")
    for label, took in rows.items():
        if took:
            print(f"{label:40} {statistics.median(took):>8.2f} {max(took):>8.2f}")
        else:
            print(f"{label:40} {'n/a':>8} {'n/a':>8}")
    for moment, outcomes in early.items():
        took = [t for t, _, _ in outcomes]
        said = f"JSON {sum(j for _, j, _ in outcomes)}/{len(outcomes)}, exit {sorted({c for _, _, c in outcomes})}"
        print(f"{f'Ctrl-C {moment:g} s into `index --json`':40} {statistics.median(took):>8.2f} {max(took):>8.2f}  "
              f"{said}")


if __name__ == "__main__":
    main()
