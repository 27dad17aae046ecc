"""The catalog's OCR records (migration 0009): recognised text kept by content, and which pages of a document came
from OCR with what confidence. A part of Catalog (`catalog.ocr`)."""

from __future__ import annotations

import json
import time
from desktop_rag.storage.catalog_connection import CatalogConnection

# The OCR confidence of chunk c's page in document d, NULL for a page not read by OCR: for queries over both.
CHUNK_OCR_CONFIDENCE = "json_extract(d.ocr_pages, '$.\"' || c.page || '\"')"

# Recognised pages of content no document has are dropped after this long: long enough for a killed run's
# finished pages to wait for the next run, short enough that old versions of scans do not pile up.
_ORPHAN_OCR_DAYS = 30


class CatalogOcr:
    def __init__(self, connection: CatalogConnection):
        self._connection = connection
        self._db = connection.db
        self._transaction = connection.transaction

    def ocr_texts(self, content_hash: str, recipe: str) -> dict[int, tuple[str, float | None]]:
        """The pages of this content already recognised under `recipe`: {page: (text, confidence)}."""
        rows = self._db.execute("SELECT page, text, confidence FROM ocr_pages WHERE content_hash = ? AND recipe = ?",
                                (content_hash, recipe))
        return {r[0]: (r[1], r[2]) for r in rows}

    def save_ocr_text(self, content_hash: str, recipe: str, page: int, text: str, confidence: float | None,
                      seconds: float) -> None:
        """One recognised page, kept at once: a run stopped after it does not read it again."""
        self._db.execute(
            "INSERT OR REPLACE INTO ocr_pages(content_hash, page, recipe, text, confidence, seconds, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)", (content_hash, page, recipe, text, confidence, seconds, time.time()))

    def forget_old_ocr_texts(self) -> int:
        """Drop pages recognised over _ORPHAN_OCR_DAYS ago whose content no document has now (an old version)."""
        return self._db.execute(
            "DELETE FROM ocr_pages WHERE created_at < ? AND content_hash NOT IN"
            " (SELECT content_hash FROM documents WHERE content_hash IS NOT NULL)",
            (time.time() - _ORPHAN_OCR_DAYS * 86400,)).rowcount

    def set_ocr_record(self, doc_id: int, confidence: dict[int, float | None], unread_scans: int) -> None:
        """What a document's pages owe to OCR, stored with it (save_document, save_failure)."""
        self._db.execute("UPDATE documents SET ocr_pages = ?, unread_scans = ? WHERE id = ?",
                         (json.dumps({str(k): v for k, v in sorted(confidence.items())}) if confidence else None,
                          unread_scans, doc_id))

    def ocr_confidence(self, doc_id: int) -> dict[int, float | None]:
        """{page: confidence} of a document's pages read by OCR."""
        row = self._db.execute("SELECT ocr_pages FROM documents WHERE id = ?", (doc_id,)).fetchone()
        return {int(k): v for k, v in json.loads(row[0]).items()} if row and row[0] else {}

    def ocr_totals(self) -> dict[str, float | int | None]:
        """For `stats`: documents and pages read by OCR, their mean confidence, and scanned pages left unread."""
        pages, confidences, documents = 0, [], 0
        for (record,) in self._db.execute("SELECT ocr_pages FROM documents WHERE ocr_pages IS NOT NULL"):
            documents += 1
            values = json.loads(record).values()
            pages += len(values)
            confidences += [v for v in values if v is not None]
        unread = self._db.execute("SELECT COALESCE(SUM(unread_scans), 0) FROM documents").fetchone()[0]
        return {"documents": documents, "pages": pages, "unread_pages": unread,
                "mean_confidence": round(sum(confidences) / len(confidences), 3) if confidences else None}
