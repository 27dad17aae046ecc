"""What the catalog does when files move or change a little: a moved file keeps its chunks, contexts and vectors
(only its path changes), and a re-indexed file keeps the chunk rows whose text and context did not change, so
their vectors stay in Chroma; and the files that are not indexed (skipped). A mixin of Catalog, split out to keep
each module small."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Set
from pathlib import PurePath

from desktop_rag.documents import COPY, MEMBER_SEPARATOR, NAME_ONLY, Chunk, ContextResult


def under(column: str, folder: str) -> tuple[str, tuple]:
    """The SQL condition "`column` is `folder` or a path below it" (either separator, or inside it: a member of an
    archive or a mailbox), with its parameters."""
    prefix = folder.rstrip("/\\")
    return (f"({column} = ? OR substr({column}, 1, ?) IN (? || '/', ? || '\\')"
            f" OR substr({column}, 1, ?) = ? || '{MEMBER_SEPARATOR}')",
            (prefix, len(prefix) + 1, prefix, prefix, len(prefix) + len(MEMBER_SEPARATOR), prefix))


class CatalogFiles:
    """Methods of Catalog that need its _db, _transaction() and _set_meta()."""

    def move_path(self, old: str, new: str) -> int:
        """A file or folder was moved or renamed: every document at `old` or under it now lives at the same place
        under `new`. A document that was at the destination is replaced (the move overwrote it). A title that
        was the old file name follows the new one. Returns the number of documents moved."""
        old, new = old.rstrip("/\\"), new.rstrip("/\\")
        moved = 0
        with self._transaction():
            for doc in self.documents_under(old):
                path = new + doc.path[len(old):]
                row = self._db.execute("SELECT id FROM documents WHERE path = ?", (path,)).fetchone()
                if row and row[0] != doc.id:
                    self._drop_members(row[0])
                    self._drop_chunks(row[0])
                    self._db.execute("DELETE FROM documents WHERE id = ?", (row[0],))
                    self.mark_keyword_index_dirty()
                self._db.execute(
                    "UPDATE documents SET path = ?, title = CASE WHEN title = ? THEN ? ELSE title END WHERE id = ?",
                    (path, PurePath(doc.path).stem, PurePath(path).stem, doc.id),
                )
                self._rename_card(doc.id, path)
                moved += 1
        return moved

    def _rename_card(self, doc_id: int, path: str) -> None:
        """A document known by its name (failed, or without text) is found by its new name now."""
        row = self._db.execute(
            "SELECT content_hash, title, metadata FROM documents WHERE id = ? AND (status = 'failed' OR parser = ?)",
            (doc_id, NAME_ONLY),
        ).fetchone()
        if row is not None:
            self._known_by_name(doc_id, path, row[0] or "", time.time(), row[1],
                                json.loads(row[2]) if row[2] else None)

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

    def _replace_chunks(self, doc_id: int, chunks, contexts, content_hash: str,
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
                self._update_chunk(chunk_id, chunk)
                self._db.execute("UPDATE contexts SET document_hash = ? WHERE chunk_id = ?", (content_hash, chunk_id))
                kept.add(chunk_id)
                continue
            chunk_id = self._insert_chunk(doc_id, chunk)
            self._insert_context(chunk_id, context, chunk.text_hash, content_hash, now)
            if chunk.text_hash in manual:
                # A person's edit outlives automatic work: same chunk text, same hand-written context.
                text, questions = manual[chunk.text_hash]
                self._apply_manual(chunk_id, text, now, questions)
        stale = [chunk_id for ids in keep.values() for chunk_id in ids if chunk_id not in kept]
        for chunk_id in stale:
            self._db.execute(
                "INSERT OR IGNORE INTO dense_deletions(chunk_id) SELECT id FROM chunks WHERE id = ? AND embedded",
                (chunk_id,),
            )
            self._db.execute("DELETE FROM chunks WHERE id = ?", (chunk_id,))

    def _insert_chunk(self, doc_id: int, chunk: Chunk) -> int:
        return self._db.execute(
            "INSERT INTO chunks(document_id, idx, text, text_hash, start_char, end_char, page, heading_path,"
            " token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (doc_id, chunk.index, chunk.text, chunk.text_hash, chunk.start_char, chunk.end_char, chunk.page,
             json.dumps(chunk.heading_path), chunk.token_count),
        ).lastrowid

    def _update_chunk(self, chunk_id: int, chunk: Chunk) -> None:
        self._db.execute(
            "UPDATE chunks SET idx = ?, start_char = ?, end_char = ?, page = ?, heading_path = ?, token_count = ?"
            " WHERE id = ?",
            (chunk.index, chunk.start_char, chunk.end_char, chunk.page, json.dumps(chunk.heading_path),
             chunk.token_count, chunk_id),
        )

    # -- documents inside files ---------------------------------------------------------------------------------

    def start_container(self, path: str, parser: str, title: str) -> int:
        """A file holding documents, about to have them read: its row (kept, or made) marked unfinished (no content
        hash, a size no file has), so a run killed before its last member reads the file again, skipping the
        members already stored. The run's last step for the file stores it whole. Returns its id."""
        with self._transaction():
            self._db.execute(
                "INSERT INTO documents(path, size, mtime_ns, content_hash, status, parser, title, text, updated_at)"
                " VALUES (?, -1, -1, NULL, 'indexed', ?, ?, '', ?) ON CONFLICT(path) DO UPDATE SET"
                " content_hash = NULL, size = -1, mtime_ns = -1, container_id = NULL, member = NULL",
                (path, parser, title, time.time()))
            return self._db.execute("SELECT id FROM documents WHERE path = ?", (path,)).fetchone()[0]

    def member_place(self, path: str) -> tuple[str, tuple[str, ...], tuple[int, int] | None] | None:
        """(the file's path, the names inside it, where its message lies in a streamed mailbox) of a document
        inside a file; None for any other path."""
        row = self._db.execute(
            "SELECT f.path, d.member, d.member_start, d.member_end FROM documents d"
            " JOIN documents f ON f.id = d.container_id WHERE d.path = ?", (path,)).fetchone()
        if not row:
            return None
        return row[0], tuple(json.loads(row[1])), (row[2], row[3]) if row[2] is not None else None

    def originals_of(self, content_hash: str, path: str) -> list[str]:
        """Files other than `path` indexed with this content and read (not copies themselves)."""
        rows = self._db.execute(
            "SELECT path FROM documents WHERE content_hash = ? AND status = 'indexed' AND container_id IS NULL"
            " AND parser != ? AND path != ? AND size >= 0", (content_hash, COPY, path))
        return [row[0] for row in rows]

    def orphaned_copies(self) -> list[tuple[int, str]]:
        """(id, path) of the files stored as copies whose original no longer has their content. (The parser is
        written in the query: SQLite takes the partial index of copies, migration 0015, for a constant only.)"""
        return self._db.execute(
            f"SELECT id, path FROM documents AS copy WHERE parser = '{COPY}' AND container_id IS NULL AND NOT EXISTS ("
            " SELECT 1 FROM documents AS original WHERE original.content_hash = copy.content_hash"
            f" AND original.status = 'indexed' AND original.container_id IS NULL AND original.parser != '{COPY}')"
        ).fetchall()

    # -- files that are not indexed ---------------------------------------------------------------------------

    def is_skipped(self, path: str, size: int, mtime_ns: int) -> bool:
        """Skipped before with this size and mtime: not opened again."""
        return self._db.execute("SELECT 1 FROM skipped_files WHERE path = ? AND size = ? AND mtime_ns = ?",
                                (path, size, mtime_ns)).fetchone() is not None

    def save_skipped(self, path: str, size: int, mtime_ns: int, reason: str) -> None:
        """A file that is not indexed (not text, or a format nothing reads); what an earlier version of it had
        indexed is dropped."""
        with self._transaction():
            row = self._db.execute("SELECT id FROM documents WHERE path = ?", (path,)).fetchone()
            if row is not None:
                if self._drop_chunks(row[0]) + self._drop_members(row[0]):
                    self.mark_keyword_index_dirty()
                self._db.execute("DELETE FROM documents WHERE id = ?", (row[0],))
            self._db.execute(
                "INSERT INTO skipped_files(path, size, mtime_ns, reason, updated_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,"
                " reason = excluded.reason, updated_at = excluded.updated_at",
                (path, size, mtime_ns, reason, time.time()),
            )

    def forget_skipped(self, folder_or_path: str, keep: Set[str] = frozenset()) -> None:
        """Skipped files at or under a path, except those in `keep` (still there), are forgotten."""
        condition, params = under("path", folder_or_path)
        rows = self._db.execute(f"SELECT path FROM skipped_files WHERE {condition}", params).fetchall()
        gone = [(r[0],) for r in rows if r[0] not in keep]
        if gone:
            with self._transaction():
                self._db.executemany("DELETE FROM skipped_files WHERE path = ?", gone)

    def record_scan_problems(self, roots: list[str], problems: list[tuple[str, str]]) -> None:
        """What a scan of `roots` could not look at, in place of what the last scan of them found."""
        with self._transaction():
            for root in roots:
                condition, params = under("path", root)
                self._db.execute(f"DELETE FROM scan_problems WHERE {condition}", params)
            self._db.executemany(
                "INSERT INTO scan_problems(path, reason, seen_at) VALUES (?, ?, ?)"
                " ON CONFLICT(path) DO UPDATE SET reason = excluded.reason, seen_at = excluded.seen_at",
                [(path, reason, time.time()) for path, reason in problems],
            )

    def skipped_count(self, folder: str | None = None) -> int:
        if folder is None:
            return self._db.execute("SELECT COUNT(*) FROM skipped_files").fetchone()[0]
        condition, params = under("path", folder)
        return self._db.execute(f"SELECT COUNT(*) FROM skipped_files WHERE {condition}", params).fetchone()[0]
