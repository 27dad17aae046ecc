"""The catalog's context rows beyond plain storage: hand edits (kept through re-indexing, revertible) and the
upgrade of rules contexts to LLM ones; the contexts a changed document's chunks keep. A part of Catalog
(`catalog.contexts`)."""

from __future__ import annotations

import json
import statistics
import time

from desktop_rag.documents import RULES_FOR_LOW_OCR, ContextResult
from desktop_rag.storage.catalog_chunk_rows import ChunkRows
from desktop_rag.storage.catalog_connection import CatalogConnection
from desktop_rag.storage.catalog_salvage import SALVAGED_COLUMNS
from desktop_rag.storage.context_columns import CONTEXT_COLUMNS, context_values


_COST_COLUMNS = ("prompt_tokens", "completion_tokens", "seconds")
# The LLM's pace is told from this many of its latest contexts, and not before it has written this many.
RECENT_LLM_CHUNKS = 100
MEASURED_ENOUGH = 20
# Rules contexts an upgrade would ask a model about: not tried by that model already, and not kept as rules on purpose
# (the chunk's OCR text is too garbled: RULES_FOR_LOW_OCR). Parameters: model, version, model (no model given: every
# rules context).
RULES_NOT_TRIED = ("x.source = 'rules' AND x.prompt_version IS NOT '" + RULES_FOR_LOW_OCR + "'"
                    " AND NOT (x.model IS ? AND x.prompt_version IS ? AND ? IS NOT NULL)")


class CatalogContexts:
    """The contexts of the catalog's chunks, read and changed: the cache, the upgrade, hand edits."""

    def __init__(self, connection: CatalogConnection, rows: ChunkRows):
        self._connection = connection
        self._db = connection.db
        self._transaction = connection.transaction
        self._rows = rows


    def reusable_contexts(self, doc_id: int) -> dict[str, ContextResult]:
        """Chunk text hash → the model's or a person's context that the document's chunk with that text has now.
        When the document changes, chunks whose text did not change keep these (no model call). Rules contexts
        are not reused: they are free to write again and name document-wide facts (key terms, part n of m) that
        the change may have altered; where the new one is the same, the chunk still keeps its vector. The cost
        of a kept context was counted when it was written, so it is not carried again."""
        rows = self._db.execute(
            "SELECT c.text_hash, x.text, x.source, x.model, x.prompt_version, x.quality, x.quality_detail"
            " FROM chunks c JOIN contexts x ON x.chunk_id = c.id"
            " WHERE c.document_id = ? AND x.source IN ('llm', 'manual')",
            (doc_id,),
        )
        return {r[0]: ContextResult(r[1], r[2], r[3], r[4], r[5], json.loads(r[6]) if r[6] else None) for r in rows}

    def salvaged_contexts(self, path: str) -> dict[str, ContextResult]:
        """Chunk text hash → the model's context read out of a damaged catalog for the document at `path`
        (storage/catalog_salvage.py): kept for the chunks whose text is the same, as a changed document's are."""
        rows = self._db.execute(
            "SELECT chunk_text_hash, text, source, model, prompt_version, quality, quality_detail, questions"
            " FROM salvaged_contexts WHERE path = ? AND source = 'llm'", (path,))
        return {r[0]: ContextResult(r[1], r[2], r[3], r[4], r[5], json.loads(r[6]) if r[6] else None,
                                    questions=r[7]) for r in rows}

    def keep_salvaged(self, rows: list[tuple]) -> None:
        """Rows of salvaged_contexts (catalog_salvage.SALVAGED_COLUMNS), given back as their files are read."""
        columns = ", ".join(SALVAGED_COLUMNS)
        with self._transaction():
            self._db.executemany(f"INSERT OR REPLACE INTO salvaged_contexts ({columns})"
                                 f" VALUES ({', '.join('?' * len(SALVAGED_COLUMNS))})", rows)

    def salvaged_waiting(self) -> int:
        """Salvaged contexts whose files have not been read again yet."""
        return self._db.execute("SELECT count(*) FROM salvaged_contexts").fetchone()[0]

    # -- the context cache ----------------------------------------------------------------------------------

    def cached_contexts(self, document_hash: str, title: str, model: str, prompt_version: str
                        ) -> dict[str, ContextResult]:
        """Contexts the given model and prompt wrote for a document with this content and title, by chunk text
        hash. Includes rules contexts the model's answers were rejected for (asking again would give the same).
        The title is part of the key because every context opens with it."""
        rows = self._db.execute(
            "SELECT x.chunk_text_hash, x.text, x.source, x.model, x.prompt_version, x.quality, x.quality_detail,"
            " x.questions"
            " FROM contexts x"
            " JOIN chunks c ON c.id = x.chunk_id JOIN documents d ON d.id = c.document_id"
            " WHERE x.document_hash = ? AND d.title IS ? AND x.model = ? AND x.prompt_version = ?"
            " AND x.source IN ('llm', 'rules')",
            (document_hash, title, model, prompt_version),
        )
        return {r["chunk_text_hash"]: ContextResult(
            text=r["text"], source=r["source"], model=r["model"], prompt_version=r["prompt_version"],
            quality=r["quality"], quality_detail=json.loads(r["quality_detail"]) if r["quality_detail"] else None,
            questions=r["questions"],
            # Reused, not generated: this copy cost nothing.
        ) for r in rows}

    def all_contexts(self) -> dict[int, dict]:
        """Chunk id → text, source, quality and breakdown of every context (evaluation reads them all)."""
        rows = self._db.execute("SELECT chunk_id, text, source, quality, quality_detail, questions FROM contexts")
        return {chunk_id: {"text": text, "source": source, "quality": quality,
                           "breakdown": json.loads(detail) if detail else None, "questions": questions}
                for chunk_id, text, source, quality, detail, questions in rows}

    def llm_seconds_per_chunk(self) -> float | None:
        """What a chunk's LLM context costs on this machine lately: the median of the last RECENT_LLM_CHUNKS
        written (a cold first chunk or a busy hour does not move it much); None until MEASURED_ENOUGH are. Issue
        37: the mean of one document on a busy CPU promised "~105 h" for a library, and was never revised."""
        seconds = [r[0] for r in self._db.execute(
            "SELECT seconds FROM contexts WHERE model IS NOT NULL AND source != 'manual' AND seconds > 0"
            " ORDER BY updated_at DESC LIMIT ?", (RECENT_LLM_CHUNKS,))]
        return statistics.median(seconds) if len(seconds) >= MEASURED_ENOUGH else None

    # -- upgrading contexts ---------------------------------------------------------------------------------

    def documents_with_rules_contexts(self) -> list[int]:
        """Documents with at least one chunk whose context came from rules (what an upgrade takes, in the order of
        catalog_upgrade_order.py; here, in id order, the ones whose rules wording is refreshed)."""
        return [r[0] for r in self._db.execute(
            "SELECT DISTINCT c.document_id FROM contexts x JOIN chunks c ON c.id = x.chunk_id"
            f" WHERE {RULES_NOT_TRIED} ORDER BY c.document_id",
            (None, None, None),
        )]

    def count_rules_contexts(self, attempted_by: tuple[str, str] | None = None) -> int:
        """Chunks an upgrade would ask about: rules contexts, less those `attempted_by` (model, prompt version)
        already tried and fell back on."""
        model, version = attempted_by or (None, None)
        return self._db.execute(f"SELECT COUNT(*) FROM contexts x WHERE {RULES_NOT_TRIED}",
                                (model, version, model)).fetchone()[0]

    def document_for_contexts(self, doc_id: int) -> tuple[dict, list[dict]] | None:
        """A document's stored text and chunks, enough to write contexts again without reading the file."""
        doc = self._db.execute(
            "SELECT id, path, title, text, parser, content_hash FROM documents WHERE id = ? AND status = 'indexed'",
            (doc_id,),
        ).fetchone()
        if doc is None:
            return None
        chunks = self._db.execute(
            "SELECT c.id, c.idx, c.text, c.text_hash, c.start_char, c.end_char, c.page, c.heading_path,"
            " c.token_count, x.source, x.model, x.prompt_version FROM chunks c JOIN contexts x ON x.chunk_id = c.id"
            " WHERE c.document_id = ? ORDER BY c.idx",
            (doc_id,),
        ).fetchall()
        return dict(doc), [dict(c) | {"heading_path": json.loads(c["heading_path"])} for c in chunks]

    def upgrade_context(self, chunk_id: int, context: ContextResult) -> bool:
        """Replace a rules context by a better generated one; a hand edit is never touched."""
        with self._transaction():
            assignments = ", ".join(f"{column} = ?" for column in CONTEXT_COLUMNS)
            changed = self._db.execute(
                f"UPDATE contexts SET {assignments}, updated_at = ?, reviewed_at = NULL"
                " WHERE chunk_id = ? AND source = 'rules'",
                (*context_values(context), time.time(), chunk_id),
            ).rowcount
            if changed:
                self._rows.requeue(chunk_id)
        return bool(changed)

    def refresh_rules_text(self, chunk_id: int, text: str) -> bool:
        """New wording for a context that is still a rules one (rules improved): a hand edit or an LLM context is
        never touched, and the record of an LLM attempt on it is kept (it is not asked again)."""
        with self._transaction():
            changed = self._db.execute(
                "UPDATE contexts SET text = ?, updated_at = ? WHERE chunk_id = ? AND source = 'rules' AND text != ?",
                (text, time.time(), chunk_id, text),
            ).rowcount
            if changed:
                self._rows.requeue(chunk_id)
        return bool(changed)

    def replace_context(self, chunk_id: int, context: ContextResult) -> None:
        """A regenerated context, asked for by a person: it replaces any context, a hand edit included. Its cost
        adds to what the chunk's earlier contexts cost, so the totals in `stats` stay true."""
        with self._transaction():
            assignments = ", ".join(f"{column} = {column} + ?" if column in _COST_COLUMNS else f"{column} = ?"
                                    for column in CONTEXT_COLUMNS)
            self._db.execute(
                f"UPDATE contexts SET {assignments}, generated_text = NULL, generated_source = NULL,"
                " generated_questions = NULL, updated_at = ?,"
                " reviewed_at = NULL WHERE chunk_id = ?",
                (*context_values(context), time.time(), chunk_id),
            )
            self._rows.requeue(chunk_id)

    def chunk_document_id(self, chunk_id: int) -> int:
        row = self._db.execute("SELECT document_id FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
        if row is None:
            raise KeyError(f"no chunk with id {chunk_id}")
        return row[0]

    def record_attempt(self, chunk_id: int, context: ContextResult) -> None:
        """A model tried and its answer was rejected: keep the rules text, note who tried and what it cost."""
        with self._transaction():
            self._db.execute(
                "UPDATE contexts SET model = ?, prompt_version = ?, prompt_tokens = prompt_tokens + ?,"
                " completion_tokens = completion_tokens + ?, seconds = seconds + ?, updated_at = ?"
                " WHERE chunk_id = ? AND source = 'rules'",
                (context.model, context.prompt_version, context.prompt_tokens, context.completion_tokens,
                 context.seconds, time.time(), chunk_id),
            )

    # -- hand edits -----------------------------------------------------------------------------------------

    def context(self, chunk_id: int) -> dict | None:
        row = self._db.execute("SELECT * FROM contexts WHERE chunk_id = ?", (chunk_id,)).fetchone()
        return dict(row) if row else None

    def set_manual_context(self, chunk_id: int, text: str, questions: str | None = None) -> None:
        """Replace a chunk's context (and, unless None, the questions it answers) by a person's text, kept through
        re-indexing, and queue it for re-indexing."""
        with self._transaction():
            if self._db.execute("SELECT 1 FROM contexts WHERE chunk_id = ?", (chunk_id,)).fetchone() is None:
                raise KeyError(f"no chunk with id {chunk_id}")
            self._rows.apply_manual(chunk_id, text, time.time(), questions)
            self._rows.requeue(chunk_id)

    def revert_context(self, chunk_id: int) -> bool:
        """Back to the generated context a hand edit replaced; False if the context was not hand-edited."""
        with self._transaction():
            row = self._db.execute(
                "SELECT source, generated_text, generated_source FROM contexts WHERE chunk_id = ?", (chunk_id,)
            ).fetchone()
            if row is None:
                raise KeyError(f"no chunk with id {chunk_id}")
            if row["source"] != "manual":
                return False
            self._db.execute(
                "UPDATE contexts SET text = ?, source = ?, generated_text = NULL, generated_source = NULL,"
                " questions = COALESCE(generated_questions, questions), generated_questions = NULL,"
                " updated_at = ? WHERE chunk_id = ?",
                (row["generated_text"] or "", row["generated_source"] or "none", time.time(), chunk_id),
            )
            self._rows.requeue(chunk_id)
            return True

