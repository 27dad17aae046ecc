"""Contexts written by a local model, at the levels asked for: one summary per document (cheap: one call per
document), one sentence per section of a long document (what the model sees of it besides its head), and/or one
situating sentence per chunk (the published recipe: dearer, measured best with the 1.5B model), placed after the
rules' title, section and position.

Whatever goes wrong with the model (missing file, crash, an answer that cleans up to nothing, a score below the
threshold) the chunk gets its rules context instead: search never waits on the model and never gets worse than
rules. A call cut short because its caller paused or cancelled (Interrupted) is not a failure: it goes up to the
caller, which asks again later.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from collections.abc import Callable, Sequence

from desktop_rag.child_process import ChildFailed
from desktop_rag.config import LLM_CONTEXT_LEVELS as LEVELS
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.contexts.quality import score_context
from desktop_rag.core.contexts.rules import RulesContextualizer
from desktop_rag.core.llm.backend import Completion, LlmBackend, ask_together
from desktop_rag.core.llm.cleanup import clean_context, split_questions, split_sentences
from desktop_rag.core.llm.excerpts import head as document_head
from desktop_rag.core.llm.excerpts import Excerpt, document_excerpts
from desktop_rag.core.llm.interrupt import Interrupted
from desktop_rag.core.llm.models import ModelUnavailable
from desktop_rag.core.llm.prompts import ENGLISH, PROMPT_VERSION, prompts_for
from desktop_rag.documents import Chunk, ContextResult, ParsedDocument
from desktop_rag.errors import BadInput

log = logging.getLogger(__name__)

SUMMARY_MAX_TOKENS = 80
CHUNK_MAX_TOKENS = 60  # one sentence: generation stops at its end, this only caps a runaway one
QUESTION_MAX_TOKENS = 30  # each question asked for after it
# Below this a context is not worth its place in front of the chunk; rules are kept instead.
MIN_QUALITY = 0.45
# Below this an answer is asked for once more, sampled; the better of the two is kept.
RETRY_BELOW = 0.6
RETRY_TEMPERATURE = 0.7
# Prompt room for the document. Prompt evaluation dominates a cold call (~180 tokens/s for the 0.5B model, ~97
# for the 1.5B, on 2 cores), so 1,500 tokens keep a document's first call near 8-15 s. A longer document is shown
# as its head plus windows of its chunks (excerpts.py): the head stays a shared, cached prefix.
DOCUMENT_BUDGET_TOKENS = 1500


class LlmContextualizer(Contextualizer):
    name = "llm"

    def __init__(self, backend_factory: Callable[[], LlmBackend], rules: RulesContextualizer,
                 on_notice: Callable[[str], None] | None = None, levels: str = "document", quote_chars: int = 0,
                 questions: int = 0):
        """`questions`: how many questions each chunk answers the model writes after its sentence (chunk level
        only; 0: none)."""
        if levels not in LEVELS:
            raise BadInput(f"unknown LLM context levels {levels!r}; pick one of {', '.join(LEVELS)}")
        self._backend_factory = backend_factory
        self._backend: LlmBackend | None = None
        self._unavailable: str | None = None
        self._loaded = False
        self.rules = rules
        self._prompts = ENGLISH  # the current document's (contextualize sets it)
        self.levels = set(levels.split("+"))
        self.quote_chars = quote_chars
        self.questions = questions if "chunk" in self.levels else 0
        self.prompt_version = (f"{PROMPT_VERSION}{f'q{quote_chars}' if quote_chars else ''}/{levels}"
                               + (f"+{self.questions}questions" if self.questions else ""))
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

    @property
    def model_ready(self) -> bool:
        """Loaded, or known not to load: asking the model now costs no loading time."""
        return self._loaded or self._unavailable is not None

    def prepare_model(self, chunk_count: int | None = None) -> None:
        """Load the model now (seconds; a minute when a packaged model is first assembled), so that a caller can
        say so instead of sitting at its first document. A model that cannot load leaves rules contexts."""
        backend = self._get_backend()
        load = getattr(backend, "load", None)
        if load is None or self._loaded:
            self._loaded = backend is not None
            return
        try:
            load()
            self._loaded = True
        except Interrupted:
            raise
        except (ImportError, ChildFailed, OSError, ValueError) as exc:  # as contextualize() would meet them
            self._unavailable = f"the model did not load: {exc}"
            self.on_notice(f"LLM contexts unavailable, using rules contexts instead: {self._unavailable}")

    def cache_key(self) -> tuple[str, str] | None:
        """(model, prompt version): with the document's content and the chunk's text, what a context depends on.
        None when no model can be used."""
        backend = self._get_backend()
        return (backend.name, self.prompt_version) if backend is not None else None

    def contextualize(self, document: ParsedDocument, chunks: Sequence[Chunk], only: Sequence[int] | None = None,
                      temperature: float = 0.0, seed: int = 0) -> list[ContextResult]:
        """Contexts for all chunks, or for the chunks at the positions in `only` (the others get rules
        contexts). A temperature above 0 samples instead of taking the likeliest words: a regeneration."""
        rules = self.rules.contextualize(document, chunks)
        wanted = sorted(set(only)) if only is not None else list(range(len(chunks)))
        if not wanted:  # nothing to ask (every chunk garbled OCR text): the model is not even loaded
            return rules
        self._prompts = prompts_for(document.text)  # one document per call: asked in its language
        backend = self._get_backend()
        if backend is None or not chunks:
            return rules
        # A single chunk is the document: its summary is its context, no per-chunk call.
        want_chunk_level = "chunk" in self.levels and len(chunks) > 1
        want_sections = "section" in self.levels and len(chunks) > 1
        want_summary = "document" in self.levels or not want_chunk_level
        costs = [_Cost() for _ in chunks]
        try:
            excerpts = (_only(document_excerpts(document.text, chunks, backend, DOCUMENT_BUDGET_TOKENS), wanted)
                        if want_chunk_level or want_sections else [])
            # With chunk questions to follow, the summary reads the first excerpt: the same cached prefix.
            summary_text = excerpts[0].text if excerpts else document_head(document.text, backend,
                                                                            DOCUMENT_BUDGET_TOKENS)
            summary = (self._summary(backend, summary_text, costs[wanted[0]], temperature, seed)
                       if want_summary else [])
            own, sections, asked = self._excerpt_sentences(backend, excerpts, chunks, costs, temperature, seed,
                                                           chunk_level=want_chunk_level, section_level=want_sections)
            results = {i: self._result(backend, document, chunks, i, own[i], sections[i], summary, costs[i],
                                       asked[i]) for i in wanted}
            if want_chunk_level:
                self._retry_chunks(backend, document, chunks, excerpts, sections, summary, results, costs, seed)
            elif all(_needs_retry(r) for r in results.values()):
                self._retry_summary(backend, document, chunks, sections, summary_text, results, costs, seed)
        except Interrupted:  # its caller was paused or cancelled: nothing is stored, the chunks are asked again
            raise
        except ImportError as exc:  # llama-cpp-python is not installed: no document will do better
            self._unavailable = f"llama-cpp-python is not installed ({exc})"
            self.on_notice(f"LLM contexts unavailable, using rules contexts instead: {self._unavailable}")
            return rules
        except ChildFailed as exc:  # the app's model process was closed (its settings changed) or died
            self._unavailable = str(exc)
            self.on_notice(f"LLM contexts stopped for this run, rules contexts used until the next upgrade: {exc}")
            return rules
        except Exception as exc:  # a model crash on one document must not end the run
            log.exception("LLM contexts failed for %s", document.title)
            self.on_notice(f"LLM failed on '{document.title}', rules contexts used: {exc.__class__.__name__}: {exc}")
            return rules
        final = []
        for i, rule in enumerate(rules):
            result = results.get(i)
            if result is None:
                final.append(rule)
            elif result.source == "llm":
                final.append(result)
            else:  # rejected: rules, with what the attempt cost and who made it (so it is not asked again), and
                # the questions it wrote (each was checked on its own: split_questions)
                final.append(replace(rule, model=backend.name, prompt_version=self.prompt_version,
                                     prompt_tokens=costs[i].prompt_tokens, completion_tokens=costs[i].completion_tokens,
                                     seconds=round(costs[i].seconds, 3), questions=result.questions))
        return final

    # One retry, sampled, for what scored low; the better of the two is kept.

    def _retry_chunks(self, backend, document, chunks, excerpts, sections, summary, results, costs, seed) -> None:
        low = [i for i in results if _needs_retry(results[i])]
        retried, _, asked = self._excerpt_sentences(backend, _only(excerpts, low), chunks, costs, RETRY_TEMPERATURE,
                                                    seed + 1, chunk_level=True, section_level=False)
        for i in low:
            retry = self._result(backend, document, chunks, i, retried[i], sections[i], summary, costs[i],
                                 asked[i])
            results[i] = _better(results[i], retry)

    def _retry_summary(self, backend, document, chunks, sections, summary_text, results, costs, seed) -> None:
        first = min(results)
        summary = self._summary(backend, summary_text, costs[first], RETRY_TEMPERATURE, seed + 1)
        for i in results:
            retry = self._result(backend, document, chunks, i, "", sections[i], summary, costs[i])
            results[i] = _better(results[i], retry)

    def _result(self, backend: LlmBackend, document: ParsedDocument, chunks: Sequence[Chunk], i: int, own: str,
                section: str, summary: list[str], cost: _Cost, questions: Sequence[str] = ()) -> ContextResult:
        """The composed context for chunk i, scored; source "rules" (an empty text) when it is not good enough."""
        if not summary and not own and not section:
            return ContextResult(text="", source="rules", quality=0.0, questions="\n".join(questions))
        text = self._compose(document, chunks[i], len(chunks), [own, section], summary)
        quality, detail = score_context(text, chunks[i].text, f"{document.title}\n{document.text}")
        return ContextResult(
            text=text, source="llm" if quality >= MIN_QUALITY else "rules", model=backend.name,
            prompt_version=self.prompt_version, quality=quality, quality_detail=detail,
            prompt_tokens=cost.prompt_tokens, completion_tokens=cost.completion_tokens, seconds=round(cost.seconds, 3),
            questions="\n".join(questions),
        )

    def _summary(self, backend: LlmBackend, head: str, cost: _Cost, temperature: float, seed: int) -> list[str]:
        prompts = self._prompts
        completion = backend.chat(prompts.document_messages(head, prompts.document_summary),
                                  max_tokens=SUMMARY_MAX_TOKENS, temperature=temperature, seed=seed)
        cost.add(completion)
        return split_sentences(clean_context(completion.text, truncated=completion.finish_reason == "length",
                                             japanese=prompts.japanese))

    def _excerpt_sentences(self, backend: LlmBackend, excerpts, chunks: Sequence[Chunk], costs: list[_Cost],
                           temperature: float, seed: int, chunk_level: bool,
                           section_level: bool) -> tuple[list[str], list[str], list[list[str]]]:
        """Per chunk, its own situating sentence, its section's sentence (or ""), and the questions it answers
        (where asked for). An excerpt's questions are asked together after its text, so its section question
        shares the chunk questions' cached prefix."""
        own, sections = [""] * len(chunks), [""] * len(chunks)
        asked: list[list[str]] = [[] for _ in chunks]
        count = self.questions if chunk_level else 0
        for excerpt in excerpts:
            asks_section = section_level and excerpt.section
            prompts = self._prompts
            questions = ([prompts.section_summary] if asks_section else []) + (
                [prompts.chunk_question(chunks[i].text, self.quote_chars, count) for i in excerpt.chunk_indexes]
                if chunk_level else [])
            if not questions:
                continue
            conversations = [prompts.document_messages(excerpt.text, q) for q in questions]
            alone = 1 if asks_section and count else 0  # a section's answer has no questions to wait for
            completions = (ask_together(backend, conversations[:alone], CHUNK_MAX_TOKENS, temperature, seed)
                           + ask_together(backend, conversations[alone:], CHUNK_MAX_TOKENS
                                          + count * QUESTION_MAX_TOKENS, temperature, seed, count))
            if asks_section:
                section = completions.pop(0)
                costs[excerpt.chunk_indexes[0]].add(section)
                first = _first_sentence(section, japanese=prompts.japanese)
                for i in excerpt.chunk_indexes:
                    sections[i] = first
            for i, completion in zip(excerpt.chunk_indexes, completions):
                costs[i].add(completion)
                sentence, asked[i] = split_questions(completion.text, count)
                own[i] = _first_sentence(replace(completion, text=sentence), passage=chunks[i].text,
                                         japanese=prompts.japanese)
        return own, sections, asked

    def _compose(self, document: ParsedDocument, chunk: Chunk, total: int, specific: list[str],
                 summary: list[str]) -> str:
        """Situation, the chunk's and its section's sentences, then as many whole summary sentences as fit: never
        half a one. When the situation leaves no room for the first sentence, the sentence alone (the model's
        sentence names the document itself); when it does not fit alone either, the situation alone (issue 37: a
        context cut mid-phrase was shown, scored 0.83)."""
        japanese = self._prompts.japanese
        head = self.rules.situation(document, chunk, total, japanese=japanese)
        space = "" if japanese else " "  # Japanese runs its sentences together
        sentences = [s for s in specific if s] + list(summary)
        for end in range(len(sentences), 0, -1):
            text = head + space + space.join(sentences[:end])
            if self.rules.fit(text) == text:
                return text
        if sentences and self.rules.fit(sentences[0]) == sentences[0]:
            return sentences[0]
        return self.rules.fit(head)


class _Cost:
    def __init__(self):
        self.prompt_tokens = self.completion_tokens = 0
        self.seconds = 0.0

    def add(self, completion: Completion) -> None:
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.seconds += completion.seconds



def _first_sentence(completion: Completion, passage: str = "", japanese: bool = False) -> str:
    cleaned = clean_context(completion.text, passage=passage, truncated=completion.finish_reason == "length",
                            japanese=japanese)
    return split_sentences(cleaned)[0] if cleaned else ""


def _only(excerpts: list[Excerpt], wanted: Sequence[int]) -> list[Excerpt]:
    keep = set(wanted)
    narrowed = [Excerpt(e.text, [i for i in e.chunk_indexes if i in keep], e.section) for e in excerpts]
    return [e for e in narrowed if e.chunk_indexes]


def _needs_retry(result: ContextResult) -> bool:
    return (result.quality or 0.0) < RETRY_BELOW


def _better(first: ContextResult, second: ContextResult) -> ContextResult:
    """The higher-scoring of two attempts, carrying the cost of both."""
    best = second if (second.quality or 0.0) > (first.quality or 0.0) else first
    return replace(best, prompt_tokens=second.prompt_tokens, completion_tokens=second.completion_tokens,
                   seconds=second.seconds)
