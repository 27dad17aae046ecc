"""The background upgrade: documents indexed with rules contexts get LLM contexts later, when there is time.

Works from the catalog alone (no file is read): the stored text and chunks are enough. Only the upgraded chunks
are re-embedded; hand-edited contexts are never touched. Per-chunk contexts are asked a few chunks at a time and
each step is committed: whoever interrupts (a saved file, a person's request, Ctrl-C) waits for one step, not a
whole long document, and the next upgrade asks only about the chunks still waiting.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_rag.core.control import Cancelled, RunControl
from desktop_rag.core.indexing import Progress, ProgressCallback
from desktop_rag.core.models import Chunk, ParsedDocument

# Chunks asked about per step of a document: one batch of questions (~15-30 s with the 1.5B model on 2 cores).
CHUNKS_PER_STEP = 8


@dataclass
class UpgradeSummary:
    documents: int = 0
    upgraded_chunks: int = 0
    kept_rules: int = 0  # the model's answer scored too low, or the model failed
    cancelled: bool = False
    notices: list[str] = field(default_factory=list)


@dataclass
class StoredDocument:
    path: str
    document: ParsedDocument
    chunks: list[Chunk]
    rows: list[dict]  # the catalog's chunk rows (id, source, …), in chunk order


def stored_document(catalog, doc_id: int) -> StoredDocument | None:
    """A document and its chunks as the catalog keeps them, ready for a contextualizer."""
    stored = catalog.document_for_contexts(doc_id)
    if stored is None:
        return None
    doc, rows = stored
    document = ParsedDocument(text=doc["text"], title=doc["title"], parser=doc["parser"])
    chunks = [Chunk(r["idx"], r["text"], r["start_char"], r["end_char"], r["page"], r["heading_path"],
                    r["token_count"], r["text_hash"]) for r in rows]
    return StoredDocument(doc["path"], document, chunks, rows)


def upgrade_contexts(library, on_progress: ProgressCallback | None = None, control: RunControl | None = None,
                     limit: int | None = None) -> UpgradeSummary:
    on_progress = on_progress or (lambda progress: None)
    control = control or RunControl()
    summary = UpgradeSummary()
    contextualizer = library.contextualizer("llm", on_notice=summary.notices.append)
    key = contextualizer.cache_key()
    doc_ids = library.catalog.documents_with_rules_contexts(attempted_by=key)[:limit]
    try:
        for number, doc_id in enumerate(doc_ids):
            stored = stored_document(library.catalog, doc_id)
            on_progress(Progress("contextualize", number, len(doc_ids), stored.path if stored else None))
            control.checkpoint()
            if stored is None:
                continue
            document, chunks, rows = stored.document, stored.chunks, stored.rows
            waiting = [i for i, row in enumerate(rows)
                       if row["source"] == "rules" and (key is None or (row["model"], row["prompt_version"]) != key)]
            for step_number, step in enumerate(_steps(waiting, contextualizer)):
                if step_number:
                    control.checkpoint()
                contexts = contextualizer.contextualize(document, chunks, only=step)
                for i in step:
                    _store(library.catalog, rows[i]["id"], contexts[i], summary)
            summary.documents += 1
            if contextualizer.unavailable:
                break  # no model: every further document would fall back to rules too
        on_progress(Progress("contextualize", len(doc_ids), len(doc_ids)))
    except Cancelled:
        summary.cancelled = True
    library.sync(on_progress, control)
    return summary


def _steps(waiting: list[int], contextualizer) -> list[list[int]]:
    """The waiting chunks in steps. Only per-chunk questions split: a document summary would be asked again in
    every step (the document's text stays in the model's cache between steps, so splitting costs little else)."""
    if getattr(contextualizer, "levels", None) != {"chunk"}:
        return [waiting] if waiting else []
    return [waiting[k:k + CHUNKS_PER_STEP] for k in range(0, len(waiting), CHUNKS_PER_STEP)]


def _store(catalog, chunk_id: int, context, summary: UpgradeSummary) -> None:
    if context.source == "llm" and catalog.upgrade_context(chunk_id, context):
        summary.upgraded_chunks += 1
    else:
        summary.kept_rules += 1
        if context.model:  # the model's answer was rejected: remember, so it is not asked again
            catalog.record_attempt(chunk_id, context)
