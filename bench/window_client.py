"""The window as a client of the service (issue 49): a search typed in it, through the endpoint, at N chunks; the
window opened on a service at rest until its first hit; the window closed.

    .venv/bin/python bench/window_client.py [--chunks 10000] [--searches 60] [--rest-seconds 200] [--keep DIR]

Offscreen, a temporary data folder, synthetic Markdown (bench/synthetic.py), rules contexts. The service is started
by the window as a person's would be, indexes the corpus, then: each search is the window's own call
(RemoteLibrary.search, the filter bar's filters and type counts included) timed from the call to the answer; the
window is closed and, after --rest-seconds (past 180 the service has let its models go: at rest), opened again on
the running service and timed to its first hit; after another rest with the window open, closed. The resident memory
of every process (the window's, the service and its children) is taken at the end of each rest: the window
closed, then open. `--keep DIR` builds the library there once and measures it again as it is on later runs (100k
chunks take over an hour to index on 2 cores). Prints a table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop_rag.service.background_process import who_answers

import psutil

sys.path.insert(0, str(Path(__file__).parent))
from idle_service import memory_by_process
from synthetic import queries, vocabulary, write_corpus


def spin(app, condition, seconds: float) -> float:
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > seconds:
            raise SystemExit(f"gave up after {seconds:.0f} s")
        app.processEvents()
        time.sleep(0.01)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=60)
    parser.add_argument("--rest-seconds", type=float, default=0.0, help="wait before opening the window again")
    parser.add_argument("--keep", type=Path, help="build the library in this folder and keep it for later runs")
    args = parser.parse_args()

    from desktop_rag.config import Settings
    from desktop_rag.core.search.filters import SearchFilters
    from desktop_rag.service.background_process import stop_answering
    from desktop_rag.ui.app import AppSession

    app = QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        data, docs = Path(args.keep or tmp) / "data", Path(args.keep or tmp) / "docs"
        kept = (data / "catalog.sqlite3").exists()
        if kept:
            vocab = vocabulary(20_000, random.Random(7))  # write_corpus's own, as it wrote them
        else:
            Settings(contexts="rules", llm_upgrade_when_idle=False).save(data)
            vocab = write_corpus(docs, args.chunks)
        session = AppSession(data)
        session.window.show()
        spin(app, lambda: session.window._started, 300)
        indexing = None
        if not kept:
            session.window.add_folder(str(docs))
            indexing = spin(app, lambda: session.window.progress.title.text().startswith("Done"), 6 * 3600)
        spin(app, lambda: not session.window.search.meaning_model_loading, 300)
        chunks = session.library.reads.counts()["chunks"]

        times = []
        for text in queries(vocab, args.searches):
            started = time.perf_counter()
            session.library.search(text, k=20, filters=SearchFilters(), facets=True)
            times.append(1000 * (time.perf_counter() - started))
        started = time.perf_counter()
        session.window.close()
        session.close()
        closed_s = time.perf_counter() - started

        time.sleep(args.rest_seconds)
        memory_closed = all_processes(data, window_open=False)
        opened = time.perf_counter()
        session = AppSession(data)  # on the running service
        window = session.window
        window.show()
        spin(app, lambda: window._started, 60)
        window.search.query.setText(" ".join(queries(vocab, 1, seed=99)[0].split()[:2]))
        window.search.search_now()
        spin(app, lambda: bool(window.search.hits), 60)
        first_hit_s = time.perf_counter() - opened
        resting_until = time.perf_counter() + args.rest_seconds
        while time.perf_counter() < resting_until:  # the window open, nobody typing: its event loop turns
            app.processEvents()
            time.sleep(0.05)
        memory_open = all_processes(data, window_open=True)
        window.close()
        session.close()
        stop_answering(data, wait_s=30)

    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    indexed = f"{indexing:>9.1f} s" if indexing is not None else "  (kept from an earlier run)"
    print(f"{f'indexing {chunks} chunks through the service':<52}{indexed}")
    print(f"{'a search from the window, p50 / p95':<52}{statistics.median(times):>6.0f} / {p95:.0f} ms   "
          "(target p95 ≤ 60 ms)")
    print(f"{f'the window opened again after {args.rest_seconds:g} s: first hit':<52}{first_hit_s:>9.2f} s   "
          "(target ≤ 1.5 s at rest)")
    print(f"{'the window closed':<52}{closed_s:>9.2f} s   (target ≤ 0.5 s)")
    print(f"\nresident memory (MB) after {args.rest_seconds:g} s at rest{'the window closed':>24}{'open':>10}")
    for name in sorted(set(memory_closed) | set(memory_open)):
        print(f"{name[:60]:<60}{memory_closed.get(name, 0):>9.0f}{memory_open.get(name, 0):>10.0f}")
    print(f"{'all processes':<60}{sum(memory_closed.values()):>9.0f}{sum(memory_open.values()):>10.0f}")


def all_processes(data: Path, window_open: bool) -> dict[str, float]:
    """MB by process: the service and its children (named by role, not pid: the two columns line up), and the
    window's process (this one) when it is open."""
    hello = who_answers(data)
    assert hello is not None, "the service does not answer"
    found = {" ".join(name.split()[1:]): mb for name, mb in memory_by_process(psutil.Process(hello["pid"])).items()}
    if window_open:
        found["the window (this process)"] = psutil.Process().memory_info().rss / 2**20
    return found

if __name__ == "__main__":
    main()
