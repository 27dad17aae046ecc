"""The first indexing of a home folder, as the app runs it: when is every file searchable by its words, and when
by meaning; how fast each phase goes; the peak memory of each process; search latency and the app's stalls while
it runs (issue 24).

    python bench/first_index.py [--chunks 10000] [--precision auto] [--no-bf16] [--minutes M] [--folder DIR]

The folder comes from bench/home_folder.py (~10 chunks per file; reused if already written). The run is the app's:
a Library with its parts in child processes (models, reader, vector store), default settings but rules contexts
(the LLM is a later upgrade), indexing on a worker thread while this thread does what the window's event loop
does (wakes every 10 ms; a late wake-up is a stall) and another thread searches every 2 s, keyword-only and hybrid,
as a person would. `--no-bf16`: torch may not use the CPU's bfloat16 or AVX-512 (`ATEN_CPU_CAPABILITY=avx2`,
`ONEDNN_MAX_CPU_ISA=AVX2`, `MKL_ENABLE_INSTRUCTIONS=AVX2`), standing for an ordinary laptop; ONNX Runtime (the int8
default) has no such switch and uses what the CPU has. `--minutes`: stop the run then (Cancel), for a 100k-chunk
library whose embedding takes hours: the table then gives what was done and the rate.

Runs against whichever desktop_rag is importable first (PYTHONPATH=/path/to/an/older/checkout to measure it).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

AVX2_ONLY = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


class Watcher:
    """Samples, once a second: chunks in the keyword index, chunks embedded, each process's memory."""

    def __init__(self, library):
        import psutil

        self.library, self.me = library, psutil.Process()
        self.samples: list[tuple[float, int, int, int]] = []  # (t, chunks, keyword chunks, embedded)
        self.peaks: dict[int, int] = {}  # pid → peak RSS
        self.stop = threading.Event()
        self.started = time.perf_counter()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from desktop_rag.storage.catalog import Catalog

        self.catalog = Catalog(self.library.catalog.path)  # its own connection: never waits behind the run's
        while not self.stop.wait(1.0):
            self.sample()

    def sample(self) -> None:
        import psutil

        try:
            keyword = len(self.library.keywords) if self.library.keywords.exists else 0
        except Exception:  # being rebuilt
            keyword = self.samples[-1][2] if self.samples else 0
        chunks = self.catalog.chunk_count()
        self.samples.append((time.perf_counter() - self.started, chunks, keyword,
                             chunks - self.catalog.count_pending_embeddings()))
        for process in [self.me, *self.me.children(recursive=True)]:
            try:
                self.peaks[process.pid] = max(self.peaks.get(process.pid, 0), process.memory_info().rss)
            except psutil.Error:
                pass

    def finish(self) -> None:
        self.stop.set()
        self.thread.join()
        self.sample()  # the state the run ended in
        self.catalog.close()

    def first_time(self, column: int, total: int) -> float | None:
        return next((s[0] for s in self.samples if s[column] >= total > 0), None)


def searcher_thread(library, queries: list[str], stop: threading.Event, timings: dict) -> threading.Thread:
    def run():
        n = 0
        while not stop.wait(2.0):
            query = queries[n % len(queries)]
            mode = ("bm25", "hybrid")[n % 2]
            started = time.perf_counter()
            try:
                library.search(query, k=10, mode=mode)
            except Exception:  # nothing indexed yet
                continue
            finally:
                n += 1
            timings.setdefault(mode, []).append(time.perf_counter() - started)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def labels(library) -> dict[int, str]:
    """The app's children by what they do (their pids, where started)."""
    found = {os.getpid(): "app (main)"}
    for part, label in (("embedder", "embedding model"), ("document_reader", "reader"), ("vectors", "vector store")):
        child = getattr(library.__dict__.get(part), "_child", None)
        process = getattr(child, "_process", None)
        if process is not None and process.pid:
            found[process.pid] = label
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--precision", default="auto", help="embedding_precision: auto, int8, bfloat16, float32")
    parser.add_argument("--no-bf16", action="store_true")
    parser.add_argument("--minutes", type=float, default=0.0, help="cancel the run after this long (0: never)")
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "desktop-rag-home-folder")
    args = parser.parse_args()
    if args.no_bf16:
        if args.precision == "bfloat16":
            raise SystemExit("--no-bf16 and --precision bfloat16 contradict each other")
        os.environ.update(AVX2_ONLY)  # before torch loads, in this process and the children it starts
        # and torch says the CPU has no bfloat16 (an older checkout's "auto" would take it otherwise)
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "no_bf16"), os.environ.get("PYTHONPATH")]))
    os.environ["HF_HUB_OFFLINE"] = "1"

    from home_folder import write_home_folder

    folder = args.folder / f"{args.chunks}"
    t = time.perf_counter()
    manifest = write_home_folder(folder, args.chunks)
    print(f"folder {folder}: {sum(manifest['files'].values()):,} files ({time.perf_counter() - t:.0f} s to write "
          "or find)", flush=True)

    from dataclasses import fields

    from desktop_rag.config import Settings
    from desktop_rag.core.library.library import Library
    from desktop_rag.core.progress.control import RunControl

    options = {"contexts": "rules"}
    if "embedding_precision" in {f.name for f in fields(Settings)}:
        options["embedding_precision"] = args.precision
    elif args.precision != "auto":
        raise SystemExit("this checkout has no embedding_precision setting: --precision auto only")
    with tempfile.TemporaryDirectory(prefix="first-index-") as data:
        library = Library(Path(data), Settings(**options), child_processes=True)
        control = RunControl()
        watcher = Watcher(library)
        stop, timings = threading.Event(), {}
        searcher = searcher_thread(library, [manifest["marker"], "quarterly revenue forecast", "会議の議事録",
                                             "database backup password", "mortgage insurance pension"], stop,
                                   timings)
        result = {}
        worker = threading.Thread(target=lambda: result.update(summary=library.index([folder], control=control)))
        started = time.perf_counter()
        worker.start()
        lateness = []  # (how late, when)
        while worker.is_alive():  # what the window's event loop does: wake up often, and notice a late wake-up
            before = time.perf_counter()
            time.sleep(0.01)
            lateness.append((time.perf_counter() - before - 0.01, before - started))
            if args.minutes and time.perf_counter() - started > args.minutes * 60 and not control.cancelled:
                control.cancel()
        wall = time.perf_counter() - started
        stop.set()
        searcher.join()
        watcher.finish()
        summary = result["summary"]
        names = labels(library)
        precision = getattr(library.embedder, "effective_precision", "?")
        library.close()

    last = watcher.samples[-1] if watcher.samples else (0, 0, 0, 0)
    chunks = last[1]
    phase = summary.phase_seconds
    worst = max(lateness or [(0.0, 0.0)])
    keyword_all = watcher.first_time(2, chunks)
    meaning_all = watcher.first_time(3, chunks)
    rows = [
        ("machine", f"{os.cpu_count()} cores" + (", torch held to AVX2 (no bf16)" if args.no_bf16 else "")),
        ("embedding", f"{precision}"),
        ("files / chunks", f"{summary.indexed:,} files ({summary.inside:,} inside them) / {chunks:,} chunks"
                           + (" (cancelled)" if summary.cancelled else "")),
        ("every file keyword-searchable", _minutes(keyword_all)),
        ("every chunk searchable by meaning", _minutes(meaning_all)),
        ("run wall time", _minutes(wall)),
        ("files read at end", f"{summary.indexed:,} of {sum(manifest['files'].values()) + 1:,}"),
        ("of their chunks: keyword / meaning", f"{last[2] / max(chunks, 1):.0%} / {last[3] / max(chunks, 1):.0%}"),
        ("parse+rules chunks/s", _rate(chunks, phase["parse"] + phase["contextualize"])),
        ("keyword index s (all builds)", f"{phase['index']:.0f}"),
        ("embed chunks/s", _rate(summary.embedded, phase["embed"])),
        ("search p50/p95 ms, keywords", _latency(timings.get("bm25"))),
        ("search p50/p95 ms, hybrid", _latency(timings.get("hybrid"))),
        ("stalls: wake-ups late >100 ms, worst",
         f"{sum(1 for late, _ in lateness if late > 0.1)} of {len(lateness):,}; worst {worst[0] * 1000:.0f} ms at "
         f"{worst[1]:.0f} s"),
    ]
    for pid, peak in sorted(watcher.peaks.items(), key=lambda item: -item[1]):
        rows.append((f"peak RSS MB, {names.get(pid, 'another child (resource tracker)')}", f"{peak / 2**20:.0f}"))
    rows.append(("peak RSS MB, this process (ru_maxrss)", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print("timeline (min: keyword %, meaning %): " + ", ".join(
        f"{s[0] / 60:.0f}: {s[2] / max(chunks, 1):.0%} {s[3] / max(chunks, 1):.0%}"
        for s in watcher.samples[::max(1, len(watcher.samples) // 12)]))


def _minutes(seconds: float | None) -> str:
    return "not reached" if seconds is None else f"{seconds / 60:.1f} min ({seconds:.0f} s)"


def _rate(count: int, seconds: float) -> str:
    return f"{count / seconds:.1f}" if seconds else "-"


def _latency(values: list[float] | None) -> str:
    if not values:
        return "-"
    return f"{percentile(values, 50) * 1000:.0f} / {percentile(values, 95) * 1000:.0f} (n={len(values)})"


if __name__ == "__main__":
    main()
