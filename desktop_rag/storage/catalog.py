"""The SQLite catalog: documents, chunks and contexts. The source of truth for both indexes.

Every unit of work (one file, one batch of embeddings) is committed on its own, so a killed run resumes where it
stopped. WAL lets searches read while an indexing run writes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path, PurePath
from collections.abc import Generator, Iterable, Iterator, Sequence

from desktop_rag.documents import NAME_ONLY, RULES_FOR_LOW_OCR, Chunk, ContextResult, keyword_text
from desktop_rag.errors import CatalogDamaged
from desktop_rag.storage.catalog_chunk_rows import ChunkRows
from desktop_rag.storage.catalog_access import file_damage, may_write
from desktop_rag.storage.catalog_connection import (WRITTEN, CatalogConnection, count_writes,
                                                     damaged_message, open_connection, use_wal)
from desktop_rag.storage.catalog_contexts import CatalogContexts
from desktop_rag.storage.catalog_files import CatalogFiles, under
from desktop_rag.storage.catalog_keyword_changes import CatalogKeywordChanges
from desktop_rag.storage.catalog_filters import CatalogFilters
from desktop_rag.storage.catalog_mailboxes import CatalogMailboxes
from desktop_rag.storage.catalog_ocr import CHUNK_OCR_CONFIDENCE, CatalogOcr
from desktop_rag.storage.catalog_review import CatalogReview, FolderState
from desktop_rag.storage.catalog_run_work import CatalogRunWork
from desktop_rag.storage.catalog_schema import migrate
from desktop_rag.storage.catalog_upgrade_order import CatalogUpgradeOrder
from desktop_rag.storage.records import (DOCUMENT_COLUMNS, MAX_TRANSIENT_RETRIES, ChunkRecord, DocumentRecord,
                                         Member)
from desktop_rag.storage.serialized_connection import SerializedConnection


_ROWS_PER_BLOCK = 1000  # rows read at a time where each row is then worked on (see iter_index_texts)


class Catalog:
    """The documents, their chunks, the index bookkeeping and what search reads, over one connection; the other
    tables in parts given the same connection: `contexts`, `files` (containers, copies, skipped), `filters`,
    `mailboxes`, `ocr`, `review`, `run_work`, `upgrade_order`."""

    def __init__(self, path: Path, query_only: bool = False):
        """`query_only`: a reader (a client's, the service's searches): the file opened read-only, as on a read-only
        disk (or a copy someone may only read), which can still be searched; nothing is made there."""
        if not query_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.read_only = query_only or not may_write(path)
        try:
            self._db = SerializedConnection(open_connection(path, self.read_only))
            if not self.read_only:
                use_wal(self._db)
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._connection = connection = CatalogConnection(self._db)
            self._transaction = connection.transaction
            migrate(connection, path, self.read_only)
            self._rows = ChunkRows(connection)
            self.contexts = CatalogContexts(connection, self._rows)
            self.files = CatalogFiles(connection, self._rows)
            self.filters = CatalogFilters(connection)
            self.mailboxes = CatalogMailboxes(connection)
            self.ocr = CatalogOcr(connection)
            self.review = CatalogReview(connection)
            self.run_work = CatalogRunWork(connection)
            self.upgrade_order = CatalogUpgradeOrder(connection)
            self.keyword_changes = CatalogKeywordChanges(connection)
            if not self.read_only:
                count_writes(self._db)
        except sqlite3.OperationalError:
            raise  # locked, a full disk, an I/O error: not the file's structure
        except sqlite3.DatabaseError as exc:  # "file is not a database", "database disk image is malformed"
            raise CatalogDamaged(damaged_message(path, exc)) from exc

    def damage(self) -> str | None:
        """SQLite's check of the file (catalog_access.structure_damage), for the doctor: what stopped it is said."""
        return file_damage(self.path, self._db)

    def close(self) -> None:
        self._db.close()

    # -- schema ---------------------------------------------------------------------------------------------

    def writes(self) -> dict[str, int]:
        """How many rows this connection has written so far, by what a view shows: "documents" (a file indexed,
        failed, skipped, moved or removed), "contexts", "folders". Compared before and after a write, it says what
        the write changed, from what SQLite wrote rather than from a run's counters (issue 39)."""
        if self.read_only:
            return dict.fromkeys(WRITTEN, 0)
        return dict(self._db.execute("SELECT what, count FROM temp.written").fetchall())

    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    # -- folders --------------------------------------------------------------------------------------------

    def add_folder(self, path: str) -> None:
        self._db.execute("INSERT OR IGNORE INTO folders(path, added_at) VALUES (?, ?)", (path, time.time()))

    def folders(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT path FROM folders ORDER BY path")]

    def folder_states(self) -> list[FolderState]:
        states = []
        for folder in self.folders():
            in_chunks, params = under("e.path", folder)
            in_documents, _ = under("d.path", folder)
            row = self._db.execute(
                # Files on disk: the documents inside an archive or a mailbox are not files of the folder.
                "SELECT COALESCE(SUM(d.status = 'indexed' AND d.container_id IS NULL), 0),"
                " COALESCE(SUM(d.status = 'failed'), 0),"
                f" (SELECT COUNT(*) FROM chunks c JOIN documents e ON e.id = c.document_id WHERE {in_chunks})"
                f" FROM documents d WHERE {in_documents}",
                params * 2,
            ).fetchone()
            states.append(FolderState(folder, row[0], row[1], row[2], self.files.skipped_count(folder)))
        return states

    def remove_folder(self, folder: str) -> int:
        """Forget a folder and everything indexed under it (the files themselves are not touched)."""
        removed = self.remove_documents([d.id for d in self.documents_under(folder)])
        self.files.forget_skipped(folder)
        self.files.record_scan_problems([folder], [])
        self._db.execute("DELETE FROM folders WHERE path = ?", (folder,))
        return removed

    # -- documents ------------------------------------------------------------------------------------------

    def document(self, path: str) -> DocumentRecord | None:
        row = self._db.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE path = ?", (path,)).fetchone()
        return DocumentRecord(**dict(row)) if row else None

    def unchanged(self, path: str, size: int, mtime_ns: int) -> bool:
        """The catalog has this file (indexed, failed or skipped) with this size and mtime: a run will not read it."""
        return self._db.execute(
            "SELECT 1 FROM documents WHERE path = ? AND size = ? AND mtime_ns = ?"
            f" AND NOT (status = 'failed' AND retries BETWEEN 1 AND {MAX_TRANSIENT_RETRIES})"
            " UNION ALL SELECT 1 FROM skipped_files WHERE path = ? AND size = ? AND mtime_ns = ?",
            (path, size, mtime_ns) * 2).fetchone() is not None

    def documents_under(self, folder: str) -> list[DocumentRecord]:
        condition, params = under("path", folder)
        rows = self._db.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE {condition}", params)
        return [DocumentRecord(**dict(r)) for r in rows]

    def members_of(self, container_id: int) -> dict[str, DocumentRecord]:
        """The documents inside a file (an archive's members, a mailbox's messages), by path."""
        rows = self._db.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE container_id = ?", (container_id,))
        return {r["path"]: DocumentRecord(**dict(r)) for r in rows}

    def documents_with_content(self, content_hash: str) -> list[DocumentRecord]:
        """Indexed documents with this content (a moved file is recognised by it)."""
        rows = self._db.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE content_hash = ? AND status = 'indexed'"
            " AND container_id IS NULL", (content_hash,)  # a member's path is no file: it never moved
        )
        return [DocumentRecord(**dict(r)) for r in rows]

    def touch_document(self, doc_id: int, size: int, mtime_ns: int) -> None:
        """Same content under a new mtime (a `touch`, a copy): remember the new stat so the hash is not redone."""
        self._db.execute(
            "UPDATE documents SET size = ?, mtime_ns = ?, updated_at = ? WHERE id = ?",
            (size, mtime_ns, time.time(), doc_id),
        )

    def save_document(
        self,
        *,
        path: str,
        size: int,
        mtime_ns: int,
        content_hash: str,
        parser: str,
        title: str,
        text: str,
        page_count: int | None,
        chunks: Sequence[Chunk],
        contexts: Sequence[ContextResult],
        ocr_confidence: dict[int, float | None] | None = None,
        unread_scans: int = 0,
        metadata: dict[str, str] | None = None,
        member: Member | None = None,
    ) -> int:
        """Store one parsed document with its chunks and contexts, replacing what the path had, atomically
        (chunks whose text and context are unchanged keep their rows and vectors). `member`: where the document
        sits inside a file (an archive, a mailbox)."""
        assert len(chunks) == len(contexts)
        now = time.time()
        with self._transaction():
            manual = self._rows.manual_contexts(path)
            doc_id = self._upsert_document(path, size, mtime_ns, content_hash, "indexed", None, parser, title, text,
                                           page_count, now)
            self._set_place(doc_id, member, metadata)
            self._rows.replace_chunks(doc_id, chunks, contexts, content_hash, manual, now)
            self._db.execute("DELETE FROM salvaged_contexts WHERE path = ?", (path,))  # given back, if any
            self.ocr.set_ocr_record(doc_id, ocr_confidence or {}, unread_scans)
            self._db.execute("DELETE FROM skipped_files WHERE path = ?", (path,))  # text now, if it was not
        return doc_id

    def save_failure(self, *, path: str, size: int, mtime_ns: int, content_hash: str | None, error: str,
                     transient: bool = False, unread_scans: int = 0, member: Member | None = None) -> None:
        """A file that could not be indexed: keep the reason, and drop what an earlier version of it had indexed;
        it is found by its name (documents.name_card), its one passage. `transient`: the cause was outside the
        file, so the next runs try it again (MAX_TRANSIENT_RETRIES). `unread_scans`: it has nothing but scanned
        pages, not read (OCR off): read when OCR may."""
        now = time.time()
        with self._transaction():
            before = self._db.execute("SELECT retries FROM documents WHERE path = ?", (path,)).fetchone()
            retries = (before[0] if before else 0) + 1 if transient else 0
            doc_id = self._upsert_document(path, size, mtime_ns, content_hash, "failed", error, None, None, None,
                                           None, now)
            self._db.execute("UPDATE documents SET retries = ? WHERE id = ?", (retries, doc_id))
            self._set_place(doc_id, member, None)
            self.ocr.set_ocr_record(doc_id, {}, unread_scans)
            self._rows.drop_members(doc_id)  # a container that fails loses its members, and where it was read to
            self._db.execute("UPDATE documents SET read_to = NULL, read_check = NULL WHERE id = ?", (doc_id,))
            self._rows.known_by_name(doc_id, path, content_hash or "", now)
            self._db.execute("DELETE FROM skipped_files WHERE path = ?", (path,))

    def remove_documents(self, doc_ids: Iterable[int]) -> int:
        removed = 0
        with self._transaction():
            for doc_id in doc_ids:
                self._rows.drop_members(doc_id)
                self._rows.drop_chunks(doc_id)
                removed += self._db.execute("DELETE FROM documents WHERE id = ?", (doc_id,)).rowcount
        return removed

    def _upsert_document(self, path, size, mtime_ns, content_hash, status, error, parser, title, text, pages, now):
        self._db.execute(
            "INSERT INTO documents(path, size, mtime_ns, content_hash, status, error, parser, title, text,"
            " page_count, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(path) DO UPDATE SET size=excluded.size, mtime_ns=excluded.mtime_ns,"
            " content_hash=excluded.content_hash, status=excluded.status, error=excluded.error,"
            " parser=excluded.parser, title=excluded.title, text=excluded.text, page_count=excluded.page_count,"
            " updated_at=excluded.updated_at, retries=0",
            (path, size, mtime_ns, content_hash, status, error, parser, title, text, pages, now),
        )
        return self._db.execute("SELECT id FROM documents WHERE path = ?", (path,)).fetchone()[0]

    def _set_place(self, doc_id: int, member: Member | None, metadata: dict[str, str] | None) -> None:
        self._db.execute(
            "UPDATE documents SET container_id = ?, member = ?, metadata = ? WHERE id = ?",
            (member.container_id if member else None, json.dumps(list(member.chain)) if member else None,
             json.dumps(metadata, ensure_ascii=False) if metadata else None, doc_id),
        )

    # -- index bookkeeping ----------------------------------------------------------------------------------

    def pending_embeddings(self, limit: int, after: int = 0) -> list[tuple[int, str, str]]:
        """(chunk id, context, chunk text) of chunks not in the dense index yet, by id, past `after`."""
        rows = self._db.execute(
            "SELECT c.id, COALESCE(x.text, ''), c.text FROM chunks c LEFT JOIN contexts x ON x.chunk_id = c.id"
            " WHERE c.embedded = 0 AND c.id > ? ORDER BY c.id LIMIT ?",
            (after, limit),
        )
        return [tuple(r) for r in rows]

    def count_pending_embeddings(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 0").fetchone()[0]

    def mark_embedded(self, chunk_ids: Sequence[int], owners: Sequence[int] = (), vectors=None,
                      embedded_with: Sequence[str] | None = None) -> None:
        """These chunks' vectors are in the dense index; `owners`/`vectors` (as given to it) are kept here too.
        `embedded_with`: the context each was embedded with. A chunk whose context a person changed while it was
        embedded, or that went meanwhile, is not marked: the vector just written is queued for deletion, and the
        chunk is embedded again with its context as it is (marked regardless, it kept the old one for good)."""
        with self._transaction():
            stale = set() if embedded_with is None else {
                chunk_id for chunk_id, context in zip(chunk_ids, embedded_with)
                if (row := self._db.execute("SELECT COALESCE(x.text, '') FROM chunks c LEFT JOIN contexts x"
                                            " ON x.chunk_id = c.id WHERE c.id = ?", (chunk_id,)).fetchone()) is None
                or row[0] != context}
            self._db.executemany("INSERT OR IGNORE INTO dense_deletions(chunk_id) VALUES (?)", [(i,) for i in stale])
            self._db.executemany("UPDATE chunks SET embedded = 1 WHERE id = ?",
                                 [(i,) for i in chunk_ids if i not in stale])
            kept = [i for i, owner in enumerate(owners) if owner not in stale]
            if kept:
                self.filters.write_vectors([owners[i] for i in kept], vectors[kept])

    def mark_all_unembedded(self) -> None:
        self._db.execute("UPDATE chunks SET embedded = 0")

    def mark_unembedded(self, chunk_ids: Sequence[int]) -> None:
        with self._transaction():
            self._db.executemany("UPDATE chunks SET embedded = 0 WHERE id = ?", [(i,) for i in chunk_ids])

    def chunk_ids(self, embedded: bool | None = None) -> set[int]:
        """Every chunk's id; with `embedded`, only those the catalog says are (or are not) in the dense index."""
        if embedded is None:
            return {r[0] for r in self._db.execute("SELECT id FROM chunks")}
        return {r[0] for r in self._db.execute("SELECT id FROM chunks WHERE embedded = ?", (int(embedded),))}

    def pending_dense_deletions(self) -> list[int]:
        return [r[0] for r in self._db.execute("SELECT chunk_id FROM dense_deletions")]

    def clear_dense_deletions(self, chunk_ids: Sequence[int]) -> None:
        with self._transaction():
            self._db.executemany("DELETE FROM dense_deletions WHERE chunk_id = ?", [(i,) for i in chunk_ids])

    def iter_index_texts(self) -> Iterator[tuple[int, str, str]]:
        """(chunk id, context, chunk text) of every chunk, for rebuilding the keyword index.

        Rows come in blocks, not one by one: sqlite3 lets go of the GIL for every row it reads and takes it back at
        once, and between rows the caller tokenized for less than Python's switch interval, so a thread waiting for
        the GIL — the app's window — never got it: 150–280 ms stalls (bench/ui_responsiveness.py). Tokenizing a
        whole block runs long enough for Python to hand the GIL over."""
        for rows in self._db.blocks(
            "SELECT c.id, COALESCE(x.text, ''), c.text FROM chunks c LEFT JOIN contexts x ON x.chunk_id = c.id"
            " ORDER BY c.id", (), _ROWS_PER_BLOCK
        ):
            yield from (tuple(r) for r in rows)

    def iter_keyword_texts(self) -> Generator[tuple[int, str], None, None]:
        """(chunk id, what the keyword index holds for it: documents.keyword_text), in blocks as above."""
        for rows in self._db.blocks(
            "SELECT c.id, COALESCE(x.text, ''), c.text, COALESCE(x.questions, '') FROM chunks c"
            " LEFT JOIN contexts x ON x.chunk_id = c.id ORDER BY c.id", (), _ROWS_PER_BLOCK
        ):
            yield from ((r[0], keyword_text(r[1], r[2], r[3])) for r in rows)

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
                    self._rows.drop_members(row[0])
                    self._rows.drop_chunks(row[0])
                    self._db.execute("DELETE FROM documents WHERE id = ?", (row[0],))
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
            self._rows.known_by_name(doc_id, path, row[0] or "", time.time(), row[1],
                                json.loads(row[2]) if row[2] else None)

    # Every change of a chunk's keyword text is noted by the catalog's triggers (catalog_keyword_changes.py).
    @property
    def keyword_index_dirty(self) -> bool:
        """A change the keyword index does not hold yet, or its rebuild asked."""
        return self.keyword_changes.waiting

    def mark_keyword_index_dirty(self) -> None:
        """The keyword index is to be made anew from every text (lost, damaged, another tokenizer)."""
        self._connection.mark_keyword_index_dirty()

    def index_built_with(self, part: str) -> str | None:
        """What the derived indexes were last built with ("embedding_model", "keyword_tokenizer"); None if the
        catalog predates the record."""
        value = self._connection.meta(f"built_with:{part}", "")
        return value or None

    def set_index_built_with(self, part: str, value: str) -> None:
        self._connection.set_meta(f"built_with:{part}", value)

    # -- reading for search and stats -----------------------------------------------------------------------

    def chunks_by_id(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRecord]:
        if not chunk_ids:
            return {}
        found: dict[int, ChunkRecord] = {}
        # SQLite limits bound parameters; 500 per query stays far below every build's limit.
        for start in range(0, len(chunk_ids), 500):
            part = list(chunk_ids[start : start + 500])
            rows = self._db.execute(
                "SELECT c.id, c.document_id, d.path, d.title, c.idx, c.text, c.start_char, c.end_char, c.page,"
                " c.heading_path, COALESCE(x.text, '') AS context, COALESCE(x.source, 'none') AS context_source,"
                f" x.quality, {CHUNK_OCR_CONFIDENCE} AS ocr_confidence, d.metadata, d.family, d.dated,"
                " COALESCE(x.questions, '') AS questions,"
                " CASE WHEN d.status = 'failed' THEN d.error WHEN d.parser = ? THEN '' END AS unread"
                " FROM chunks c JOIN documents d ON d.id = c.document_id LEFT JOIN contexts x ON x.chunk_id = c.id"
                f" WHERE c.id IN ({','.join('?' * len(part))})",
                [NAME_ONLY, *part],
            )
            for r in rows:
                values = dict(r)
                values["heading_path"] = json.loads(values["heading_path"])
                values["metadata"] = json.loads(values["metadata"]) if values["metadata"] else None
                found[r["id"]] = ChunkRecord(**values)
        return found

    def chunk_positions(self) -> list[tuple[int, str, int]]:
        """(chunk id, document path, chunk index) of every chunk."""
        return [tuple(r) for r in self._db.execute(
            "SELECT c.id, d.path, c.idx FROM chunks c JOIN documents d ON d.id = c.document_id"
        )]

    def chunk_count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def document_counts(self) -> dict[str, int]:
        """Files on disk indexed, and every failure, a file's or a member's (12 ms at 110k chunks; stats() 450)."""
        q = self._db.execute
        docs = dict(q("SELECT status, COUNT(*) FROM documents WHERE container_id IS NULL OR status = 'failed'"
                      " GROUP BY status").fetchall())
        problems = q("SELECT COUNT(*) FROM scan_problems").fetchone()[0]
        return {"indexed": docs.get("indexed", 0), "failed": docs.get("failed", 0) + problems}

    def stats(self) -> dict:
        q = self._db.execute
        docs = self.document_counts()  # documents inside files counted apart:
        inside = q("SELECT COUNT(*) FROM documents WHERE container_id IS NOT NULL AND status = 'indexed'").fetchone()[0]
        by_source = dict(
            q("SELECT x.source, COUNT(*) FROM contexts x GROUP BY x.source").fetchall()
        )
        avg_words, avg_quality = q(
            "SELECT AVG(LENGTH(text) - LENGTH(REPLACE(text, ' ', '')) + 1), AVG(quality)"
            " FROM contexts WHERE text != ''"
        ).fetchone()
        tokens = q(
            "SELECT COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(seconds), 0)"
            " FROM contexts"
        ).fetchone()
        models = [r[0] for r in q("SELECT DISTINCT model FROM contexts WHERE model IS NOT NULL ORDER BY model")]
        awaiting = self.contexts_awaiting_upgrade()
        return {
            "documents": {"indexed": docs["indexed"], "failed": docs["failed"],
                          "skipped": self.files.skipped_count(),  # not text, or a format nothing here reads
                          "inside_files": inside, **self.files.encoded_left_out()},  # inside: members, mail
            "chunks": self.chunk_count(),
            "chunks_pending_embedding": self.count_pending_embeddings(),
            "contexts_by_source": by_source,
            "contexts_awaiting_upgrade": awaiting,  # rules contexts no model has tried yet
            "context_avg_words": round(avg_words, 1) if avg_words else 0.0,
            "context_avg_quality": round(avg_quality, 3) if avg_quality is not None else None,
            "llm_tokens": {"prompt": tokens[0], "completion": tokens[1]},
            "context_seconds": round(tokens[2], 1),
            "context_models": models,
            "ocr": self.ocr.ocr_totals(),
            "folders": self.folders(),
            # Documents by why they come when they do.
            "upgrade_order": self.upgrade_order.upgrade_queue() if awaiting else {},
            "upgrade_first_folders": self.upgrade_order.upgrade_first_folders(),
        }

    def contexts_awaiting_upgrade(self) -> int:
        """Rules contexts no model has tried yet."""
        query = "SELECT COUNT(*) FROM contexts WHERE source = 'rules' AND model IS NULL AND prompt_version IS NOT ?"
        return self._db.execute(query, (RULES_FOR_LOW_OCR,)).fetchone()[0]

    def failures(self) -> list[tuple[str, str]]:
        """(path, reason) of every file that could not be indexed, and of what a scan could not look at."""
        return [tuple(r) for r in self._db.execute(
            "SELECT path, error FROM documents WHERE status = 'failed'"
            " UNION ALL SELECT path, reason FROM scan_problems ORDER BY 1")]
