"""`auto` contexts: the LLM where the time budget allows, rules now (and an upgrade later) where it does not.

Search must never wait for the model. A document goes to the LLM only when its expected cost (its chunks times
the measured seconds per chunk) fits both the per-document and the remaining per-run budget; otherwise it gets
rules contexts at once, and those are exactly what the background upgrade (`contextualize --upgrade`, or the
app when idle) picks up later. The rate starts from what this model cost in earlier runs (the catalog keeps
it) or a cautious guess, and follows what this run measures.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.contexts.rules import RulesContextualizer
from desktop_rag.documents import Chunk, ContextResult, ParsedDocument

# Before anything is measured: the 1.5B model's chunk level on 2 cores (bench/contextualize.py, 3.8 s/chunk).
DEFAULT_SECONDS_PER_CHUNK = 4.0


class BudgetedContextualizer(Contextualizer):
    name = "auto"

    def __init__(self, llm, rules: RulesContextualizer, document_budget_s: float, run_budget_s: float,
                 seconds_per_chunk: float | None = None, on_notice: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter):
        self.llm = llm
        self.rules = rules
        self.document_budget_s = document_budget_s
        self.run_budget_s = run_budget_s
        self.on_notice = on_notice or (lambda message: None)
        self._clock = clock
        self._prior = seconds_per_chunk or DEFAULT_SECONDS_PER_CHUNK
        self._measured_seconds = 0.0
        self._measured_chunks = 0
        self.spent_s = 0.0
        self.deferred_documents = 0

    @property
    def seconds_per_chunk(self) -> float:
        if self._measured_chunks:
            return self._measured_seconds / self._measured_chunks
        return self._prior

    def run_notices(self) -> list[str]:
        if not self.deferred_documents or self.llm.unavailable:
            return []
        return [f"{self.deferred_documents} documents got rules contexts for now (LLM time budget, ~"
                f"{self.seconds_per_chunk:.1f} s per chunk); `desktop-rag contextualize --upgrade` writes their LLM "
                "contexts"]

    def prepare_model(self, chunk_count: int | None = None) -> None:
        """Load the model if a document of `chunk_count` chunks (None: any) would be given to it."""
        if self.run_budget_s > 0 and (chunk_count is None or self._fits(chunk_count)):
            self.llm.prepare_model()

    @property
    def model_ready(self) -> bool:
        return self.llm.model_ready

    def _fits(self, chunk_count: int) -> bool:
        expected = chunk_count * self.seconds_per_chunk
        return (not self.llm.unavailable and expected <= self.document_budget_s
                and self.spent_s + expected <= self.run_budget_s)

    def cache_key(self) -> tuple[str, str] | None:
        # Cached LLM contexts are free: reuse them whatever the budget says.
        return self.llm.cache_key() if self.run_budget_s > 0 else None

    def contextualize(self, document: ParsedDocument, chunks: Sequence[Chunk],
                      only: Sequence[int] | None = None) -> list[ContextResult]:
        wanted = len(chunks) if only is None else len(only)
        if not chunks or not self._fits(wanted):
            self._defer()
            return self.rules.contextualize(document, chunks)
        started = self._clock()
        contexts = self.llm.contextualize(document, chunks, only=only)
        seconds = self._clock() - started
        self.spent_s += seconds
        if self.llm.unavailable is None:
            self._measured_seconds += seconds
            self._measured_chunks += wanted
        return contexts

    def _defer(self) -> None:
        self.deferred_documents += 1
        if self.deferred_documents == 1 and not self.llm.unavailable and self.run_budget_s > 0:
            self.on_notice(
                f"LLM time budget reached (~{self.seconds_per_chunk:.1f} s per chunk): further documents get rules "
                "contexts now; `desktop-rag contextualize --upgrade` (or the app, when idle) writes their LLM "
                "contexts later"
            )
