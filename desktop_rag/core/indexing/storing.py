"""A document read, stored: its contexts (contexts.py), then its row, chunks and contexts in one catalog write; a
document with nothing to read (a deck of charts, a blank page) by its name and metadata; one of scanned pages only,
which OCR could not read, as a failure saying why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from desktop_rag.core.files.scan import FoundFile
from desktop_rag.core.indexing.contexts import ContextStep
from desktop_rag.core.indexing.ocr_pages import OcrPages
from desktop_rag.core.indexing.outcomes import FileOutcomes, Target
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.documents import (MEMBER_SEPARATOR, NAME_ONLY, Chunk, ContextResult, ParsedDocument, name_card,
                                   name_chunk)
from desktop_rag.storage.catalog import DocumentRecord


# What the reader gives for a file or a member: the document, and its chunks.
DocumentRead = tuple[ParsedDocument, list[Chunk]]


class DocumentStore:
    def __init__(self, state: RunState, outcomes: FileOutcomes, ocr: OcrPages, contexts: ContextStep):
        self.state = state
        self.outcomes = outcomes
        self.ocr = ocr
        self.contexts = contexts

    def store(self, where: FoundFile | Target, content_hash: str, known: DocumentRecord | None,
              document: ParsedDocument, chunks: list[Chunk], position: tuple[int, int]) -> None:
        """Contexts for a document read, then the document into the catalog."""
        target = Target.of(where)
        summary, path = self.state.summary, target.path
        if document.scanned_pages and not document.text.strip():
            why = self.ocr.why_not(Path(path.split(MEMBER_SEPARATOR)[0])) or "OCR found no text in them"
            self.outcomes.fail(target, content_hash, f"only scanned pages, not read: {why}",
                               unread_scans=0 if target.member else len(document.scanned_pages))
            return
        if not chunks:  # nothing to read in it (a deck of charts, a blank page): known by its name and metadata
            card = name_card(path, document.title, document.metadata)
            document, chunks = replace(document, text=card, parser=NAME_ONLY), [name_chunk(card)]
            contexts = [ContextResult("", "none")]
            summary.without_text += 1
        else:
            contexts = self.contexts.contexts_for(content_hash, document, chunks, known, position, path)
        self.state.catalog.save_document(
            path=path, size=target.size, mtime_ns=target.mtime_ns, content_hash=content_hash, parser=document.parser,
            title=document.title, text=document.text, page_count=document.page_count, chunks=chunks,
            contexts=contexts, ocr_confidence=document.ocr_confidence,
            unread_scans=0 if target.member else len(document.scanned_pages), metadata=document.metadata,
            member=target.member,
        )
        if target.member:
            summary.inside += 1
        else:
            summary.indexed += 1
        summary.chunks += len(chunks)
        self.state.meter.stored(len(chunks), _pieces_to_embed(chunks, contexts))


def _pieces_to_embed(chunks: list[Chunk], contexts: list[ContextResult]) -> int:
    """The word pieces the embedder will read of a document's chunks and their contexts (for the run's ETA): the
    chunks' are counted already, the contexts' are taken at the document's own pieces per character."""
    pieces = sum(chunk.token_count for chunk in chunks)
    per_char = pieces / max(sum(len(chunk.text) for chunk in chunks), 1)
    return round(pieces + per_char * sum(len(context.text) for context in contexts))
