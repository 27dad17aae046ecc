"""The catalog's files beyond the documents read from them: a file holding documents (an archive, a mailbox) while
its members are read, files stored as copies of another and the copies whose original went, files not indexed
(skipped: not text, a format nothing reads) and what a scan could not look at. A part of Catalog
(`catalog.files`)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence, Set

from desktop_rag.documents import COPY, MEMBER_SEPARATOR
from desktop_rag.storage.catalog_chunk_rows import ChunkRows
from desktop_rag.storage.catalog_connection import CatalogConnection


def under(column: str, folder: str) -> tuple[str, tuple]:
    """The SQL condition "`column` is `folder` or a path below it" (either separator, or inside it: a member of an
    archive or a mailbox), with its parameters."""
    prefix = folder.rstrip("/\\")
    # Each "begins with" as a range of the column's index (the text up to the one with its last character next in
    # order): at 100k documents, a folder's 66k took 157 ms through substr() of every path, 75-123 ms so (issue 64).
    starts = [prefix + "/", prefix + "\\", prefix + MEMBER_SEPARATOR]
    ranges = " OR ".join(f"({column} >= ? AND {column} < ?)" for _ in starts)
    return f"({column} = ? OR {ranges})", (prefix, *[bound for start in starts for bound in (start, _next(start))])


def _next(start: str) -> str:
    """The first text after every text that begins with `start` (SQLite compares UTF-8 bytes: code point order)."""
    return start[:-1] + chr(ord(start[-1]) + 1)


class CatalogFiles:
    """Files that hold documents, files stored as copies, files not indexed, folders a scan could not list."""

    def __init__(self, connection: CatalogConnection, rows: ChunkRows):
        self._connection = connection
        self._db = connection.db
        self._transaction = connection.transaction
        self._rows = rows

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

    def mark_read_again(self, suffixes: Sequence[str]) -> int:
        """Files whose names end with one of `suffixes` (members of archives and mail too) marked to be read again
        by the next run, as unfinished files are (no content hash; a file, not a member, with an mtime no file
        has), and every file holding such a member, up to the file on disk. Copies are left: they stand while
        their original does, and it is read again. Returns how many documents of those kinds were marked."""
        if not suffixes:
            return 0
        named = " OR ".join(["path LIKE ?"] * len(suffixes))  # LIKE: ".DOCX" too
        patterns = ["%" + suffix for suffix in suffixes]
        with self._transaction():
            documents = self._db.execute(  # (rowcount says -1 for an UPDATE that starts WITH)
                f"SELECT COUNT(*) FROM documents WHERE ({named}) AND parser IS NOT '{COPY}'", patterns).fetchone()[0]
            self._db.execute(
                f"WITH RECURSIVE marked(id) AS (SELECT id FROM documents WHERE ({named}) AND parser IS NOT '{COPY}'"
                " UNION SELECT d.container_id FROM documents d JOIN marked m ON d.id = m.id"
                " WHERE d.container_id IS NOT NULL)"
                " UPDATE documents SET content_hash = NULL, read_to = NULL, read_check = NULL,"
                " mtime_ns = CASE WHEN container_id IS NULL THEN -1 ELSE mtime_ns END"
                " WHERE id IN (SELECT id FROM marked)", patterns)
            return documents

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

    def copies_at(self, paths: list[str]) -> dict[str, list[str]]:
        """The paths of the documents stored as copies of each of `paths` (same content; documents.COPY), by path."""
        if not paths:
            return {}
        marks = ",".join("?" * len(paths))
        rows = self._db.execute(
            "SELECT original.path, copy.path FROM documents AS original JOIN documents AS copy"
            f" ON copy.content_hash = original.content_hash AND copy.parser = '{COPY}' AND copy.id != original.id"
            f" WHERE original.path IN ({marks}) AND original.parser != '{COPY}' ORDER BY copy.path", paths)
        found: dict[str, list[str]] = {}
        for original, copy in rows:
            found.setdefault(original, []).append(copy)
        return found

    def content_hashes(self, paths: list[str]) -> dict[str, str]:
        """The content hash of each of `paths` that has one (a file, a document inside one), by path."""
        if not paths:
            return {}
        marks = ",".join("?" * len(paths))
        return dict(self._db.execute(f"SELECT path, content_hash FROM documents WHERE path IN ({marks})"
                                     " AND content_hash IS NOT NULL", paths).fetchall())

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
                self._rows.drop_chunks(row[0])
                self._rows.drop_members(row[0])
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

    def encoded_left_out(self) -> dict[str, int]:
        """Documents whose base64 or hex runs were left out of their text (parsers/encoded_runs.py), and how much."""
        documents, characters = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(json_extract(metadata, '$.encoded_chars_left_out')), 0) FROM documents"
            " WHERE status = 'indexed' AND metadata LIKE '%encoded_chars_left_out%'").fetchone()
        return {"encoded_left_out": documents, "encoded_chars_left_out": int(characters)}

    def skipped_count(self, folder: str | None = None) -> int:
        if folder is None:
            return self._db.execute("SELECT COUNT(*) FROM skipped_files").fetchone()[0]
        condition, params = under("path", folder)
        return self._db.execute(f"SELECT COUNT(*) FROM skipped_files WHERE {condition}", params).fetchone()[0]
