"""The contexts a document gets in an indexing run: reused from the cache when this model and prompt already wrote
them for the same content, kept for chunks whose text did not change, new ones asked of the contextualizer (its
model loaded first, with a word to the person watching)."""

from __future__ import annotations

import time
from dataclasses import replace

from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.indexing.report import LOADING_NOTE, Progress
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.core.llm.interrupt import Interrupted
from desktop_rag.documents import RULES_FOR_LOW_OCR
from desktop_rag.storage.catalog import DocumentRecord


class ContextStep:
    def __init__(self, state: RunState, contextualizer: Contextualizer):
        self.state = state
        self.contextualizer = contextualizer

    def contexts_for(self, content_hash: str, document, chunks, known: DocumentRecord | None,
                     position: tuple[int, int], path: str) -> list:
        """The contexts of a document's chunks: reused from the cache, or written. `position`: (files done, files in
        the run), for the contextualize phase's progress."""
        t1 = time.perf_counter()
        self.state.progress(Progress("contextualize", *position, path))
        contexts = self._cached_contexts(content_hash, document, chunks)
        while contexts is None:
            try:
                self._prepare_model(len(chunks), position, path)
                contexts = self._contexts(document, chunks, known, path)
            except Interrupted:  # paused (asked again on resume) or cancelled (the file is redone next run)
                self.state.control.checkpoint()
        self.state.summary.phase_seconds["contextualize"] += time.perf_counter() - t1
        return contexts

    def _prepare_model(self, chunk_count: int, position: tuple[int, int], path: str) -> None:
        """A language model that is about to be asked is loaded first, with a word to the person watching."""
        if not self.contextualizer.model_ready:
            self.state.progress(Progress("contextualize", *position, path, note=LOADING_NOTE))
            self.contextualizer.prepare_model(chunk_count)
            self.state.progress(Progress("contextualize", *position, path))

    def _cached_contexts(self, content_hash: str, document, chunks) -> list | None:
        """The contexts this model and prompt already wrote for the same content (a copy, a file touched or
        re-indexed), or None: only a complete set is reused, since a document's contexts come from one pass."""
        key = self.contextualizer.cache_key()
        if key is None or not chunks:
            return None
        cached = self.state.catalog.contexts.cached_contexts(content_hash, document.title, *key)
        if not all(chunk.text_hash in cached for chunk in chunks):
            return None
        self.state.summary.reused_contexts += len(chunks)
        return [cached[chunk.text_hash] for chunk in chunks]

    def _contexts(self, document, chunks, known: DocumentRecord | None, path: str) -> list:
        """New contexts only for chunks whose text is new: a changed document's other chunks keep theirs, as a
        document first read after its damaged catalog was rebuilt keeps the model's contexts read out of it.
        Chunks of garbled OCR text get rules contexts, kept as such (RULES_FOR_LOW_OCR)."""
        stored = self.state.catalog.contexts
        previous = (stored.reusable_contexts(known.id) if known and known.status == "indexed"
                    else stored.salvaged_contexts(path) if known is None else {})
        missing = [i for i, chunk in enumerate(chunks) if chunk.text_hash not in previous]
        garbled = set(document.garbled_chunks(chunks))
        asked = [i for i in missing if i not in garbled]
        if len(asked) == len(chunks):
            fresh = self.contextualizer.contextualize(document, chunks)
        else:  # the chunks not asked about get rules contexts
            fresh = self.contextualizer.contextualize(document, chunks, only=asked) if missing else []
        self.state.summary.kept_contexts += len(chunks) - len(missing)
        contexts = [previous[c.text_hash] if c.text_hash in previous else fresh[i] for i, c in enumerate(chunks)]
        for i in garbled:
            if contexts[i].source == "rules":
                contexts[i] = replace(contexts[i], prompt_version=RULES_FOR_LOW_OCR)
        return contexts
