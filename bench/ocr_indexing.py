"""Scans through the whole pipeline: how fast `desktop-rag index` reads scanned pages, how well, and what a second
copy of the same scan costs (nothing: its text is kept by content).

    python bench/ocr_indexing.py [--pages 20] [--dpi 200]

A PDF of page images (English and Japanese pages in turn, full pages of 3,000 and 1,400 characters, as
tests/documents.py makes them: a scanner's slight turn and grain) is indexed by the real command, in a fresh data
folder, with rules contexts (the LLM is not what is measured). OCR runs in the reader child at its lower priority, one page per call. Printed:
pages per minute of the run (OCR, chunking, embedding, keyword index) and of OCR alone (the engine's own seconds,
as the catalog records them), the character error rate of the stored text against the text the pages were made
from (whitespace ignored), the mean confidence, and the run for a copy of the file.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the scanned pages the tests make
sys.path.insert(0, str(ROOT / "bench"))

from documents import write_scanned_pdf  # noqa: E402
from ocr_engines import cer  # noqa: E402

SAMPLES = ROOT / "resources" / "samples"
# What fits an A4 page at 12 pt in tests/documents.py's margins (a typed page holds 2,000–3,000 characters).
ENGLISH_CHARS, JAPANESE_CHARS = 3000, 1400


def page_texts(count: int) -> list[tuple[str, bool]]:
    """English pages from the Python Language Reference that ships with Python (`pydoc_data.topics`), Japanese ones
    from ../shared/datasets/jsquad (Wikipedia) when it is there, else the bundled Japanese sample."""
    from pydoc_data.topics import topics

    english = " ".join(" ".join(topics[name].split()) for name in sorted(topics)[:40])
    jsquad = ROOT.parent / "shared" / "datasets" / "jsquad" / "documents.jsonl"
    if jsquad.exists():
        japanese = "".join(json.loads(line)["text"] for line in jsquad.open(encoding="utf-8"))
    else:
        japanese = (SAMPLES / "butsuryu-kaigi-memo.md").read_text(encoding="utf-8") * 20
    japanese = "".join(re.sub(r"[#*_`>|]+", "", japanese).split())
    pages = []
    for n in range(count):
        if n % 2 == 0:
            pages.append((english[n * ENGLISH_CHARS:(n + 1) * ENGLISH_CHARS], False))
        else:
            pages.append((japanese[n * JAPANESE_CHARS:(n + 1) * JAPANESE_CHARS], True))
    return pages


def index(data_dir: Path, folder: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "index", str(folder),
                          "--contexts", "rules", "--json"], capture_output=True, text=True, cwd=ROOT, check=True)
    return time.perf_counter() - started, json.loads(run.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--dpi", type=int, default=200, help="resolution the pages are scanned at")
    args = parser.parse_args()
    pages = page_texts(args.pages)
    with tempfile.TemporaryDirectory() as tmp:
        folder, data_dir = Path(tmp) / "scans", Path(tmp) / "data"
        folder.mkdir()
        write_scanned_pdf(folder / "scan.pdf", pages, dpi=args.dpi)
        size_mb = (folder / "scan.pdf").stat().st_size / 2**20
        seconds, summary = index(data_dir, folder)
        db = sqlite3.connect(data_dir / "catalog.sqlite3")
        ocr_seconds, confidence = db.execute("SELECT SUM(seconds), AVG(confidence) FROM ocr_pages").fetchone()
        errors = {"eng": [], "jpn": []}
        stored = {p: t for p, t in db.execute("SELECT page, text FROM ocr_pages")}
        for number, (truth, japanese) in enumerate(pages, start=1):
            errors["jpn" if japanese else "eng"].append(cer(stored.get(number, ""), truth))
        db.close()
        shutil.copy(folder / "scan.pdf", folder / "scan-copy.pdf")
        before_copy = time.time()
        copy_seconds, copy_summary = index(data_dir, folder)
        db = sqlite3.connect(data_dir / "catalog.sqlite3")
        read_again = db.execute("SELECT COUNT(*) FROM ocr_pages WHERE created_at >= ?", (before_copy,)).fetchone()[0]
        db.close()
    print(f"{args.pages} scanned pages at {args.dpi} dpi ({size_mb:.1f} MB PDF), `desktop-rag index --contexts rules`")
    print(f"{'measure':<38} {'value':>10}")
    print(f"{'run, wall clock (s)':<38} {seconds:>10.1f}")
    print(f"{'pages/min, whole run':<38} {60 * args.pages / seconds:>10.1f}")
    print(f"{'pages/min, OCR alone':<38} {60 * args.pages / ocr_seconds:>10.1f}")
    print(f"{'CER English pages':<38} {sum(errors['eng']) / max(1, len(errors['eng'])):>10.3f}")
    print(f"{'CER Japanese pages':<38} {sum(errors['jpn']) / max(1, len(errors['jpn'])):>10.3f}")
    print(f"{'mean OCR confidence':<38} {confidence:>10.2f}")
    print(f"{'chunks':<38} {summary['chunks']:>10}")
    print(f"{'a copy of the scan: run (s)':<38} {copy_seconds:>10.1f}")
    print(f"{'  files indexed / OCR pages read again':<38} {copy_summary['indexed']:>5} / {read_again:>2}")


if __name__ == "__main__":
    sys.exit(main())
