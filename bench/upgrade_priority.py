"""What the upgrade's order buys: the share of a person's top-5 search hits that carry LLM contexts after one hour
of background upgrade, in indexing order against what-the-person-uses-first (issue 24).

    python bench/upgrade_priority.py [--library-chunks 100000] [--hour-chunks 720] [--datasets DIR ...]

For each evaluation set (default: ../shared/datasets/codebase, jsquad and the prose set of bench/make_prose_set.py
where present): its documents are indexed as `desktop-rag eval` does (real model, rules contexts) and each question
is searched once (hybrid, top 10, as the app shows them): these are the hits a person would see. Then a large
library is made in a catalog of its own: the set's documents spread at random among generated filler documents
until it holds --library-chunks chunks, every chunk with a rules context, as after a first indexing. The question
log, shuffled, is replayed: its first half is noted as searches (Library.search notes its hits the same way), then
one hour of upgrade runs — --hour-chunks chunks, 720 at the measured ~5 s per chunk of the 1.5B model on 2 cores —
through the catalog's own order (storage/catalog_upgrade_order.py; no model: which chunks get upgraded is what is
measured). Printed: for the second half of the log, the share of top-5 hits whose chunk then has an LLM context,
in indexing order and prioritised. The set's questions about one document come back later in the log (jsquad has
~10 per document, codebase ~3, the prose set ~1.4), as a person comes back to what they work on.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

KEY = ("bench-model", "bench/chunk")  # the upgrade's (model, prompt version)


def searched_hits(dataset, settings) -> tuple[list[list[str]], object]:
    """Each question's top-10 hit chunks as "doc_id:index", in a shuffled log; and the indexed set."""
    from desktop_rag.core.evaluation.evaluation import IndexedDataset

    indexed = IndexedDataset(dataset, "rules", settings)
    log = []
    for query in random.Random(5).sample(dataset.queries, len(dataset.queries)):
        hits = indexed.library.searcher.search(query["text"], k=10).hits
        log.append([indexed.chunk_names[hit.chunk_id] for hit in hits])
    return log, indexed


def large_catalog(indexed, path: Path, total_chunks: int):
    """The set's documents among filler, in random order (a document's id is its place in indexing order)."""
    from desktop_rag.core.indexing.upgrade import stored_document
    from desktop_rag.storage.catalog import Catalog
    from home_folder import Writer

    source = indexed.library.catalog
    rules = indexed.library.contextualizer("rules")
    dataset_docs = [doc_id for doc_id, in source._db.execute("SELECT id FROM documents ORDER BY id")]
    filler_chunks = max(0, total_chunks - source.chunk_count())
    order = dataset_docs + [None] * (filler_chunks // 10)  # filler documents of 10 chunks
    random.Random(9).shuffle(order)
    catalog = Catalog(path)
    writer = Writer(11)
    old = int((time.time() - 90 * 86400) * 1e9)  # indexed long ago: no "modified lately" tier
    for number, doc_id in enumerate(order):
        if doc_id is None:
            stored = filler_document(writer, number)
        else:
            stored = stored_document(source, doc_id)
        catalog.save_document(path=stored.path, size=len(stored.document.text), mtime_ns=old,
                              content_hash=f"h{number}", parser=stored.document.parser, title=stored.document.title,
                              text=stored.document.text, page_count=None, chunks=stored.chunks,
                              contexts=rules.contextualize(stored.document, stored.chunks))
    return catalog


def filler_document(writer, number: int):
    from desktop_rag.core.indexing.upgrade import StoredDocument
    from desktop_rag.documents import Chunk, ParsedDocument

    paragraphs = [writer.paragraph() for _ in range(10)]
    text = "\n\n".join(paragraphs)
    chunks, at = [], 0
    for i, paragraph in enumerate(paragraphs):
        start = text.index(paragraph, at)
        chunks.append(Chunk(i, paragraph, start, start + len(paragraph), None, [], len(paragraph.split()),
                            f"f{number}-{i}"))
        at = start + len(paragraph)
    return StoredDocument(f"/home/person/filler/{number}.md", ParsedDocument(text, f"Filler {number}", "markdown"),
                          chunks, [])


def chunk_ids(catalog) -> dict[str, int]:
    """"doc_id:index" → the large catalog's chunk id, for the set's documents."""
    rows = catalog._db.execute("SELECT c.id, d.path, c.idx FROM chunks c JOIN documents d ON d.id = c.document_id"
                               " WHERE d.path LIKE 'dataset:%'")
    return {f"{path.removeprefix('dataset:')}:{idx}": chunk_id for chunk_id, path, idx in rows}


def one_hour(catalog, budget: int) -> int:
    """The upgrade's order, `budget` chunks of it: each chunk's rules context becomes an LLM one."""
    from desktop_rag.documents import ContextResult

    done, tried = 0, set()
    while done < budget:
        picked = catalog.upgrade_order.next_upgrade(KEY, skip=tried)
        if picked is None:
            break
        doc_id = picked[0]
        tried.add(doc_id)
        waiting = [chunk_id for chunk_id, in catalog._db.execute(
            "SELECT c.id FROM chunks c JOIN contexts x ON x.chunk_id = c.id WHERE c.document_id = ?"
            " AND x.source = 'rules' ORDER BY c.idx", (doc_id,))]
        for chunk_id in waiting[:budget - done]:
            catalog.contexts.upgrade_context(chunk_id, ContextResult("An LLM context.", "llm", *KEY, quality=0.9))
        done += min(len(waiting), budget - done)
    return done


def share_upgraded(catalog, log: list[list[str]], ids: dict[str, int]) -> float:
    llm = {chunk_id for chunk_id, in catalog._db.execute("SELECT chunk_id FROM contexts WHERE source = 'llm'")}
    top5 = [ids[name] for hits in log for name in hits[:5] if name in ids]
    return sum(1 for chunk_id in top5 if chunk_id in llm) / max(1, len(top5))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--library-chunks", type=int, default=100_000)
    parser.add_argument("--hour-chunks", type=int, default=720)
    shared = Path(__file__).resolve().parents[2] / "shared" / "datasets"
    parser.add_argument("--datasets", nargs="*", type=Path, default=[
        shared / "codebase", shared / "jsquad", Path.home() / ".cache/desktop-rag/datasets/pyref"])
    args = parser.parse_args()

    from desktop_rag.config import Settings
    from desktop_rag.core.evaluation.evaluation import load_dataset
    from desktop_rag.storage.catalog import Catalog

    print(f"library of {args.library_chunks:,} chunks; one hour of upgrade = {args.hour_chunks} chunks")
    print(f"{'set':<10}{'questions':>10}{'indexing order':>16}{'prioritised':>13}{'upgraded':>10}")
    for folder in args.datasets:
        if not (folder / "queries.jsonl").exists():
            print(f"{folder.name:<10} (not found: skipped)")
            continue
        log, indexed = searched_hits(load_dataset(folder), Settings())
        with tempfile.TemporaryDirectory(prefix="upgrade-priority-") as tmp:
            base = Path(tmp) / "base.sqlite3"
            large_catalog(indexed, base, args.library_chunks).close()
            indexed.close()
            shares = {}
            for way in ("indexing order", "prioritised"):
                path = Path(tmp) / f"{way}.sqlite3"
                shutil.copy(base, path)
                catalog = Catalog(path)
                ids = chunk_ids(catalog)
                earlier, later = log[: len(log) // 2], log[len(log) // 2:]
                if way == "prioritised":
                    for number, hits in enumerate(earlier):  # the person's searches, a minute apart
                        catalog.upgrade_order.note_hits([ids[n] for n in hits if n in ids], at=time.time() - 60 * (len(earlier) - number))
                upgraded = one_hour(catalog, args.hour_chunks)
                shares[way] = share_upgraded(catalog, later, ids)
                catalog.close()
        print(f"{folder.name:<10}{len(log):>10}{shares['indexing order']:>16.1%}{shares['prioritised']:>13.1%}"
              f"{upgraded:>10}")


if __name__ == "__main__":
    main()
