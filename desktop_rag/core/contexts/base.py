"""What every contextualizer offers. Every one works a whole document at a time, because the useful facts (title,
key terms, the model's cached prefix) are per document. The cheap ones keep the defaults below; the LLM's
contextualizers (core/llm) override them."""

from __future__ import annotations

from collections.abc import Sequence

from desktop_rag.documents import Chunk, ContextResult, ParsedDocument


class Contextualizer:
    name = ""
    levels: frozenset[str] | set[str] = frozenset()  # the LLM's: "document", "section", "chunk"

    def contextualize(self, document: ParsedDocument, chunks: Sequence[Chunk],
                      only: Sequence[int] | None = None) -> list[ContextResult]:
        """One context per chunk. `only`: the positions of the chunks that need one (a changed document keeps
        the others'); the result still has one entry per chunk. Cheap contextualizers ignore it."""
        raise NotImplementedError

    @property
    def model_ready(self) -> bool:
        """False while a model this contextualizer will ask has not loaded yet."""
        return True

    def prepare_model(self, chunk_count: int | None = None) -> None:
        """Load the model before the first document is given to it, so the load can be reported as such."""

    def cache_key(self) -> tuple[str, str] | None:
        """(model, prompt version) under which its contexts are kept for reuse by content; None: not worth it."""
        return None

    def run_notices(self) -> list[str]:
        """What a person should know after a run (work left for later, and how to do it)."""
        return []
