"""Contexts written by a local model, at the levels asked for: one summary per document (cheap: one call per
document) and/or one situating sentence per chunk (the published recipe: dearer, measured best with the 1.5B
model), placed after the rules' title, section and position.

Whatever goes wrong with the model (missing file, crash, an answer that cleans up to nothing, a score below the
threshold) the chunk gets its rules context instead: search never waits on the model and never gets worse than
rules.
"""

from __future__ import annotations

import logging
from typing import Callable, Sequence

from desktop_rag.core.contexts import RulesContextualizer
from desktop_rag.core.llm.backend import Completion, LlmBackend
from desktop_rag.core.llm.cleanup import clean_context, split_sentences
from desktop_rag.core.llm.models import ModelUnavailable
from desktop_rag.core.llm.prompts import CHUNK_CONTEXT, DOCUMENT_SUMMARY, PROMPT_VERSION, document_messages
from desktop_rag.core.models import Chunk, ContextResult, ParsedDocument
from desktop_rag.core.quality import score_context

log = logging.getLogger(__name__)

SUMMARY_MAX_TOKENS = 80
CHUNK_MAX_TOKENS = 60  # one sentence; generation dominates a warm chunk's time, so answers stay short
# Below this a context is not worth its place in front of the chunk; rules are kept instead.
MIN_QUALITY = 0.45
# Prompt room for the document. Prompt evaluation dominates a cold call (~115 tokens/s for the 0.5B model on
# 2 cores), so 1,500 tokens keep a document near 15 s. A longer document is shown as its head plus the section
# around the chunk: the head stays a shared, cached prefix for all of its chunks.
DOCUMENT_BUDGET_TOKENS = 1500
_HEAD_SHARE = 2 / 3
LEVELS = ("document", "chunk", "document+chunk")


class LlmContextualizer:
    name = "llm"

    def __init__(self, backend_factory: Callable[[], LlmBackend], rules: RulesContextualizer,
                 on_notice: Callable[[str], None] | None = None, levels: str = "document"):
        if levels not in LEVELS:
            raise ValueError(f"unknown LLM context levels {levels!r}; pick one of {', '.join(LEVELS)}")
        self._backend_factory = backend_factory
        self._backend: LlmBackend | None = None
        self._unavailable: str | None = None
        self.rules = rules
        self.levels = set(levels.split("+"))
        self.prompt_version = f"{PROMPT_VERSION}/{levels}"
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
        # A single chunk is the document: its summary is its context, no per-chunk call.
        want_chunk_level = "chunk" in self.levels and len(chunks) > 1
        want_summary = "document" in self.levels or not want_chunk_level
        costs = [_Cost() for _ in chunks]
        try:
            head = _head(document.text, backend, DOCUMENT_BUDGET_TOKENS)
            summary = self._summary(backend, head, costs[0]) if want_summary else []
            own = (self._chunk_sentences(backend, document, head, chunks, costs) if want_chunk_level
                   else [""] * len(chunks))
        except Exception as exc:  # a model crash on one document must not end the run
            log.exception("LLM contexts failed for %s", document.title)
            self.on_notice(f"LLM failed on '{document.title}', rules contexts used: {exc.__class__.__name__}: {exc}")
            return rules
        results = []
        for chunk, rule, sentence, cost in zip(chunks, rules, own, costs):
            if not summary and not sentence:
                results.append(rule)
                continue
            text = self._compose(document, chunk, len(chunks), sentence, summary)
            quality, detail = score_context(text, chunk.text, f"{document.title}\n{document.text}")
            if quality < MIN_QUALITY:
                results.append(rule)
                continue
            results.append(ContextResult(
                text=text, source="llm", model=backend.name, prompt_version=self.prompt_version, quality=quality,
                quality_detail=detail, prompt_tokens=cost.prompt_tokens, completion_tokens=cost.completion_tokens,
                seconds=round(cost.seconds, 3),
            ))
        return results

    def _summary(self, backend: LlmBackend, head: str, cost: "_Cost") -> list[str]:
        completion = backend.chat(document_messages(head, DOCUMENT_SUMMARY), max_tokens=SUMMARY_MAX_TOKENS)
        cost.add(completion)
        return split_sentences(clean_context(completion.text, truncated=completion.finish_reason == "length"))

    def _chunk_sentences(self, backend: LlmBackend, document: ParsedDocument, head: str, chunks: Sequence[Chunk],
                         costs: list["_Cost"]) -> list[str]:
        """One situating sentence per chunk, asked in document order so the document prefix stays cached."""
        whole = head == document.text
        sentences = []
        for chunk, cost in zip(chunks, costs):
            excerpt = document.text if whole else _head_and_section(document.text, head, chunk)
            question = CHUNK_CONTEXT.format(passage=chunk.text)
            completion = backend.chat(document_messages(excerpt, question), max_tokens=CHUNK_MAX_TOKENS)
            cost.add(completion)
            cleaned = clean_context(completion.text, passage=chunk.text, truncated=completion.finish_reason == "length")
            sentences.append(split_sentences(cleaned)[0] if cleaned else "")
        return sentences

    def _compose(self, document: ParsedDocument, chunk: Chunk, total: int, own: str, summary: list[str]) -> str:
        """Situation, the chunk's own sentence, then as many whole summary sentences as fit: never half a one."""
        head = self.rules.situation(document, chunk, total)
        sentences = ([own] if own else []) + list(summary)
        while sentences:
            text = f"{head} {' '.join(sentences)}"
            if self.rules.fit(text) == text or len(sentences) == 1:
                return self.rules.fit(text)
            sentences.pop()
        return head


class _Cost:
    def __init__(self):
        self.prompt_tokens = self.completion_tokens = 0
        self.seconds = 0.0

    def add(self, completion: Completion) -> None:
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.seconds += completion.seconds


def _head(text: str, backend: LlmBackend, budget_tokens: int) -> str:
    # Characters per token vary (code ~3, prose ~4); estimate, then confirm with the model's tokenizer.
    if len(text) <= budget_tokens * 3:
        return text
    cut = budget_tokens * 4
    while cut > 0 and backend.count_tokens(text[:cut]) > budget_tokens:
        cut = int(cut * 0.85)
    return text[:cut]


def _head_and_section(text: str, full_head: str, chunk: Chunk) -> str:
    """The document's head (a shared prefix across its chunks) and the text around the chunk, within the budget
    the whole head would have used."""
    head = full_head[: int(len(full_head) * _HEAD_SHARE)]
    room = max(0, (len(full_head) - len(head) - (chunk.end_char - chunk.start_char)) // 2)
    start = max(len(head), chunk.start_char - room)
    end = min(len(text), chunk.end_char + room)
    return f"{head}\n[…]\n{text[start:end]}"
