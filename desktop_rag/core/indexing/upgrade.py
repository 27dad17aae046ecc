"""The background upgrade: documents indexed with rules contexts get LLM contexts later, when there is time.

Works from the catalog alone (no file is read): the stored text and chunks are enough. Only the upgraded chunks
are re-embedded; hand-edited contexts are never touched. Per-chunk contexts are asked a few chunks at a time and
each step is committed. Whoever interrupts (a saved file, a person's request, Pause, Ctrl-C, Quit) cuts the step in
hand short (core/llm/interrupt.py): the steps before it are kept, its chunks are asked again on resume or by the
next upgrade. Upgraded chunks become searchable as the upgrade goes, not only at its end.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from desktop_rag.core.indexing.changes import Changes
from desktop_rag.core.indexing.report import LOADING_NOTE, Progress, ProgressCallback
from desktop_rag.core.llm.interrupt import Interrupted, calls_controlled_by
from desktop_rag.core.progress.control import Cancelled, RunControl
from desktop_rag.core.progress.pacing import CHUNKS_PER_STEP, KEYWORD_REBUILD_EVERY_S
from desktop_rag.documents import MEMBER_SEPARATOR, RULES_FOR_LOW_OCR, Chunk, ParsedDocument



@dataclass
class UpgradeSummary:
    documents: int = 0
    upgraded_chunks: int = 0
    kept_rules: int = 0  # the model's answer scored too low, or the model failed
    interrupted_steps: int = 0  # cut short by a pause (asked again on resume) or a cancel (by the next upgrade)
    cancelled: bool = False
    seconds: float = 0.0
    notices: list[str] = field(default_factory=list)

    @property
    def changes(self) -> Changes:
        return Changes(upgraded=self.upgraded_chunks > 0)


@dataclass
class StoredDocument:
    path: str
    document: ParsedDocument
    chunks: list[Chunk]
    rows: list[dict]  # the catalog's chunk rows (id, source, …), in chunk order


def stored_document(catalog, doc_id: int) -> StoredDocument | None:
    """A document and its chunks as the catalog keeps them, ready for a contextualizer."""
    stored = catalog.contexts.document_for_contexts(doc_id)
    if stored is None:
        return None
    doc, rows = stored
    document = ParsedDocument(text=doc["text"], title=doc["title"], parser=doc["parser"])
    chunks = [Chunk(r["idx"], r["text"], r["start_char"], r["end_char"], r["page"], r["heading_path"],
                    r["token_count"], r["text_hash"]) for r in rows]
    return StoredDocument(doc["path"], document, chunks, rows)


def refresh_rules_contexts(library) -> int:
    """Rewrite the rules contexts in the catalog with the current rules (after an update changed them), so a
    library is never half old wording, half new. Returns how many chunks changed; the next sync indexes them."""
    catalog = library.catalog
    rules = library.contextualizer("rules")
    changed = 0
    for doc_id in catalog.contexts.documents_with_rules_contexts():
        stored = stored_document(catalog, doc_id)
        if stored is None:
            continue
        for row, result in zip(stored.rows, rules.contextualize(stored.document, stored.chunks)):
            if row["source"] == "rules":
                changed += catalog.contexts.refresh_rules_text(row["id"], result.text)
    return changed


def upgrade_contexts(library, on_progress: ProgressCallback | None = None, control: RunControl | None = None,
                     limit: int | None = None) -> UpgradeSummary:
    on_progress = on_progress or (lambda progress: None)
    control = control or RunControl()
    started = time.monotonic()
    upgrade = _Upgrade(library, on_progress, control)
    try:
        with calls_controlled_by(control):
            upgrade.run(limit)
    except Cancelled:
        upgrade.summary.cancelled = True  # nothing is lost: the next sync embeds what was stored
    if not upgrade.summary.cancelled:
        library.indexes.sync(on_progress, control)
    upgrade.summary.seconds = time.monotonic() - started
    return upgrade.summary


class _Upgrade:
    def __init__(self, library, on_progress: ProgressCallback, control: RunControl):
        self.library, self.on_progress, self.control = library, on_progress, control
        self.summary = UpgradeSummary()
        self.contextualizer = library.contextualizer("llm", on_notice=self.summary.notices.append)
        self.chunks_done = 0
        self.chunks_total: int | None = 0  # None: the upgrade of one document (limit), not counted
        self.reason = ""  # why the document in hand comes now (catalog_upgrade_order.REASONS)
        self._last_keyword_rebuild = time.monotonic()

    def run(self, limit: int | None) -> None:
        """Document after document, each time the one the person's use puts first (storage/
        catalog_upgrade_order.py): a search made during the upgrade changes what comes next."""
        catalog = self.library.catalog
        if not self.contextualizer.model_ready:  # the load is reported, not hidden in the first step
            self.on_progress(Progress("contextualize", 0, None, note=LOADING_NOTE))
            self._until_done(self.contextualizer.prepare_model)
        key = self.contextualizer.cache_key()
        self.chunks_total = catalog.contexts.count_rules_contexts(attempted_by=key) if limit is None else None
        tried: set[int] = set()  # a document whose chunks all fell back stays a candidate: not taken twice
        while limit is None or self.summary.documents < limit:
            self.control.checkpoint(between_documents=True)
            self.library.use_notes.write_waiting(catalog)  # the searches made meanwhile count
            picked = catalog.upgrade_order.next_upgrade(key, skip=tried)
            if picked is None:
                break
            doc_id, reason = picked
            tried.add(doc_id)
            stored = stored_document(catalog, doc_id)
            if stored is None:
                continue
            self.reason = reason
            self._upgrade_document(stored, key)
            self.summary.documents += 1
            if self.contextualizer.unavailable:
                break  # no model: every further document would fall back to rules too
            self._make_searchable()
        self.on_progress(Progress("contextualize", self.chunks_done, self.chunks_total or self.chunks_done))

    def _upgrade_document(self, stored: StoredDocument, key) -> None:
        waiting = [i for i, row in enumerate(stored.rows)
                   if row["source"] == "rules" and row["prompt_version"] != RULES_FOR_LOW_OCR
                   and (key is None or (row["model"], row["prompt_version"]) != key)]
        for step in _steps(waiting, self.contextualizer):
            self.on_progress(Progress("contextualize", self.chunks_done, self.chunks_total, stored.path,
                                      note=f"LLM contexts for {_name(stored.path)}, {self.reason}"))
            contexts = self._until_done(
                lambda: self.contextualizer.contextualize(stored.document, stored.chunks, only=step))  # noqa: B023 — called in this iteration
            for i in step:
                _store(self.library.catalog, stored.rows[i]["id"], contexts[i], self.summary)
            self.chunks_done += len(step)

    def _until_done(self, work):
        """`work()`, asked again after a pause cut it short; a cancel ends the upgrade (Cancelled)."""
        while True:
            self.control.checkpoint()
            try:
                return work()
            except Interrupted:
                self.summary.interrupted_steps += 1

    def _make_searchable(self) -> None:
        """Embed what was upgraded so far (cheap: a document's chunks); rebuild the keyword index now and then."""
        library = self.library
        if library.catalog.count_pending_embeddings():
            library.indexes.sync_dense(control=self.control)
        rebuilt_long_ago = time.monotonic() - self._last_keyword_rebuild > KEYWORD_REBUILD_EVERY_S
        if library.catalog.keyword_index_dirty and rebuilt_long_ago:
            library.indexes.sync(control=self.control)
            self._last_keyword_rebuild = time.monotonic()


def _name(path: str) -> str:
    """A document's own name: a file's, or a member's inside its archive or mailbox."""
    return os.path.basename(path.rsplit(MEMBER_SEPARATOR, 1)[-1])


def _steps(waiting: list[int], contextualizer) -> list[list[int]]:
    """The waiting chunks in steps. Only per-chunk questions split: a document summary would be asked again in
    every step (the document's text stays in the model's cache between steps, so splitting costs little else)."""
    if set(contextualizer.levels) != {"chunk"}:
        return [waiting] if waiting else []
    return [waiting[k:k + CHUNKS_PER_STEP] for k in range(0, len(waiting), CHUNKS_PER_STEP)]


def _store(catalog, chunk_id: int, context, summary: UpgradeSummary) -> None:
    if context.source == "llm" and catalog.contexts.upgrade_context(chunk_id, context):
        summary.upgraded_chunks += 1
    else:
        summary.kept_rules += 1
        if context.model:  # the model's answer was rejected: remember, so it is not asked again
            catalog.contexts.record_attempt(chunk_id, context)
