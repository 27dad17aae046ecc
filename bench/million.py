"""A decade of mail and a whole home folder (issue 64): the keyword index at 110k, 300k and 1M passages.

    .venv/bin/python bench/million.py                          # 110k, 300k and 1M passages (~1 h on 2 cores)
    .venv/bin/python bench/million.py --sizes 110000 --saves 20 --keep /tmp/libraries   # built once, kept

Builds a catalog of that many passages once (synthetic mail-like and note-like text with Zipf-distributed words,
mixed with the real documents of tests/files/retrieval; rules contexts, no embedding: these are the keyword
index's figures), builds its keyword index whole, then measures what a person meets:
- a save: one document of 10 passages written to the catalog and the keyword index brought in line as the
  service's sync does it (core/indexing/keyword_upkeep.py), until a search by one of its words finds it; the disk
  written by the index for it (its folder's growth, and /proc/self/io's write_bytes);
- keyword search p50/p95 over 200 queries, with the changes' segment there and after a merge;
- a merge (at rest): its seconds and the process's peak memory meanwhile; a whole rebuild from the texts, the
  same;
- memory: the process's resident set with the index loaded (a search run), against before.
Prints one table. The machine is shared and noisy: read the figures as orders of size and ratios.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic import queries, vocabulary
from desktop_rag.core.indexing.keyword_upkeep import keywords_in_line, merge_keywords
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.documents import Chunk, ContextResult, text_hash
from desktop_rag.storage.catalog import Catalog
from desktop_rag.storage.keyword_index import KeywordIndex

_REAL = Path(__file__).resolve().parent.parent / "tests" / "files" / "retrieval"
_PASSAGES_PER_DOCUMENT = 10


class Parts:
    def __init__(self, folder: Path):
        self.catalog = Catalog(folder / "catalog.sqlite3")
        self.keywords = KeywordIndex(folder / "bm25", lexical_tokens)


def _real_paragraphs() -> list[str]:
    paragraphs = []
    for path in sorted(_REAL.rglob("*")):
        if path.is_file() and path.suffix in (".md", ".txt", ".py", ".rst", ".jsonl"):
            text = path.read_text(encoding="utf-8", errors="replace")
            paragraphs += [p.strip() for p in text.split("\n\n") if len(p.strip()) > 80][:400]
    return paragraphs


def documents(passages: int, seed: int = 7):
    """(path, texts) of documents of 10 passages: two in three mail-like (a sender, a subject, Zipf words), the rest
    notes and, one passage in ten, a real paragraph of the retrieval check's files."""
    rng = random.Random(seed)
    vocab = vocabulary(60_000, rng)
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(vocab))))  # Zipf
    real = _real_paragraphs()
    senders = [f"{rng.choice(vocab)}@{rng.choice(vocab)}.example" for _ in range(500)]
    for d in range(passages // _PASSAGES_PER_DOCUMENT):
        texts = []
        for _ in range(_PASSAGES_PER_DOCUMENT):
            if real and rng.random() < 0.1:
                texts.append(rng.choice(real)[:1500])
                continue
            words = rng.choices(vocab, cum_weights=cumulative, k=rng.randint(30, 120))
            prefix = f"From: {rng.choice(senders)} Subject: {' '.join(words[:4])}. " if d % 3 else ""
            texts.append(prefix + " ".join(words) + ".")
        yield f"{'mail' if d % 3 else 'notes'}/{d // 1000:03d}/{d:07d}.txt", texts


def _fill(catalog: Catalog, passages: int) -> None:
    for path, texts in documents(passages):
        _save(catalog, f"/home/person/{path}", texts)


def _save(catalog: Catalog, path: str, texts: list[str]) -> None:
    chunks = [Chunk(i, t, 0, len(t), None, ["Inbox"], len(t) // 5, text_hash(t)) for i, t in enumerate(texts)]
    catalog.save_document(path=path, size=sum(map(len, texts)), mtime_ns=1, content_hash=path, parser="text",
                          title=Path(path).stem, text="\n\n".join(texts), page_count=None, chunks=chunks,
                          contexts=[ContextResult(f"{Path(path).stem}: Inbox", "rules") for _ in texts])


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def _written() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


def _folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(size: int, saves: int, keep: Path | None, rebuild: bool = True) -> dict[str, float | str]:
    folder = keep / str(size) if keep else Path(tempfile.mkdtemp(prefix=f"million{size}_"))
    parts = Parts(folder)
    row: dict[str, float | str] = {"passages": f"{size:,}"}
    if parts.catalog.chunk_count() < size:
        t0 = time.perf_counter()
        _fill(parts.catalog, size - parts.catalog.chunk_count())
        row["catalog built s"] = round(time.perf_counter() - t0, 1)
    _reset_peak()
    before = _rss_mb()
    t0 = time.perf_counter()
    if rebuild or not parts.keywords.exists:
        parts.catalog.mark_keyword_index_dirty()
    keywords_in_line(parts)
    merge_keywords(parts)  # (what earlier runs' saves left)
    if rebuild:
        row["whole rebuild s"] = round(time.perf_counter() - t0, 1)
        row["whole rebuild peak MB"] = round(_peak_mb() - before)
    row["index on disk MB"] = round(sum(_folder_bytes(parts.keywords.folder / g)
                                        for g in parts.keywords._generations()) / 1e6)
    asked = queries(vocabulary(60_000, random.Random(7)), 200)
    parts.keywords.search("warm", 10)
    row["loaded MB"] = round(_rss_mb() - before)
    rng = random.Random(3)
    save_s, written = [], []
    for n in range(saves):
        word = f"quince{n}x{time.time_ns()}"
        texts = [f"{word} lease notice {i} " + " ".join(rng.sample(asked, 3)) for i in range(_PASSAGES_PER_DOCUMENT)]
        io_before = _written()
        t0 = time.perf_counter()
        _save(parts.catalog, f"/home/person/saved/{time.time_ns()}.txt", texts)  # a new file each time
        keywords_in_line(parts)
        hits = parts.keywords.search(word, 20)
        save_s.append(time.perf_counter() - t0)
        assert len(hits) == _PASSAGES_PER_DOCUMENT, (word, hits)
        written.append((_written() - io_before) / 1e6)
    row["save → found p50 / p95 s"] = f"{_p(save_s, 0.5):.2f} / {_p(save_s, 0.95):.2f}"
    row["written per save p95 MB"] = f"{_p(written, 0.95):.2f}"
    row["search p50 / p95 ms, 2 segments"] = _search_ms(parts, asked)
    _reset_peak()
    before = _rss_mb()
    t0 = time.perf_counter()
    merge_keywords(parts)
    row["merge s"] = round(time.perf_counter() - t0, 1)
    row["merge peak MB"] = round(_peak_mb() - before)
    row["search p50 / p95 ms, merged"] = _search_ms(parts, asked)
    parts.catalog.close()
    if keep is None:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    return row


def _search_ms(parts: Parts, asked: list[str]) -> str:
    seconds = []
    for query in asked:
        t0 = time.perf_counter()
        parts.keywords.search(query, 50)
        seconds.append((time.perf_counter() - t0) * 1000)
    return f"{_p(seconds, 0.5):.0f} / {_p(seconds, 0.95):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="110000,300000,1000000")
    parser.add_argument("--saves", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="a folder for the libraries (one per size), kept: built once")
    parser.add_argument("--no-rebuild", action="store_true", help="a kept library's index not built again whole")
    args = parser.parse_args()
    rows = [measure(int(size), args.saves, args.keep, not args.no_rebuild) for size in args.sizes.split(",")]
    columns = list(dict.fromkeys(key for row in rows for key in row))
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row.get(c, "")) for c in columns) + " |")
    print(f"\n{os.cpu_count()} cores; {time.strftime('%Y-%m-%d')}")


if __name__ == "__main__":
    main()
