"""A person's hand on one chunk's context: write it, go back to the generated one, ask the model again, approve.
Each is stored at once and searchable as soon as nothing else holds the library (library_writing.py), and each
returns what it changed (core/indexing/changes.py) so that every view showing the chunk shows the new context.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from desktop_rag.config import Settings
from desktop_rag.core.indexing.changes import NOTHING, Changes, context_changed
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.contexts.llm_contexts import LlmContextualizer
from desktop_rag.documents import Chunk, ContextResult, ParsedDocument, question_list
from desktop_rag.errors import ChunkGone
from desktop_rag.storage.catalog import Catalog


@dataclass(frozen=True)
class Regenerated:
    result: ContextResult  # the model's answer, or the rules result when it had none worth keeping
    changes: Changes


class ContextEdits:
    """Library's edits of single contexts (`library.edits`). Wired with the library's catalog, its writer claim,
    its index update for an edit (`index_edit() -> searchable now`) and its contextualizers."""

    def __init__(self, catalog: Catalog, claim_writer: Callable[[], None], index_edit: Callable[[], bool],
                 contextualizer: Callable[..., Contextualizer], settings: Settings):
        self.catalog = catalog
        self._claim_writer, self._index_edit = claim_writer, index_edit
        self.contextualizer, self.settings = contextualizer, settings

    def set_context(self, chunk_id: int, text: str, questions: str | None = None) -> Changes:
        """A person's context for a chunk, and the questions it answers (one per line; None keeps them): they
        replace the generated ones and survive re-indexing while the chunk's text is unchanged. `searchable`: True
        as this returns; False while an indexing run is in progress, and the edit is searchable when it ends
        (stored now either way)."""
        self._claim_writer()  # before the catalog changes: the index update must not fail after it
        if questions is not None:
            questions = "\n".join(" ".join(line.split()) for line in question_list(questions))
        self.catalog.contexts.set_manual_context(chunk_id, " ".join(text.split()), questions)
        return context_changed(chunk_id, searchable=self._index_edit())

    def revert_context(self, chunk_id: int) -> Changes:
        """Back to the generated context; nothing changed (a false Changes) if the chunk had no hand edit."""
        self._claim_writer()
        if not self.catalog.contexts.revert_context(chunk_id):
            return NOTHING
        return context_changed(chunk_id, searchable=self._index_edit())

    def regenerate_context(self, chunk_id: int, on_notice=None) -> Regenerated:
        """A new LLM context for one chunk, replacing what it has, a hand edit included (a person asked for it).
        Sampled when the chunk already has a generated or hand-written context, so the answer differs. When
        the model is unavailable or its answer is rejected, nothing changes and the rules result is returned."""
        from desktop_rag.core.indexing.upgrade import stored_document

        self._claim_writer()
        current = self.catalog.contexts.context(chunk_id)
        document_id = self.catalog.contexts.chunk_document_id(chunk_id) if current is not None else None
        stored = stored_document(self.catalog, document_id) if document_id is not None else None
        if current is None or stored is None:  # its file was changed or removed since the person saw it
            raise ChunkGone(chunk_id)
        position = [row["id"] for row in stored.rows].index(chunk_id)
        sampled = current["source"] in ("llm", "manual")
        # The setting "llm" makes an LlmContextualizer, which samples (core/contexts/choice.py).
        contextualizer = cast(LlmContextualizer, self.contextualizer("llm", on_notice=on_notice))
        result = contextualizer.contextualize(
            stored.document, stored.chunks, only=[position], temperature=0.7 if sampled else 0.0,
            seed=time.time_ns() % 2**31,
        )[position]
        if result.source != "llm":
            return Regenerated(result, NOTHING)
        self.catalog.contexts.replace_context(chunk_id, result)
        return Regenerated(result, context_changed(chunk_id, searchable=self._index_edit()))

    def approve_context(self, chunk_id: int) -> Changes:
        """A person checked the context and keeps it as it is (its text is unchanged; its mark is not)."""
        self._claim_writer()  # another process writing this folder: said, not written beside it
        self.catalog.review.approve_context(chunk_id)
        return context_changed(chunk_id)

    def preview_context(self, document: ParsedDocument, chunks: list[Chunk], position: int,
                        max_words: int | None = None) -> ContextResult:
        """The context the current setting would write for one chunk, not stored (an agent trying a passage)."""
        contextualizer = self.contextualizer(self.settings.contexts, max_words=max_words)
        return contextualizer.contextualize(document, chunks, only=[position])[position]
