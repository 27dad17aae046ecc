"""Retrieval evaluation on a pre-chunked dataset (the layout of shared/datasets/codebase).

The dataset's own chunks are indexed as they are (not re-chunked) so figures compare with published ones; they
go through the real catalog, contextualizer, Chroma and BM25 in a throw-away data folder.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from desktop_rag.config import Settings
from desktop_rag.core.contexts.eval_quality import context_qualities, print_quality_analysis, quality_vs_retrieval
from desktop_rag.core.contexts.quality import context_words
from desktop_rag.core.dense.dense_text import window_limit
from desktop_rag.core.files.parsers.code import parse_code
from desktop_rag.documents import Chunk, ParsedDocument, index_text, text_hash



@dataclass
class Dataset:
    name: str
    documents: list[dict]
    chunks: list[dict]
    queries: list[dict]
    qrels: dict[str, set[str]]


@dataclass
class EvalConfig:
    contexts: str = "rules"
    mode: str = "hybrid"
    rerank: bool = False

    @property
    def label(self) -> str:
        text = f"{'plain' if self.contexts == 'none' else self.contexts + ' contexts'}, {self.mode}"
        return text + (" + rerank" if self.rerank else "")


@dataclass
class EvalReport:
    dataset: str
    config: dict
    recall: dict[str, float]
    mrr: float
    seconds: float
    queries: int = 0
    chunks: int = 0
    context_avg_words: float = 0.0
    over_embedder_limit: float = 0.0  # share of chunks whose context + text needs more than one embedder window
    context_sources: dict[str, int] = field(default_factory=dict)
    context_seconds: float = 0.0  # time spent writing contexts (model calls), included in `seconds`
    notices: list[str] = field(default_factory=list)
    first_relevant_rank: dict[str, int | None] = field(default_factory=dict)  # by query id; None: not in the top k
    quality_analysis: list[dict] | None = None  # LLM rows: eval_quality.quality_vs_retrieval against plain
    relevant_ranks: dict[str, dict[str, int | None]] = field(default_factory=dict)  # query id → chunk → rank
    contexts: dict[str, dict] | None = None  # chunk name → text, source, quality, breakdown (rows with contexts)


def load_dataset(folder: Path) -> Dataset:
    folder = Path(folder)
    missing = [n for n in ("documents.jsonl", "chunks.jsonl", "queries.jsonl", "qrels.tsv")
               if not (folder / n).exists()]
    if missing:
        raise FileNotFoundError(f"{folder} is not a pre-chunked dataset: missing {', '.join(missing)}")

    def read_jsonl(name):
        return [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines() if line.strip()]

    qrels: dict[str, set[str]] = {}
    for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        query_id, chunk_id, score = line.split("\t")
        if float(score) > 0:
            qrels.setdefault(query_id, set()).add(chunk_id)
    queries = [q for q in read_jsonl("queries.jsonl") if q["_id"] in qrels]
    return Dataset(folder.name, read_jsonl("documents.jsonl"), read_jsonl("chunks.jsonl"), queries, qrels)


def every_nth_document(dataset: Dataset, n: int) -> Dataset:
    """Every n-th document by sorted id, their chunks, and the queries whose relevant chunks all lie in them
    (with n=3, the subset of DEVELOPERS.md "Findings the code relies on"): for configurations too slow to run on
    everything."""
    if n <= 1:
        return dataset
    documents = sorted(dataset.documents, key=lambda d: d["_id"])[::n]
    kept = {d["_id"] for d in documents}
    chunks = [c for c in dataset.chunks if c["doc_id"] in kept]
    names = {c["_id"] for c in chunks}
    queries = [q for q in dataset.queries if dataset.qrels[q["_id"]] <= names]
    qrels = {q["_id"]: dataset.qrels[q["_id"]] for q in queries}
    return Dataset(f"{dataset.name} (1 document in {n})", documents, chunks, queries, qrels)


def spread_questions(dataset: Dataset, most: int) -> Dataset:
    """At most `most` of the questions, evenly spread over the set (answers cost seconds each)."""
    if len(dataset.queries) <= most:
        return dataset
    step = len(dataset.queries) / most
    queries = [dataset.queries[int(i * step)] for i in range(most)]
    return Dataset(f"{dataset.name} ({most} questions)", dataset.documents, dataset.chunks, queries,
                   {q["_id"]: dataset.qrels[q["_id"]] for q in queries})


class IndexedDataset:
    """The dataset loaded into a temporary library with one contexts choice."""

    def __init__(self, dataset: Dataset, contexts: str, settings: Settings, log: TextIO | None = None):
        from desktop_rag.core.library.library import Library

        self.log = log
        self._tmp = tempfile.TemporaryDirectory(prefix="desktop-rag-eval-")
        self.library = Library(Path(self._tmp.name), replace(settings, contexts=contexts, chroma_server=""))
        self.notices: list[str] = []
        started = time.perf_counter()
        self.chunk_names = self._ingest(dataset, contexts)
        self.build_seconds = time.perf_counter() - started

    def _ingest(self, dataset: Dataset, contexts: str) -> dict[int, str]:
        lib = self.library
        contextualizer = lib.contextualizer(contexts, on_notice=self.notices.append)
        by_doc: dict[str, list[dict]] = {}
        for chunk in dataset.chunks:
            by_doc.setdefault(chunk["doc_id"], []).append(chunk)
        for number, doc in enumerate(dataset.documents, start=1):
            if self.log and number % 10 == 0:
                self.log.write(f"  {contexts} contexts: {number}/{len(dataset.documents)} documents\n")
                self.log.flush()
            parsed = parse_code(doc["text"].encode("utf-8"), doc["title"])
            parsed = ParsedDocument(parsed.text, doc["title"], "code", parsed.headings)
            raw_chunks = sorted(by_doc.get(doc["_id"], []), key=lambda c: c["index"])
            chunks = _locate_chunks(parsed, raw_chunks, lib.token_counter)
            lib.catalog.save_document(
                path=f"dataset:{doc['_id']}", size=len(doc["text"]), mtime_ns=0, content_hash=text_hash(doc["text"]),
                parser="code", title=doc["title"], text=parsed.text, page_count=None, chunks=chunks,
                contexts=contextualizer.contextualize(parsed, chunks),
            )
        lib.indexes.sync()
        return {
            chunk_id: f"{path.removeprefix('dataset:')}:{idx}" for chunk_id, path, idx in lib.catalog.chunk_positions()
        }

    def close(self):
        self.library.close()
        self._tmp.cleanup()


def _locate_chunks(doc: ParsedDocument, raw_chunks: list[dict], counter) -> list[Chunk]:
    from desktop_rag.core.files.chunking import HeadingPaths

    paths = HeadingPaths(doc.headings)
    chunks, cursor = [], 0
    counts = counter.count([c["text"] for c in raw_chunks])
    for raw, tokens in zip(raw_chunks, counts):
        start = doc.text.find(raw["text"], cursor)
        if start < 0:
            start = max(doc.text.find(raw["text"]), 0)
        end = start + len(raw["text"])
        cursor = max(cursor, start)
        chunks.append(Chunk(raw["index"], raw["text"], start, end, None, paths.at(start), tokens,
                            text_hash(raw["text"])))
    return chunks


def _score(indexed: IndexedDataset, dataset: Dataset, config: EvalConfig, cutoffs: list[int],
           log: TextIO | None) -> EvalReport:
    lib = indexed.library
    started = time.perf_counter()
    depth = max(cutoffs)
    recall_sums = {k: 0.0 for k in cutoffs}
    reciprocal_ranks = 0.0
    first_ranks: dict[str, int | None] = {}
    relevant_ranks: dict[str, dict[str, int | None]] = {}
    # Deeper than the cut-offs (without rerank the order of the top k does not depend on k) so the ranks of
    # relevant chunks can be compared between configurations beyond 20; with rerank, k sets the reranked pool.
    search_depth = depth if config.rerank else max(depth, lib.settings.candidates)
    notices: set[str] = set(indexed.notices)
    for number, query in enumerate(dataset.queries, start=1):
        result = lib.search(query["text"], k=search_depth, mode=config.mode, rerank=config.rerank)
        notices.update(result.notices)
        ranked = [indexed.chunk_names[h.chunk_id] for h in result.hits]
        relevant = dataset.qrels[query["_id"]]
        for k in cutoffs:
            recall_sums[k] += len(relevant.intersection(ranked[:k])) / len(relevant)
        first = next((rank for rank, name in enumerate(ranked[:depth], start=1) if name in relevant), None)
        reciprocal_ranks += 1.0 / first if first else 0.0
        first_ranks[query["_id"]] = first
        positions = {name: rank for rank, name in enumerate(ranked, start=1)}
        relevant_ranks[query["_id"]] = {name: positions.get(name) for name in sorted(relevant)}
        if log and number % 50 == 0:
            log.write(f"  {config.label}: {number}/{len(dataset.queries)} queries\n")
    n = len(dataset.queries)
    stats = lib.catalog.stats()
    contexts, texts = [], []
    for _, context, text in lib.catalog.iter_index_texts():
        contexts.append(context)
        texts.append(index_text(context, text))
    pieces = lib.token_counter.count(texts)
    return EvalReport(
        dataset=dataset.name,
        config={"contexts": config.contexts, "mode": config.mode, "rerank": config.rerank,
                "embedding_model": lib.embedder.name, "candidates": lib.settings.candidates,
                "llm_model": lib.settings.llm_model if config.contexts == "llm" else None,
                "llm_levels": lib.settings.llm_context_levels if config.contexts == "llm" else None},
        recall={str(k): round(recall_sums[k] / n, 4) for k in cutoffs},
        mrr=round(reciprocal_ranks / n, 4),
        seconds=round(indexed.build_seconds + time.perf_counter() - started, 1),
        queries=n,
        chunks=len(texts),
        context_avg_words=round(sum(len(context_words(c)) for c in contexts) / max(len(contexts), 1), 1),
        over_embedder_limit=round(sum(p > window_limit(lib.token_counter) for p in pieces) / max(len(pieces), 1), 3),
        notices=sorted(notices),
        context_sources=stats["contexts_by_source"],
        context_seconds=stats["context_seconds"],
        first_relevant_rank=first_ranks,
        relevant_ranks=relevant_ranks,
        contexts=stored_contexts(lib, indexed.chunk_names) if config.contexts != "none" else None,
    )


def stored_contexts(library, chunk_names: dict[int, str]) -> dict[str, dict]:
    """Chunk name → the context the evaluation indexed, for analysis after the run (the library is temporary)."""
    return {chunk_names[chunk_id]: context for chunk_id, context in library.catalog.contexts.all_contexts().items()
            if chunk_id in chunk_names}


def evaluate(dataset: Dataset, config: EvalConfig, cutoffs: list[int], settings: Settings,
             log: TextIO | None = None) -> EvalReport:
    return evaluate_modes(dataset, [config], cutoffs, settings, log)[0]


def evaluate_modes(dataset: Dataset, configs: list[EvalConfig], cutoffs: list[int], settings: Settings,
                   log: TextIO | None = None) -> list[EvalReport]:
    """Several search modes (configs sharing one contexts choice) scored on one indexed library: the indexing,
    which is most of an evaluation's time, is done once."""
    if len({config.contexts for config in configs}) != 1:
        raise ValueError("evaluate_modes: one contexts choice for all configurations")
    indexed = IndexedDataset(dataset, configs[0].contexts, settings, log)
    try:
        return _score_each(indexed, dataset, configs, cutoffs, log)
    finally:
        indexed.close()


def _score_each(indexed: IndexedDataset, dataset: Dataset, configs: list[EvalConfig], cutoffs: list[int],
                log: TextIO | None) -> list[EvalReport]:
    reports = []
    for config in configs:
        reports.append(_score(indexed, dataset, config, cutoffs, log))
        indexed.build_seconds = 0.0  # the build is counted once, on the first report that used it
    return reports


def compare_configurations(dataset: Dataset, cutoffs: list[int], settings: Settings,
                           log: TextIO | None = None) -> list[EvalReport]:
    """Plain, rules and LLM (document summary) contexts, each dense and hybrid, + rerank where a reranker is set.

    The LLM rows cost minutes (one model call per document); `seconds` shows it. Where the model is missing,
    the LLM rows fall back to rules and their notice says so."""
    rows = []
    for contexts in ("none", "rules", "llm"):
        indexed = IndexedDataset(dataset, contexts, settings, log)
        try:
            configs = [EvalConfig(contexts, "dense"), EvalConfig(contexts, "hybrid")]
            if contexts != "none" and settings.rerank_model:
                configs.append(EvalConfig(contexts, "hybrid", rerank=True))
            rows.extend(_score_each(indexed, dataset, configs, cutoffs, log))
            if contexts == "llm":
                _add_quality_analysis(rows, context_qualities(rows[-1].contexts or {}),
                                      max(*cutoffs, settings.candidates))
        finally:
            indexed.close()
    return rows


def _add_quality_analysis(rows: list[EvalReport], qualities, depth: int) -> None:
    plain = {r.config["mode"]: r for r in rows if r.config["contexts"] == "none"}
    for row in rows:
        if row.config["contexts"] == "llm" and not row.config["rerank"] and row.config["mode"] in plain:
            row.quality_analysis = quality_vs_retrieval(plain[row.config["mode"]].relevant_ranks,
                                                        row.relevant_ranks, qualities, depth)


def print_table(rows: list[EvalReport], cutoffs: list[int], out: TextIO) -> None:
    if rows:
        out.write(f"Dataset {rows[0].dataset}: {rows[0].queries} queries, {rows[0].chunks} chunks\n")
    header = ["configuration"] + [f"R@{k}" for k in cutoffs] + ["MRR", "ctx words", ">limit", "ctx s", "seconds"]
    table = [header]
    for r in rows:
        label = EvalConfig(r.config["contexts"], r.config["mode"], r.config["rerank"]).label
        table.append([label] + [f"{100 * r.recall[str(k)]:.2f}" for k in cutoffs]
                     + [f"{r.mrr:.3f}", f"{r.context_avg_words:g}", f"{100 * r.over_embedder_limit:.0f}%",
                        f"{r.context_seconds:.0f}", f"{r.seconds:.1f}"])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        out.write("  ".join(cell.ljust(w) if j == 0 else cell.rjust(w) for j, (cell, w) in enumerate(zip(row, widths))))
        out.write("\n")
        if i == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")
    for notice in sorted({n for r in rows for n in r.notices}):
        out.write(f"note: {notice}\n")
    for r in rows:
        if r.quality_analysis:
            label = EvalConfig(r.config["contexts"], r.config["mode"], r.config["rerank"]).label
            print_quality_analysis(label, r.quality_analysis, out)
