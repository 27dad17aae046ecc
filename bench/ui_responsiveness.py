"""Is the app responsive? Time to a usable window, and how long the event loop stalls while it indexes and
searches.

    .venv/bin/python bench/ui_responsiveness.py [--chunks 3000] [--default-switch-interval] [--upgrade-seconds N]
                                                [--trace-stalls FILE]

Offscreen. A 5 ms timer runs in the GUI thread for the whole run; a stall is how much later than due a tick
fires. During indexing (synthetic Markdown, rules contexts) the query box types a search every second. Prints
startup time, stall percentiles and the worst stall, and search latency while indexing. The window is a client of
the service it starts (issue 49): the indexing and the models are in the service's process.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import faulthandler  # noqa: E402
import gc  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from synthetic import queries, write_corpus  # noqa: E402

TICK_MS = 5
STALL_TARGET_MS = 50


class StallMeter:
    def __init__(self, phase_now, trace=None):
        self.trace = trace
        self.phase_now = phase_now
        self.by_phase: dict[str, list[int]] = {}
        self.clock = QElapsedTimer()
        self.clock.start()
        self.last = 0
        self.last_cpu = time.thread_time()
        self.stalls: list[int] = []
        self.busy_stalls = 0  # stalls over the target in which the GUI thread itself used the CPU most of the time
        self.timer = QTimer(interval=TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        now = self.clock.elapsed()
        if self.last:
            stall = max(0, now - self.last - TICK_MS)
            self.stalls.append(stall)
            self.by_phase.setdefault(self.phase_now(), []).append(stall)
            cpu_ms = (time.thread_time() - self.last_cpu) * 1000
            if stall > STALL_TARGET_MS and cpu_ms > (stall + TICK_MS) / 2:
                self.busy_stalls += 1
        self.last = now
        self.last_cpu = time.thread_time()
        if self.trace:
            # faulthandler's watchdog is a C thread that needs no GIL: if the next tick is late by more than the
            # target, it writes every thread's Python stack, showing the one that held the GIL at that moment.
            faulthandler.dump_traceback_later((TICK_MS + STALL_TARGET_MS) / 1000, file=self.trace)


class CollectionTimer:
    """How long the cyclic garbage collector's passes take: every pass holds the GIL, whichever thread runs it."""

    def __init__(self):
        self.by_generation: dict[int, list[float]] = {}
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase, info):
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.by_generation.setdefault(info["generation"], []).append(time.perf_counter() - self._started)


def spin(app, condition, timeout_s: float) -> None:
    deadline = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("timed out")
        loop = QEventLoop()
        QTimer.singleShot(20, loop.quit)
        loop.exec()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=3000)
    parser.add_argument("--default-switch-interval", action="store_true",
                        help="keep Python's 5 ms GIL switch interval (the app sets 1 ms)")
    parser.add_argument("--upgrade-seconds", type=int, default=0,
                        help="after indexing, let the LLM upgrade contexts for this long while searching goes on")
    parser.add_argument("--trace-stalls", type=argparse.FileType("w"),
                        help="write every thread's stack to this file whenever the event loop stalls past the target")
    args = parser.parse_args()

    from desktop_rag.config import Settings
    from desktop_rag.service.background_process import stop_answering
    from desktop_rag.ui.app import AppSession, favour_the_window

    app = QApplication(sys.argv[:1])
    if not args.default_switch_interval:
        favour_the_window()  # as the app does
    collections = CollectionTimer()
    with tempfile.TemporaryDirectory() as tmp:
        # The window as a person opens it: a client of the service it starts (issue 49), which indexes and embeds
        # in its own process; what is measured here is the window's event loop while the service works.
        data = Path(tmp) / "data"
        Settings(contexts="rules", llm_upgrade_when_idle=False).save(data)
        session = AppSession(data)
        window = session.window
        window.show()
        spin(app, lambda: window.progress.title.text() != "Ready.", 30)
        startup = time.perf_counter() - STARTED

        vocab = write_corpus(Path(tmp) / "docs", args.chunks)
        phase = ["idle"]
        on_progress = window.progress.on_progress

        upgrading = [False]

        def remember_phase(progress):
            phase[0] = f"LLM upgrade, {progress.phase}" if upgrading[0] else progress.phase
            on_progress(progress)

        window.progress.on_progress = remember_phase
        # In-process, importing torch and loading the model (on a worker thread, started with the window) held the
        # GIL in long stretches: stalls in those first seconds are told apart from those of indexing itself.
        meter = StallMeter(lambda: phase[0] if not window.search.meaning_model_loading
                           else f"{phase[0]}, embedding model loading", args.trace_stalls)
        latencies: list[float] = []
        asked: dict[str, float] = {}

        def ask():
            if window.search.hits is not None and window.progress.control is not None:
                text = " ".join(queries(vocab, 1, seed=len(asked))[0].split()[:2])
                asked[text] = time.perf_counter()
                window.search.query.setText(text)
                window.search.search_now()

        def answered(result):
            if result.query in asked:
                latencies.append(time.perf_counter() - asked.pop(result.query))

        window.search.runner.read = _observe(window.search.runner.read, answered)
        searcher = QTimer(interval=1000)
        searcher.timeout.connect(ask)
        started = time.perf_counter()
        window.add_folder(str(Path(tmp) / "docs"))
        searcher.start()
        spin(app, lambda: window.progress.title.text().startswith("Done"), 3600)
        indexing = time.perf_counter() - started
        upgraded = ""
        if args.upgrade_seconds:
            # The LLM writes chunk contexts (the product's default model) while searches go on, as when the app
            # upgrades in the background; cancelled after the given time, finished steps kept.
            upgrading[0] = True
            window.upgrade_contexts()
            deadline = time.perf_counter() + args.upgrade_seconds
            spin(app, lambda: time.perf_counter() > deadline, args.upgrade_seconds + 60)
            if window.progress.control is not None:
                window.progress.control.cancel()
            spin(app, lambda: window.progress.control is None, 600)
            upgraded = window.progress.title.text()
        searcher.stop()
        meter.timer.stop()
        faulthandler.cancel_dump_traceback_later()
        window.close()
        session.close()
        stop_answering(data, wait_s=30)

    stalls = sorted(meter.stalls)
    def pct(p):
        return stalls[min(len(stalls) - 1, int(p * len(stalls)))]
    print(f"{'startup to a usable window':<44}{startup:>10.2f} s   (target ≤ 2 s)")
    print(f"{'indexing ' + str(args.chunks) + ' chunks (rules contexts)':<44}{indexing:>10.1f} s")
    if upgraded:
        print(f"{'LLM upgrade for ' + str(args.upgrade_seconds) + ' s':<44}{upgraded}")
    print(f"{'event-loop stall p50 / p99 / max':<44}{pct(0.5):>4} / {pct(0.99)} / {stalls[-1]} ms   (target ≤ {STALL_TARGET_MS} ms)")
    for name, values in meter.by_phase.items():
        print(f"{'  stall max while ' + name:<44}{max(values):>10} ms   ({sum(v > STALL_TARGET_MS for v in values)} ticks over {STALL_TARGET_MS} ms)")
    if latencies:
        print(f"{'search while indexing, median / max':<44}{statistics.median(latencies) * 1000:>6.0f} / "
              f"{max(latencies) * 1000:.0f} ms   ({len(latencies)} searches)")
    over = sum(v > STALL_TARGET_MS for v in stalls)
    print(f"{'  stalls over target, GUI thread busy / waiting':<44}{meter.busy_stalls:>10} / {over - meter.busy_stalls}"
          "   (waiting: for the GIL or a CPU)")
    for generation, seconds in sorted(collections.by_generation.items()):
        print(f"{'  garbage collections of generation ' + str(generation):<44}{len(seconds):>10}   "
              f"(longest {max(seconds) * 1000:.0f} ms)")
    print(f"{'torch imported by the app process':<44}{'yes' if 'torch' in sys.modules else 'no':>10}")
    print(f"({os.cpu_count()} cores; offscreen platform)")


def _observe(read, on_result):
    """Wrap the runner's read lane to see search results as they arrive."""
    def observed(work, on_done=None, on_error=None):
        def done(result):
            if hasattr(result, "hits"):
                on_result(result)
            if on_done:
                on_done(result)
        read(work, on_done=done, on_error=on_error)
    return observed


if __name__ == "__main__":
    main()
