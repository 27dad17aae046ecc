"""A decade of mail and a whole home folder, served (issue 64): the background service on a library of 110k, 300k or
1M passages — its start, memory, searches from a client, a saved file found by its words and by meaning, the first
search after a rest.

    .venv/bin/python bench/million_library.py --passages 300000 --keep /tmp/ml   # built once (~15 min), kept
    .venv/bin/python bench/million_library.py --passages 1000000 --keep /tmp/ml --rest 240

Building: the app itself makes the library (`desktop-rag index` of one real file: its settings, watched folder,
meaning model and stores), then the bench adds the passages of bench/million.py's documents as real files in the
watched folder, written to the catalog as the indexer would (each file's size and time, so the service finds them
unchanged), with rules contexts and **cheap vectors** (clustered random unit vectors, not the model's: the dense
index's speed and memory, not its relevance), stored in the embedded Chroma store and the catalog's copy; then the
keyword index is built whole. The files saved during the measurement are embedded by the real model.

Measured from outside, as a person's front ends meet the service: its start with nothing changed (to its first
answer, and to the end of its catch-up), the memory of every process (searching, and at rest after --rest s with
nothing asked), searches through the endpoint as the window sends them (hybrid, with folder filters, by meaning
only, by words only), a file saved into the folder until a search by its words and one by meaning find it (with the
disk the service's processes wrote meanwhile), and the first search after the rest. Prints one table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.idle_service import cli, memory_by_process
from bench.million import _p, documents
from bench.synthetic import queries, vocabulary
from desktop_rag.core.indexing.keyword_upkeep import keywords_in_line
from desktop_rag.core.library.access import KEYWORD_INDEX_FOLDER, MEANING_INDEX_FOLDER
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.documents import Chunk, ContextResult, text_hash
from desktop_rag.service.endpoint import EndpointClient
from desktop_rag.storage.catalog import Catalog
from desktop_rag.storage.catalog_access import CATALOG_FILE
from desktop_rag.storage.keyword_index import KeywordIndex
from desktop_rag.storage import vector_store
from desktop_rag.storage.vector_store import VectorStore

_DIMENSIONS = 384  # the shipped meaning model's
_BATCH = 2000


class _KeywordParts:
    def __init__(self, catalog: Catalog, data_dir: Path):
        self.catalog = catalog
        self.keywords = KeywordIndex(data_dir / KEYWORD_INDEX_FOLDER, lexical_tokens)


def build(root: Path, passages: int, ef_construction: int) -> dict[str, str]:
    home, data_dir = root / "home", root / "data"
    home.mkdir(parents=True, exist_ok=True)
    (home / "about.md").write_text("# About this folder\n\nA person's mail and notes of a decade, kept here.\n")
    cli(data_dir, "settings", "contexts", "rules")
    cli(data_dir, "index", "--local", str(home))  # in this process: no service may write while the bench does
    built: dict[str, str] = {}
    catalog = Catalog(data_dir / CATALOG_FILE)
    t0 = time.perf_counter()
    for path, texts in documents(passages):
        file = home / path
        file.parent.mkdir(parents=True, exist_ok=True)
        data = "\n\n".join(texts).encode()
        file.write_bytes(data)
        stat = file.stat()
        chunks = [Chunk(i, t, 0, len(t), None, [], len(t) // 5, text_hash(t)) for i, t in enumerate(texts)]
        catalog.save_document(path=str(file), size=stat.st_size, mtime_ns=stat.st_mtime_ns,
                              content_hash=hashlib.sha256(data).hexdigest(), parser="text", title=file.stem,
                              text=data.decode(), page_count=None, chunks=chunks,
                              contexts=[ContextResult(f"{file.stem}, passage {i + 1}", "rules")
                                        for i in range(len(texts))])
    built["files and catalog s"] = f"{time.perf_counter() - t0:.0f}"
    t0 = time.perf_counter()
    store = VectorStore(data_dir / MEANING_INDEX_FOLDER)
    # The graph made with a narrower beam than the app's (HNSW_CONFIG): ~2.6 ms a vector at 400 would be 45 min at
    # 1M. Its memory (max_neighbors) and search beam (ef_search) are the app's; saves during the measurement add
    # with the beam given here.
    seed = store.windows(sorted(catalog.chunk_ids(embedded=True)))
    vector_store.HNSW_CONFIG["ef_construction"] = ef_construction
    store.reset()
    for chunk, rows in seed.items():
        store.add([chunk] * len(rows), rows)
    rng = np.random.default_rng(5)
    centres = rng.standard_normal((2000, _DIMENSIONS)).astype(np.float32)
    waiting = sorted(catalog.chunk_ids(embedded=False))
    for start in range(0, len(waiting), _BATCH):
        ids = waiting[start:start + _BATCH]
        vectors = centres[rng.integers(0, len(centres), len(ids))] + 0.8 * rng.standard_normal(
            (len(ids), _DIMENSIONS)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.add(ids, vectors)
        catalog.mark_embedded(ids, ids, vectors)
    store.close()
    built["meaning index s"] = f"{time.perf_counter() - t0:.0f}"
    t0 = time.perf_counter()
    catalog.mark_keyword_index_dirty()
    keywords_in_line(_KeywordParts(catalog, data_dir))
    built["keyword index s"] = f"{time.perf_counter() - t0:.0f}"
    catalog.close()
    (root / "built.json").write_text(json.dumps(built))
    return built


def _folder_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def _summed(root: psutil.Process, read) -> int:
    """`read(process)` summed over the service and its children (one that ended meanwhile counts nothing)."""
    total = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            total += read(process)
        except psutil.Error:
            continue
    return total


def _written(root: psutil.Process) -> int:
    return _summed(root, lambda process: process.io_counters().write_bytes)


def _file_backed_mb(root: psutil.Process) -> float:
    """Of the processes' resident memory, the pages of files they map (the keyword index's segments, the
    libraries' code): the system takes those back when it needs memory, without writing anything."""
    return _summed(root, lambda process: process.memory_info().shared) / 2**20


def _search_ms(client: EndpointClient, asked: list[str], **how) -> str:
    times = []
    for query in asked:
        t0 = time.perf_counter()
        client.call("search", query=query, limit=20, facets=True, **how)
        times.append(1000 * (time.perf_counter() - t0))
    return f"{_p(times, 0.5):.0f} / {_p(times, 0.95):.0f}"


def _found(client: EndpointClient, query: str, path: Path, mode: str) -> bool:
    answer = client.call("search", query=query, limit=10, mode=mode)
    return any(hit.get("path") == str(path) for hit in answer["results"])


def _save_until_found(root: psutil.Process, client: EndpointClient, home: Path, n: int) -> tuple[float, float, float]:
    """A new file saved into the watched folder: seconds until found by a word of it, by meaning, and MB the
    service's processes wrote meanwhile beyond the file's own size."""
    word = f"quince{n}x{time.time_ns() % 10**8}"
    meaning = f"renewal of the harbour warehouse lease number {n} signed with the port authority"
    text = "\n\n".join(f"{word}: {meaning}. Part {i}: the tenant keeps the quay cranes in repair." for i in range(3))
    file = home / "saved" / f"lease-{word}.txt"
    file.parent.mkdir(exist_ok=True)
    before = _written(root)
    t0 = time.perf_counter()
    file.write_text(text)
    by_words = by_meaning = 0.0
    # By words first, then by meaning (found later: its model's work follows the words'): a search by meaning in
    # each turn of the loop made the words' turns 0.1-0.2 s apart at 1M passages, and their time as much longer.
    while not (by_words and by_meaning):
        if time.perf_counter() - t0 > 120:
            raise SystemExit(f"{file} not found after 120 s")
        if not by_words and _found(client, word, file, "bm25"):
            by_words = time.perf_counter() - t0
        if by_words and not by_meaning and _found(client, meaning, file, "dense"):
            by_meaning = time.perf_counter() - t0
        time.sleep(0.02)
    time.sleep(1.0)  # what the service writes just after (the run's end)
    return by_words, by_meaning, (_written(root) - before - len(text)) / 1e6


def _by_words(answer: dict) -> str:
    """A hybrid search answered by words alone, the meaning index opening (core/search/meaning_wait.py)."""
    return " (by words: meaning index opening)" if answer["meaning_pending"] else ""


def measure(root: Path, rest_s: float, saves: int) -> dict[str, str]:
    home, data_dir = root / "home", root / "data"
    row: dict[str, str] = {}
    chunks = json.loads(cli(data_dir, "stats", "--json", "--local").stdout)["chunks"]
    row["passages"] = f"{chunks:,}"
    row["catalog / keyword / meaning index on disk MB"] = " / ".join(
        f"{_folder_mb(data_dir / part) if (data_dir / part).is_dir() else (data_dir / part).stat().st_size / 1e6:.0f}"
        for part in (CATALOG_FILE, KEYWORD_INDEX_FOLDER, MEANING_INDEX_FOLDER))
    asked = queries(vocabulary(60_000, random.Random(7)), 100)
    log = open(root / "service.log", "w")  # noqa: SIM115 — open for the service's whole life
    started = time.perf_counter()
    service = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "service"],
                               stdout=log, stderr=subprocess.STDOUT)
    try:
        client = None
        while client is None:
            if service.poll() is not None:
                raise SystemExit(f"the service ended: {(root / 'service.log').read_text()[-500:]}")
            client = EndpointClient.for_library(data_dir)
            time.sleep(0.02)
        first = client.call("search", query=asked[0], limit=20, words_first=True)  # as the window asks
        row["start → first answer s"] = f"{time.perf_counter() - started:.1f}{_by_words(first)}"
        while client.call("search", query=asked[0], limit=20, words_first=True)["meaning_pending"]:
            time.sleep(0.5)
        row["start → first answer by meaning too s"] = f"{time.perf_counter() - started:.1f}"
        while "Watching" not in (root / "service.log").read_text():
            time.sleep(0.1)
        row["start → catch-up done s"] = f"{time.perf_counter() - started:.1f}"
        tree = psutil.Process(service.pid)
        mail, narrow = str(home / "mail"), str(home / "notes" / "001")
        row["hybrid p50 / p95 ms"] = _search_ms(client, asked)
        row["hybrid, folder 2/3 p50 / p95 ms"] = _search_ms(client, asked, folders=[mail])
        row["hybrid, folder 1 % p50 / p95 ms"] = _search_ms(client, asked, folders=[narrow])
        row["meaning p50 / p95 ms"] = _search_ms(client, asked, mode="dense")
        row["words p50 / p95 ms"] = _search_ms(client, asked, mode="bm25")
        searching = memory_by_process(tree)
        row["memory searching MB (largest)"] = f"{sum(searching.values()):.0f} ({max(searching.values()):.0f})"
        found = [_save_until_found(tree, client, home, n) for n in range(saves)]
        row["save → by words p50 / max s"] = f"{_p([f[0] for f in found], 0.5):.2f} / {max(f[0] for f in found):.2f}"
        # each in turn: the first also makes the folder saved/ (a folder the watcher is told of as the file lands)
        row["each save → by words s"] = ", ".join(f"{f[0]:.2f}" for f in found)
        row["save → by meaning p50 / max s"] = f"{_p([f[1] for f in found], 0.5):.1f} / {max(f[1] for f in found):.1f}"
        row["written per save max MB"] = f"{max(f[2] for f in found):.1f}"
        client.close()
        time.sleep(rest_s)
        rested = memory_by_process(tree)
        row[f"memory after {rest_s:.0f} s at rest MB (largest)"] = (f"{sum(rested.values()):.0f} "
                                                                    f"({max(rested.values()):.0f})")
        row["of which files mapped MB"] = f"{_file_backed_mb(tree):.0f}"
        t0 = time.perf_counter()
        client = EndpointClient.for_library(data_dir)
        assert client is not None
        first = client.call("search", query=asked[1], limit=20, facets=True, words_first=True)
        row["first hybrid after the rest s"] = f"{time.perf_counter() - t0:.2f}{_by_words(first)}"
        while client.call("search", query=asked[1], limit=20, words_first=True)["meaning_pending"]:
            time.sleep(0.5)
        row["first hybrid after the rest, by meaning too s"] = f"{time.perf_counter() - t0:.2f}"
        t0 = time.perf_counter()
        client.call("search", query=asked[2], limit=20, mode="dense")
        row["then by meaning s"] = f"{time.perf_counter() - t0:.2f}"
        # the document reader's child ended after a minute unused (pacing.RELEASE_MODEL_AFTER_S): started again
        words, meaning, _ = _save_until_found(tree, client, home, saves)
        row["a save after the rest → by words / by meaning s"] = f"{words:.2f} / {meaning:.1f}"
        client.close()
        print("\n".join(f"{name}: {mb:.0f}" for name, mb in sorted(rested.items())), file=sys.stderr)
    finally:
        cli(data_dir, "stop")
        service.wait(60)
        log.close()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=110_000)
    parser.add_argument("--keep", type=Path, help="a folder for the library (one per size), kept: built once")
    parser.add_argument("--rest", type=float, default=240.0, help="seconds with nothing asked before the last search")
    parser.add_argument("--saves", type=int, default=5)
    parser.add_argument("--build-ef", type=int, default=100, help="the HNSW beam while the bench builds (the app: 400)")
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()
    root = (args.keep or Path(tempfile.mkdtemp(prefix="million-library-"))) / str(args.passages)
    if not (root / "built.json").exists():
        build(root, args.passages, args.build_ef)
    if args.build_only:
        return
    row = {**json.loads((root / "built.json").read_text()), **measure(root, args.rest, args.saves)}
    for name, value in row.items():
        print(f"| {name} | {value} |")
    print(f"\n{psutil.cpu_count()} cores; {time.strftime('%Y-%m-%d %H:%M')}")


if __name__ == "__main__":
    main()
