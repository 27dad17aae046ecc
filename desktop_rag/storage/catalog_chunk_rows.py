"""The rows of a document's chunks and contexts, as every write of the catalog changes them: a document's new
chunks stored keeping the rows whose text and context did not change (their vectors stay in the dense index), a
person's edit carried over to the same text, a context's chunk queued to be indexed again, the chunks and members of
a document dropped (their vectors through dense_deletions). Used inside the callers' transactions."""

from __future__ import annotations

import json
from collections.abc import Mapping

from desktop_rag.documents import Chunk, ContextResult, name_card, name_chunk
from desktop_rag.storage.catalog_connection import CatalogConnection
from desktop_rag.storage.context_columns import CONTEXT_COLUMNS, context_values


class ChunkRows:
    def __init__(self, connection: CatalogConnection):
        self.connection = connection
        self._db = connection.db

    def manual_contexts(self, path: str) -> dict[str, tuple[str, str]]:
        """Chunk text hash → (context, questions) a person wrote for the document at `path`: in this catalog, or
        in a damaged one it was rebuilt from (salvaged_contexts)."""
        rows = self._db.execute(
            "SELECT chunk_text_hash, text, questions FROM salvaged_contexts WHERE path = ? AND source = 'manual'"
            " UNION ALL"
            " SELECT c.text_hash, x.text, x.questions FROM contexts x JOIN chunks c ON c.id = x.chunk_id"
            " JOIN documents d ON d.id = c.document_id WHERE d.path = ? AND x.source = 'manual'",
            (path, path),
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    def apply_manual(self, chunk_id: int, text: str, now: float, questions: str | None = None) -> None:
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

    def requeue(self, chunk_id: int) -> None:
        """The chunk's index text changed: drop its vectors, embed it again (the keyword index hears of it from
        the catalog's triggers: catalog_keyword_changes.py)."""
        self._db.execute(
            "INSERT OR IGNORE INTO dense_deletions(chunk_id) SELECT id FROM chunks WHERE id = ? AND embedded",
            (chunk_id,),
        )
        self._db.execute("UPDATE chunks SET embedded = 0 WHERE id = ?", (chunk_id,))
    def replace_chunks(self, doc_id: int, chunks, contexts, content_hash: str,
                        manual: Mapping[str, tuple[str, str | None]], now: float) -> None:
        """Store a document's new chunks. An old chunk row with the same text and the same context is kept
        (its vector stays valid); the others are dropped and the new ones inserted."""
        keep: dict[tuple[str, str], list[int]] = {}
        for chunk_id, text_hash, context in self._db.execute(
            "SELECT c.id, c.text_hash, COALESCE(x.text, '') FROM chunks c LEFT JOIN contexts x ON x.chunk_id = c.id"
            " WHERE c.document_id = ?", (doc_id,),
        ):
            keep.setdefault((text_hash, context), []).append(chunk_id)
        # Kept rows take new positions: move every old one out of the way of UNIQUE(document_id, idx) first.
        self._db.execute("UPDATE chunks SET idx = -1 - idx WHERE document_id = ?", (doc_id,))
        kept: set[int] = set()
        for chunk, context in zip(chunks, contexts):
            candidates = keep.get((chunk.text_hash, context.text))
            if candidates:
                chunk_id = candidates.pop()
                self.update_chunk(chunk_id, chunk)
                self._db.execute("UPDATE contexts SET document_hash = ? WHERE chunk_id = ?", (content_hash, chunk_id))
                kept.add(chunk_id)
                continue
            chunk_id = self.insert_chunk(doc_id, chunk)
            self.insert_context(chunk_id, context, chunk.text_hash, content_hash, now)
            if chunk.text_hash in manual:
                # A person's edit outlives automatic work: same chunk text, same hand-written context.
                text, questions = manual[chunk.text_hash]
                self.apply_manual(chunk_id, text, now, questions)
        stale = [chunk_id for ids in keep.values() for chunk_id in ids if chunk_id not in kept]
        for chunk_id in stale:
            self._db.execute(
                "INSERT OR IGNORE INTO dense_deletions(chunk_id) SELECT id FROM chunks WHERE id = ? AND embedded",
                (chunk_id,),
            )
            self._db.execute("DELETE FROM chunks WHERE id = ?", (chunk_id,))

    def insert_chunk(self, doc_id: int, chunk: Chunk) -> int:
        chunk_id = self._db.execute(
            "INSERT INTO chunks(document_id, idx, text, text_hash, start_char, end_char, page, heading_path,"
            " token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (doc_id, chunk.index, chunk.text, chunk.text_hash, chunk.start_char, chunk.end_char, chunk.page,
             json.dumps(chunk.heading_path), chunk.token_count),
        ).lastrowid
        assert chunk_id is not None  # (None only when nothing was inserted)
        return chunk_id

    def update_chunk(self, chunk_id: int, chunk: Chunk) -> None:
        self._db.execute(
            "UPDATE chunks SET idx = ?, start_char = ?, end_char = ?, page = ?, heading_path = ?, token_count = ?"
            " WHERE id = ?",
            (chunk.index, chunk.start_char, chunk.end_char, chunk.page, json.dumps(chunk.heading_path),
             chunk.token_count, chunk_id),
        )

    def known_by_name(self, doc_id: int, path: str, content_hash: str, now: float, title: str | None = None,
                       metadata: dict[str, str] | None = None) -> None:
        """The document's one passage is its name card (unchanged: its row and vector are kept)."""
        card = name_card(path, title, metadata)
        self.replace_chunks(doc_id, [name_chunk(card)], [ContextResult("", "none")], content_hash, {}, now)

    def drop_members(self, doc_id: int) -> int:
        """The documents inside a file that is removed, fails, or is read again as something else: their chunks
        (vectors through dense_deletions) and rows. Returns the number of chunks dropped."""
        dropped = 0
        for (member_id,) in self._db.execute("SELECT id FROM documents WHERE container_id = ?", (doc_id,)).fetchall():
            dropped += self.drop_chunks(member_id)
            self._db.execute("DELETE FROM documents WHERE id = ?", (member_id,))
        return dropped

    def drop_chunks(self, doc_id: int) -> int:
        self._db.execute(
            "INSERT OR IGNORE INTO dense_deletions(chunk_id) SELECT id FROM chunks WHERE document_id = ? AND embedded",
            (doc_id,),
        )
        return self._db.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,)).rowcount

    def insert_context(self, chunk_id: int, ctx: ContextResult, chunk_hash: str, doc_hash: str, now: float) -> None:
        columns = ("chunk_id", *CONTEXT_COLUMNS, "chunk_text_hash", "document_hash", "created_at", "updated_at")
        self._db.execute(
            f"INSERT INTO contexts({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            (chunk_id, *context_values(ctx), chunk_hash, doc_hash, now, now),
        )
