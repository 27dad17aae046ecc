"""What the app shows of contexts besides search: the rows to review, and a person's approval. A part of
Catalog (`catalog.review`)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from desktop_rag.documents import NAME_ONLY
from desktop_rag.storage.catalog_ocr import CHUNK_OCR_CONFIDENCE
from desktop_rag.storage.catalog_connection import CatalogConnection

# Filters of the review table: name → SQL condition on contexts x (and chunks c, documents d).
REVIEW_FILTERS = {
    "all": "1",
    "low quality": "x.quality IS NOT NULL AND x.quality < 0.6",
    "rules": "x.source = 'rules'",
    "llm": "x.source = 'llm'",
    "hand-edited": "x.source = 'manual'",
    "not reviewed": "x.reviewed_at IS NULL",
    "scanned": CHUNK_OCR_CONFIDENCE + " IS NOT NULL",
}

REVIEW_ROWS = 5000  # rows the Review tab lists at most (a filter narrows them)


def _reviewable(filter_name: str) -> str:
    """The filter's condition on chunks that have a context to review: not a document's name card (failed, or
    without text), one parameter: documents.NAME_ONLY."""
    return f"({REVIEW_FILTERS[filter_name]}) AND d.status = 'indexed' AND d.parser IS NOT ?"


@dataclass
class FolderState:
    path: str
    indexed: int
    failed: int
    chunks: int
    skipped: int = 0  # not text, or a format nothing here reads


@dataclass
class ReviewRow:
    chunk_id: int
    path: str
    title: str | None
    chunk_index: int
    context: str
    source: str
    quality: float | None
    quality_detail: dict | None
    model: str | None
    reviewed: bool
    ocr_confidence: float | None = None  # the chunk's page is a scan, read by OCR with this mean confidence
    questions: str = ""  # the questions the chunk answers, one per line (llm_questions, or a person's)


class CatalogReview:
    def __init__(self, connection: CatalogConnection):
        self._connection = connection
        self._db = connection.db
        self._transaction = connection.transaction

    def review_rows(self, filter_name: str = "all", limit: int = REVIEW_ROWS) -> list[ReviewRow]:
        rows = self._db.execute(
            "SELECT c.id, d.path, d.title, c.idx, x.text, x.source, x.quality, x.quality_detail, x.model,"
            f" x.reviewed_at, {CHUNK_OCR_CONFIDENCE}, x.questions FROM contexts x JOIN chunks c ON c.id = x.chunk_id"
            f" JOIN documents d ON d.id = c.document_id WHERE {_reviewable(filter_name)} ORDER BY d.path, c.idx"
            " LIMIT ?", (NAME_ONLY, limit),
        ).fetchall()  # all rows first, then the work on them (see Catalog.iter_index_texts: the GIL)
        return [ReviewRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], json.loads(r[7]) if r[7] else None, r[8],
                          r[9] is not None, r[10], r[11]) for r in rows]

    def count_reviewable(self, filter_name: str = "all") -> int:
        """How many rows review_rows would give without its limit (the Review tab says when it shows fewer)."""
        return self._db.execute(
            "SELECT COUNT(*) FROM contexts x JOIN chunks c ON c.id = x.chunk_id"
            f" JOIN documents d ON d.id = c.document_id WHERE {_reviewable(filter_name)}", (NAME_ONLY,),
        ).fetchone()[0]

    def chunk_in_document(self, chunk_id: int) -> tuple[str, int, int] | None:
        """(document text, chunk start, chunk end): the chunk inside its document, for previews."""
        row = self._db.execute(
            "SELECT d.text, c.start_char, c.end_char FROM chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE c.id = ?", (chunk_id,),
        ).fetchone()
        return (row[0] or "", row[1], row[2]) if row else None

    def approve_context(self, chunk_id: int) -> None:
        with self._transaction():
            if not self._db.execute("UPDATE contexts SET reviewed_at = ? WHERE chunk_id = ?",
                                    (time.time(), chunk_id)).rowcount:
                raise KeyError(f"no chunk with id {chunk_id}")
