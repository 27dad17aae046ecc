"""A person's first hour with the app (issue 37), on a folder you point it at: the window as the app runs it
(AppSession: Chroma, the models and the reader in child processes), offscreen unless a display is given, default
settings unless you change them. A query is typed before the folder is added; then the folder is added, as a
person would, and this prints what the window said and when:

    .venv/bin/python bench/first_hour.py FOLDER [--query heron] [--idle-seconds 60] [--load 0] [--quit-at S]
                                                [--settings key=value ...] [--keep DATA_DIR]

- the first hit: when the query typed beforehand showed a hit by itself (never retyped);
- every file keyword-searchable: when the run's last keyword rebuild after the last file was read ended;
- every file by meaning: when the embedding ended (the run's "Done");
- the bar: whether it ever went back, and the ETA it showed against the truth (the run's real end), from 20% on;
- memory: the peak RSS of each process while indexing, and of all of them `--idle-seconds` after the run;
- Quit: how long closing the window and its library took (with `--load N`: while N busy processes load the CPU;
  with `--quit-at S`: S seconds after the folder was added, in the middle of the run, instead of after it).

A timeline of the panel's lines (phase, share, ETA) is printed first, then the table. The LLM upgrade runs if the
settings allow it, as for a person (the defaults wait for 3 idle minutes, which an offscreen run never has).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication


def _busy(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


class Memory:
    """Peak RSS per process of the app — the window (this process), and the background service it started with
    the service's children (issue 49: the service holds the library) — sampled every tenth of a second."""

    def __init__(self, data: Path):
        import psutil

        self.me = psutil.Process()
        self.data = data
        self.service: psutil.Process | None = None
        self.peaks: dict[int, tuple[str, int]] = {}

    def processes(self):
        import psutil

        from desktop_rag.service.background_process import who_answers

        if self.service is None or not self.service.is_running():
            hello = who_answers(self.data)
            self.service = psutil.Process(hello["pid"]) if hello and hello.get("role") == "service" else None
        found = [self.me, *self.me.children(recursive=True)]
        if self.service is not None and self.service not in found:
            try:
                found += [self.service, *self.service.children(recursive=True)]
            except psutil.Error:
                self.service = None
        return found

    def sample(self) -> int:
        import psutil

        total = 0
        for process in self.processes():
            try:
                rss = process.memory_info().rss
                name = self._name(process)
            except psutil.Error:
                continue
            total += rss
            if rss > self.peaks.get(process.pid, ("", 0))[1]:
                self.peaks[process.pid] = (name, rss)
        return total

    def _name(self, process) -> str:
        if process == self.me:
            return "app (window)"
        return "service" if process == self.service else process.name()  # its children name themselves

    def now(self) -> list[tuple[str, int]]:
        import psutil

        found = []
        for process in self.processes():
            try:
                name = self._name(process)
                found.append((name, process.memory_info().rss))
            except psutil.Error:
                pass
        return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--query", default="heron", help="typed before the folder is added (default: heron)")
    parser.add_argument("--idle-seconds", type=float, default=60.0, help="memory measured this long after the run")
    parser.add_argument("--load", type=int, default=0, help="busy processes loading the CPU during Quit")
    parser.add_argument("--quit-at", type=float, help="quit this many seconds after adding the folder, mid-run")
    parser.add_argument("--settings", nargs="*", default=[], help="key=value settings other than the defaults")
    parser.add_argument("--keep", type=Path, help="the data folder to use and keep (default: a temporary one)")
    args = parser.parse_args()

    from desktop_rag.config import Settings, parse_setting
    from desktop_rag.ui.app import AppSession, favour_the_window

    data = args.keep or Path(tempfile.mkdtemp(prefix="first-hour-"))
    data.mkdir(mode=0o700, parents=True, exist_ok=True)
    values = {"keep_fresh_when_closed": "false",  # the app alone is measured: no service after its window
              **dict(pair.split("=", 1) for pair in args.settings)}
    Settings(**{k: parse_setting(k, v) for k, v in values.items()}).save(data)

    app = QApplication.instance() or QApplication(sys.argv[:1])
    favour_the_window()
    opened = time.monotonic()
    session = AppSession(data)
    win = session.window
    win.show()
    app.processEvents()
    shown_after = time.monotonic() - opened
    memory = Memory(data)
    timeline: list[tuple[float, str]] = []
    samples: list[tuple[float, float, float | None]] = []  # (t, share shown, eta seconds)
    marks: dict[str, float] = {"window shown": shown_after}
    bar: list[int] = []
    t0 = [0.0]

    def now() -> float:
        return time.monotonic() - t0[0]

    show = win.runs.show
    last_line = [""]

    def recorded(state: dict) -> bool:
        """The window is the service's client (issue 49): each of the service's run states, as the panel shows it."""
        moved_on = show(state)
        if state.get("kind") != "index" or state["state"] != "running":
            return moved_on
        bar.append(win.progress.overall.value())
        if state.get("share_done") is not None:
            samples.append((now(), state["share_done"], state.get("seconds_left")))
        phases = state["phases"]
        parse, index = phases.get("parse", {}), phases.get("index", {})
        if parse.get("total") and parse.get("done") == parse["total"]:
            marks.setdefault("all files read", now())
        # Every file keyword-searchable: after the files are read, a keyword rebuild has ended holding every
        # passage of the catalog (the run rebuilds it after its last file, and again if OCR added text).
        if "all files read" in marks and "all keyword-searchable" not in marks and index.get("total") is not None \
                and index["done"] >= win.library.reads.chunk_count():
            marks["all keyword-searchable"] = now()
        doing = win.progress.current.text()[:60]
        line = f"{win.progress.overall_label.text():<28} {doing}"
        if doing.split()[:3] != last_line[0].split()[:3] or line[:3] != last_line[0][:3]:
            timeline.append((now(), line))
            last_line[0] = line
        return moved_on

    win.runs.show = recorded

    def wait(condition, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        loop = QEventLoop()
        while time.monotonic() < deadline:
            if condition():
                return True
            QTimer.singleShot(100, loop.quit)
            loop.exec()
            peak = memory.sample()
            marks["peak total MB (indexing)"] = max(marks.get("peak total MB (indexing)", 0), peak / 2**20)
        return condition()

    wait(lambda: "add a folder" in win.progress.title.text(), 120)
    win.search.query.setText(args.query)
    win.search.search_now()
    t0[0] = time.monotonic()
    win.add_folder(str(args.folder.resolve()))
    ended = ("Done", "Cancelled")
    wait(lambda: bool(win.search.hits) or (args.quit_at is not None and now() >= args.quit_at), 3600)
    marks["first hit"] = now() if win.search.hits else None
    if args.quit_at is None:
        wait(lambda: win.progress.title.text().startswith(ended), 6 * 3600)
    else:
        wait(lambda: now() >= args.quit_at or win.progress.title.text().startswith(ended), 6 * 3600)
    marks["run ended (all by meaning)"] = now()
    timeline.append((now(), win.progress.title.text()[:100]))
    peak_by_process = dict(memory.peaks)
    idle_end = time.monotonic() + (args.idle_seconds if args.quit_at is None else 0)
    wait(lambda: time.monotonic() >= idle_end, args.idle_seconds + 5)
    idle = memory.now()
    state = win.progress.title.text()[:60]

    stop = multiprocessing.Event()
    hogs = [multiprocessing.Process(target=_busy, args=(stop,), daemon=True) for _ in range(args.load)]
    for hog in hogs:
        hog.start()
    started = time.monotonic()
    win.close()
    session.close()
    marks["quit s"] = time.monotonic() - started
    import psutil

    service = memory.service  # asked to stop as the window closed ("keep fresh" off): when it is gone
    if service is not None:
        try:
            service.wait(timeout=60)
        except psutil.TimeoutExpired:  # still there after a minute: said as such
            pass
        marks["service gone s"] = time.monotonic() - started if not service.is_running() else None
    stop.set()
    for hog in hogs:
        hog.join()
    del app

    for t, line in timeline:
        print(f"{t:8.1f} s  {line}")
    end = marks["run ended (all by meaning)"]
    errors = [abs(eta - (end - t)) / max(end - t, 1.0) for t, share, eta in samples
              if share >= 0.2 and eta is not None and end - t > 5]
    print()
    print(f"| {'what':<36} | {'figure':>12} |")
    print(f"|{'-' * 38}|{'-' * 14}|")
    rows = [("window shown (s from start)", marks["window shown"]), ("first hit (s after adding)", marks["first hit"]),
            ("all files read (s)", marks.get("all files read")),
            ("all keyword-searchable (s)", marks.get("all keyword-searchable"))]
    if args.quit_at is None:
        rows.append(("all by meaning: run ended (s)", end))
    else:  # Quit in the middle of the run: what was going on then
        rows += [("quit asked (s after adding)", end), ("state at Quit", state)]
    rows += [("bar went back", "yes" if bar != sorted(bar) else "no"),
             ("ETA error from 20% on, worst", f"{max(errors):.0%}" if errors else "n/a"),
             ("ETA error from 20% on, median", f"{sorted(errors)[len(errors) // 2]:.0%}" if errors else "n/a"),
             ("peak, all processes (MB)", marks.get("peak total MB (indexing)"))]
    if args.quit_at is None:
        rows.append((f"all processes {args.idle_seconds:g} s after (MB)", sum(rss for _, rss in idle) / 2**20))
    rows.append((f"quit (s){f', {args.load} busy processes' if args.load else ''}", marks["quit s"]))
    rows.append(("the service gone after quit (s)", marks.get("service gone s")))
    for label, value in rows:
        shown = f"{value:12.1f}" if isinstance(value, float) else f"{value!s:>12}"
        print(f"| {label:<36} | {shown} |")
    print("\npeak RSS by process while indexing:")
    for name, rss in sorted(peak_by_process.values(), key=lambda p: -p[1]):
        print(f"  {rss / 2**20:8.0f} MB  {name}")
    print(f"RSS {args.idle_seconds:g} s after the run:")
    for name, rss in idle:
        print(f"  {rss / 2**20:8.0f} MB  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
