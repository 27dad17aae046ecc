"""Contexts written by a local model, one summary per document (the level that measured the best retrieval gain
per CPU-minute with the models we can ship), placed after the rules' title, section and position.

Whatever goes wrong with the model (missing file, crash, an answer that cleans up to nothing, a score below the
threshold) the chunk gets its rules context instead: search never waits on the model and never gets worse than
rules.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, Sequence

from desktop_rag.core.contexts import RulesContextualizer
from desktop_rag.core.llm.backend import LlmBackend
from desktop_rag.core.llm.cleanup import clean_context, split_sentences
from desktop_rag.core.llm.models import ModelUnavailable
from desktop_rag.core.llm.prompts import DOCUMENT_SUMMARY, PROMPT_VERSION, document_messages
from desktop_rag.core.models import Chunk, ContextResult, ParsedDocument
from desktop_rag.core.quality import score_context

log = logging.getLogger(__name__)

SUMMARY_MAX_TOKENS = 80
# Below this a summary is not worth its place in front of every chunk of the document; rules are kept instead.
MIN_QUALITY = 0.45
# Prompt room for the document: its head. A summary needs the beginning most, and prompt evaluation dominates
# the cost (~115 tokens/s for the 0.5B model on 2 cores), so 1,500 tokens keep a document near 15 s.
DOCUMENT_BUDGET_TOKENS = 1500


class LlmContextualizer:
    name = "llm"

    def __init__(self, backend_factory: Callable[[], LlmBackend], rules: RulesContextualizer,
                 on_notice: Callable[[str], None] | None = None):
        self._backend_factory = backend_factory
        self._backend: LlmBackend | None = None
        self._unavailable: str | None = None
        self.rules = rules
        self.on_notice = on_notice or (lambda message: None)

    @property
    def unavailable(self) -> str | None:
        """Why the model cannot be used (it was missing or failed to load), or None."""
        return self._unavailable

    def _get_backend(self) -> LlmBackend | None:
        if self._backend is None and self._unavailable is None:
            try:
                self._backend = self._backend_factory()
            except (ModelUnavailable, OSError, ValueError) as exc:
                self._unavailable = str(exc)
                self.on_notice(f"LLM contexts unavailable, using rules contexts instead: {exc}")
        return self._backend

    def contextualize(self, document: ParsedDocument, chunks: Sequence[Chunk]) -> list[ContextResult]:
        rules = self.rules.contextualize(document, chunks)
        backend = self._get_backend()
        if backend is None or not chunks:
            return rules
        try:
            summary, completion_info = self._summary(backend, document)
        except Exception as exc:  # a model crash on one document must not end the run
            log.exception("LLM summary failed for %s", document.title)
            self.on_notice(f"LLM failed on '{document.title}', rules contexts used: {exc.__class__.__name__}: {exc}")
            return rules
        if not summary:
            return rules
        results = []
        for chunk, rule in zip(chunks, rules):
            text = self._compose(document, chunk, len(chunks), summary)
            quality, detail = score_context(text, chunk.text, f"{document.title}\n{document.text}")
            if quality < MIN_QUALITY:
                results.append(rule)
                continue
            results.append(ContextResult(
                text=text, source="llm", model=backend.name, prompt_version=PROMPT_VERSION, quality=quality,
                quality_detail=detail, **completion_info,
            ))
            completion_info = {"prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0}  # counted once per document
        return results

    def _summary(self, backend: LlmBackend, document: ParsedDocument) -> tuple[str, dict]:
        excerpt = _head(document.text, backend, DOCUMENT_BUDGET_TOKENS)
        started = time.perf_counter()
        completion = backend.chat(document_messages(excerpt, DOCUMENT_SUMMARY), max_tokens=SUMMARY_MAX_TOKENS)
        summary = clean_context(completion.text, truncated=completion.finish_reason == "length")
        info = {
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "seconds": round(time.perf_counter() - started, 3),
        }
        return summary, info

    def _compose(self, document: ParsedDocument, chunk: Chunk, total: int, summary: str) -> str:
        """Situation first, then as many whole summary sentences as fit: never half a sentence."""
        head = self.rules.situation(document, chunk, total)
        sentences = split_sentences(summary)
        while sentences:
            text = f"{head} {' '.join(sentences)}"
            if self.rules.fit(text) == text or len(sentences) == 1:
                return self.rules.fit(text)
            sentences.pop()
        return head


def _head(text: str, backend: LlmBackend, budget_tokens: int) -> str:
    # Characters per token vary (code ~3, prose ~4); estimate, then confirm with the model's tokenizer.
    if len(text) <= budget_tokens * 3:
        return text
    cut = budget_tokens * 4
    while cut > 0 and backend.count_tokens(text[:cut]) > budget_tokens:
        cut = int(cut * 0.85)
    return text[:cut]
