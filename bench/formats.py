"""Each family of formats through the real `desktop-rag index`: files per second and peak memory over a generated
folder, per family (issue 22).

    python bench/formats.py [--scale 1.0] [--families slides,workbooks,...]

Families (at --scale 1): 200 PowerPoint decks (6 slides), 200 Excel workbooks (2 sheets × 150 rows), 200 CSV
files (300 rows), 200 OpenDocument texts, 100 RTF files, one mailbox of 5,000 messages (every 10th with a small text attachment), 50 zip
archives of 10 documents. Each is indexed alone in a fresh data folder with rules contexts (the LLM is not what is
measured) and the default embedding model; printed: documents read, wall-clock seconds, documents per second over
the whole run and over its parse phase (reading, chunking; the embedding follows at the model's own speed),
chunks, and the peak resident memory of the command's process and of its largest child (the reader, the models).
Then one workbook of a million cells parsed alone: seconds and peak memory (the workbook's text stops at its limit).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the writers the tests make these formats with

from office_documents import message, write_mbox, write_odt, write_pptx, write_rtf, write_xlsx, write_zip  # noqa: E402

WORDS = ("harbour lighthouse ferry kayak glacier orchard violin tango saffron comet telescope parrot radiator "
         "plumber budget invoice quarterly revenue forecast hiring rangers meadow heron kestrel compost bakery "
         "sourdough marathon chess opening volcano lava moon planet dance ballroom ledger receipt tax").split()


def sentence(rng: random.Random, words: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def make_slides(folder: Path, n: int, rng: random.Random) -> int:
    for i in range(n):
        write_pptx(folder / f"deck{i}.pptx", [(f"Slide {s} of deck {i}", " ".join(sentence(rng) for _ in range(4)),
                                               sentence(rng)) for s in range(6)])
    return n


def make_workbooks(folder: Path, n: int, rng: random.Random) -> int:
    for i in range(n):
        sheets = {name: [["Date", "Item", "Amount", "Note"]] + [[f"2025-0{1 + r % 9}-1{r % 9}", rng.choice(WORDS),
                                                                  rng.randint(1, 900), sentence(rng, 6)]
                                                                 for r in range(150)]
                  for name in ("Income", "Costs")}
        write_xlsx(folder / f"book{i}.xlsx", sheets)
    return n


def make_csv(folder: Path, n: int, rng: random.Random) -> int:
    """A bank export each: 300 rows of date, payee, amount and memo (read as a sheet: delimited.py)."""
    for i in range(n):
        rows = ["Date,Payee,Amount,Memo"] + [f'2025-0{1 + r % 9}-1{r % 9},{rng.choice(WORDS).capitalize()},'
                                             f'{rng.uniform(-900, 900):.2f},"{sentence(rng, 6)}"' for r in range(300)]
        (folder / f"statement{i}.csv").write_text("\n".join(rows) + "\n")
    return n


def make_opendocument(folder: Path, n: int, rng: random.Random) -> int:
    for i in range(n):
        write_odt(folder / f"text{i}.odt", [block for s in range(5) for block in
                                            (("h1", f"Section {s}"), ("p", " ".join(sentence(rng) for _ in range(6))))])
    return n


def make_rtf(folder: Path, n: int, rng: random.Random) -> int:
    for i in range(n):
        write_rtf(folder / f"letter{i}.rtf", [" ".join(sentence(rng) for _ in range(5)) for _ in range(6)])
    return n


def make_mailbox(folder: Path, n: int, rng: random.Random) -> int:
    mails = []
    for i in range(n):
        attachments = [(f"notes{i}.txt", sentence(rng, 40).encode())] if i % 10 == 0 else []
        mails.append(message(f"{rng.choice(WORDS).capitalize()} {i}", "\n\n".join(sentence(rng) for _ in range(5)),
                             date=f"Mon, {1 + i % 28} Sep 2025 {i % 24:02d}:00:00 +0000", attachments=attachments))
    write_mbox(folder / "Inbox", mails)
    return n + n // 10  # messages and attachments


def make_archives(folder: Path, n: int, rng: random.Random) -> int:
    for i in range(n):
        write_zip(folder / f"archive{i}.zip", {f"docs/note{m}.md": f"# Note {m}\n\n{sentence(rng, 60)}".encode()
                                               for m in range(10)})
    return n * 10


FAMILIES = {"slides": (make_slides, 200), "workbooks": (make_workbooks, 200), "csv": (make_csv, 200),
            "opendocument": (make_opendocument, 200), "rtf": (make_rtf, 100), "mailbox": (make_mailbox, 5000),
            "archives": (make_archives, 50)}


class PeakMemory:
    """Polls a process and its children: the peak RSS of the process itself and of its largest child."""

    def __init__(self, pid: int):
        self.process = psutil.Process(pid)
        self.main = self.child = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                self.main = max(self.main, self.process.memory_info().rss)
                for child in self.process.children(recursive=True):
                    try:
                        self.child = max(self.child, child.memory_info().rss)
                    except psutil.Error:
                        pass
            except psutil.Error:
                return
            time.sleep(0.1)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def run_index(data_dir: Path, folder: Path) -> tuple[float, dict, PeakMemory]:
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "index",
                                str(folder), "--contexts", "rules", "--json"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    memory = PeakMemory(process.pid)
    out, _ = process.communicate()
    memory.stop()
    if process.returncode:
        raise SystemExit(f"index failed on {folder}")
    return time.perf_counter() - started, json.loads(out), memory


def big_sheet(tmp: Path, cells: int) -> tuple[float, int, int]:
    """(seconds to parse, peak MB of the parsing process, characters kept) for a workbook of `cells` cells."""
    import openpyxl

    path = tmp / "million.xlsx"
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Readings")
    sheet.append([f"Column {c}" for c in range(10)])
    for row in range(cells // 10):
        sheet.append([row * 10 + c for c in range(10)])
    book.save(path)
    code = ("import resource, sys, time; from pathlib import Path; from desktop_rag.core.files.parsers import parse;"
            "t = time.perf_counter(); d = parse(Path(sys.argv[1]), Path(sys.argv[1]).read_bytes());"
            "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, len(d.text))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True, cwd=ROOT)
    seconds, peak_mb, chars = out.stdout.split()
    return float(seconds), int(peak_mb), int(chars)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every family's count")
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated: " + ", ".join(FAMILIES))
    parser.add_argument("--sheet-cells", type=int, default=1_000_000, help="cells of the big workbook (0: skip)")
    args = parser.parse_args()
    rng = random.Random(22)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.families.split(","):
            make, count = FAMILIES[name]
            folder = Path(tmp) / name
            folder.mkdir()
            documents = make(folder, max(1, int(count * args.scale)), rng)
            seconds, summary, memory = run_index(Path(tmp) / f"data-{name}", folder)
            parse_s = summary["phase_seconds"]["parse"] or float("nan")
            files = sum(1 for _ in folder.iterdir())
            rows.append((name, files, documents, seconds, documents / seconds, documents / parse_s, summary["chunks"],
                         memory.main / 2**20, memory.child / 2**20, len(summary["failed"])))
        print("`desktop-rag index --contexts rules`, a fresh data folder per family")
        print(f"{'family':<13} {'files':>6} {'docs':>6} {'run s':>7} {'docs/s':>7} {'parse docs/s':>12} {'chunks':>7}"
              f" {'peak MB':>8} {'child MB':>9} {'failed':>6}")
        for name, files, docs, seconds, rate, parse_rate, chunks, main_mb, child_mb, failed in rows:
            print(f"{name:<13} {files:>6} {docs:>6} {seconds:>7.1f} {rate:>7.1f} {parse_rate:>12.1f} {chunks:>7}"
                  f" {main_mb:>8.0f} {child_mb:>9.0f} {failed:>6}")
        if args.sheet_cells:
            seconds, peak_mb, chars = big_sheet(Path(tmp), args.sheet_cells)
            print(f"\none workbook of {args.sheet_cells:,} cells, parsed alone: {seconds:.1f} s, peak {peak_mb} MB, "
                  f"{chars:,} characters kept")


if __name__ == "__main__":
    sys.exit(main())
