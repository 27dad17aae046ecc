"""What the catalog keeps of a mailbox read as a stream (core/indexing/mailboxes.py): how far it was read, the
place of each message in it, the names its messages have. A part of Catalog
(`catalog.mailboxes`)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from desktop_rag.documents import MEMBER_SEPARATOR, member_path
from desktop_rag.storage.catalog_connection import CatalogConnection


@dataclass(frozen=True)
class MailboxProgress:
    read_to: int  # every message that begins before it is stored
    check: str  # mailbox_stream.check_of at read_to


class CatalogMailboxes:
    """A streamed mailbox's place and its messages' names and places."""

    def __init__(self, connection: CatalogConnection):
        self._connection = connection
        self._db = connection.db
        self._transaction = connection.transaction

    def mailbox_progress(self, container_id: int) -> MailboxProgress | None:
        row = self._db.execute("SELECT read_to, read_check FROM documents WHERE id = ?", (container_id,)).fetchone()
        return MailboxProgress(row[0], row[1]) if row and row[0] is not None and row[1] else None

    def save_mailbox_progress(self, container_id: int, progress: MailboxProgress | None) -> None:
        with self._transaction():
            self._db.execute("UPDATE documents SET read_to = ?, read_check = ? WHERE id = ?",
                             (progress.read_to if progress else None, progress.check if progress else None,
                              container_id))

    def message_names_before(self, container_id: int, offset: int) -> set[str]:
        """The names of the messages of a mailbox that begin before `offset` (its attachments' are not names)."""
        rows = self._db.execute("SELECT member FROM documents WHERE container_id = ? AND member_start < ?",
                                (container_id, offset))
        return {json.loads(member)[0] for (member,) in rows}

    def place_message(self, container_id: int, name: str, start: int, end: int) -> None:
        """A message and its attachments, found at [start, end) of their mailbox (it moves when the mailbox is
        compacted)."""
        ids = list(self.message_parts(container_id, name).values())
        with self._transaction():
            self._db.executemany("UPDATE documents SET member_start = ?, member_end = ? WHERE id = ?",
                                 [(start, end, doc_id) for doc_id in ids])

    def members_not_named(self, container_id: int, names: set[str]) -> list[int]:
        """The documents inside a mailbox whose message is no longer in it (deleted, the mailbox compacted)."""
        rows = self._db.execute("SELECT id, member FROM documents WHERE container_id = ?", (container_id,))
        return [doc_id for doc_id, member in rows if json.loads(member)[0] not in names]

    def message_parts(self, container_id: int, name: str) -> dict[str, int]:
        """A mailbox message's documents (itself, its attachments) by path, with their ids. Found by a range of
        paths on their index: by the name in each row's JSON, 100,000 messages took minutes a message."""
        mailbox = self._db.execute("SELECT path FROM documents WHERE id = ?", (container_id,)).fetchone()[0]
        message = member_path(mailbox, (name,))
        below = message + MEMBER_SEPARATOR
        rows = self._db.execute(  # (a condition on container_id makes SQLite take that index instead)
            "SELECT path, id, member, container_id FROM documents WHERE path = ? OR (path >= ? AND path < ?)",
            (message, below, below[:-1] + chr(ord(below[-1]) + 1)))
        return {path: doc_id for path, doc_id, member, container in rows
                if container == container_id and member and json.loads(member)[0] == name}

    def members_to_retry(self, container_id: int, max_retries: int) -> bool:
        """A document inside the file failed for a cause outside it (a timeout): the next run tries it again
        (`max_retries`: catalog.MAX_TRANSIENT_RETRIES)."""
        return self._db.execute(
            "SELECT 1 FROM documents WHERE container_id = ? AND status = 'failed' AND retries BETWEEN 1 AND ?"
            " LIMIT 1", (container_id, max_retries)).fetchone() is not None

    def message_span(self, path: str) -> tuple[int, int] | None:
        """[start, end) of the mailbox message holding the document at `path`, when its mailbox was streamed."""
        row = self._db.execute("SELECT member_start, member_end FROM documents WHERE path = ?", (path,)).fetchone()
        return (row[0], row[1]) if row and row[0] is not None else None
