"""The catalog's context rows beyond plain storage: hand edits (kept through re-indexing, revertible) and the
upgrade of rules contexts to LLM ones. A mixin of Catalog, split out to keep each module small."""

from __future__ import annotations

import json
import statistics
import time

from desktop_rag.documents import RULES_FOR_LOW_OCR, ContextResult


# The columns a generated context fills, in this order, by insert and by upgrade alike.
CONTEXT_COLUMNS = ("text", "source", "model", "prompt_version", "quality", "quality_detail", "prompt_tokens",
                   "completion_tokens", "seconds", "questions")

_COST_COLUMNS = ("prompt_tokens", "completion_tokens", "seconds")
# The LLM's pace is told from this many of its latest contexts, and not before it has written this many.
RECENT_LLM_CHUNKS = 100
MEASURED_ENOUGH = 20
# A rules context that the given (model, prompt version) has not tried: what an upgrade asks about. Parameters:
# model, version, model (no model given: every rules context).
# Rules contexts an upgrade would ask a model about: not tried by that model already, and not kept as rules on purpose
# (the chunk's OCR text is too garbled: RULES_FOR_LOW_OCR).
RULES_NOT_TRIED = ("x.source = 'rules' AND x.prompt_version IS NOT '" + RULES_FOR_LOW_OCR + "'"
                    " AND NOT (x.model IS ? AND x.prompt_version IS ? AND ? IS NOT NULL)")


def context_values(context: ContextResult) -> tuple:
    detail = json.dumps(context.quality_detail) if context.quality_detail is not None else None
    return (context.text, context.source, context.model, context.prompt_version, context.quality, detail,
            context.prompt_tokens, context.completion_tokens, context.seconds, context.questions)


class ContextEdits:
    """Methods of Catalog that need its _db, _transaction() and _set_meta()."""

    def _manual_contexts(self, path: str) -> dict[str, tuple[str, str]]:
        """Chunk text hash → (context, questions) a person wrote for the document at `path`."""
        rows = self._db.execute(
            "SELECT c.text_hash, x.text, x.questions FROM contexts x JOIN chunks c ON c.id = x.chunk_id"
            " JOIN documents d ON d.id = c.document_id WHERE d.path = ? AND x.source = 'manual'",
            (path,),
        )
        return {r[0]: (r[1], r[2]) for r in rows}

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
                self._requeue(chunk_id)
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
                self._requeue(chunk_id)
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
            self._requeue(chunk_id)

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
            self._apply_manual(chunk_id, text, time.time(), questions)
            self._requeue(chunk_id)

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
            self._requeue(chunk_id)
            return True

    def _apply_manual(self, chunk_id: int, text: str, now: float, questions: str | None = None) -> None:
        # The first edit keeps what was generated; later edits keep that same original. Questions left None keep
        # what the row has.
        self._db.execute(
            "UPDATE contexts SET generated_text = CASE WHEN source = 'manual' THEN generated_text ELSE text END,"
            " generated_source = CASE WHEN source = 'manual' THEN generated_source ELSE source END,"
            " generated_questions = CASE WHEN source = 'manual' THEN generated_questions ELSE questions END,"
            " text = ?, source = 'manual', quality = NULL, quality_detail = NULL, updated_at = ?, reviewed_at = ?,"
            " questions = COALESCE(?, questions) WHERE chunk_id = ?",
            (text, now, now, questions, chunk_id),
        )

    def _requeue(self, chunk_id: int) -> None:
        """The chunk's index text changed: drop its vectors, embed it again, rebuild the keyword index."""
        self._db.execute(
            "INSERT OR IGNORE INTO dense_deletions(chunk_id) SELECT id FROM chunks WHERE id = ? AND embedded",
            (chunk_id,),
        )
        self._db.execute("UPDATE chunks SET embedded = 0 WHERE id = ?", (chunk_id,))
        self.mark_keyword_index_dirty()
