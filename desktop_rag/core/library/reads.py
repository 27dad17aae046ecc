"""What the front ends (the CLI, the window, the agents' tools) read of a library, named in one place so that none of
them reaches into the catalog. Reads go to the reader's connection: committed state only, so a count or a preview
never waits for a write in progress and never sees a file half re-indexed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from desktop_rag.storage.catalog import Catalog, ChunkRecord, DocumentRecord
# The rows these reads give, and the words for the upgrade's order, for the front ends that show them.
from desktop_rag.storage.catalog_review import REVIEW_FILTERS, FolderState, ReviewRow  # noqa: F401
from desktop_rag.storage.catalog_upgrade_order import upgrade_order_sentence  # noqa: F401


class LibraryReads:
    """Library's reads (`library.reads`), over the reader's connection, which the library opens on first use."""

    def __init__(self, reader: Callable[[], Catalog]):
        self._open_reader = reader

    @property
    def reader(self) -> Catalog:
        return self._open_reader()

    def folders(self) -> list[str]:
        return self.reader.folders()

    def folder_states(self) -> list[FolderState]:
        """Each folder with its counts of indexed, failed and skipped files."""
        return self.reader.folder_states()

    def upgrade_first_folders(self) -> list[str]:
        return self.reader.upgrade_order.upgrade_first_folders()

    def failures(self) -> list[tuple[str, str]]:
        """(path, reason) of every file that could not be indexed."""
        return self.reader.failures()

    def counts(self) -> dict:
        """The catalog's figures alone (stats() opens the indexes to count them too): documents, chunks, contexts
        by source and quality, the upgrade's queue — ~0.5 s at 110k chunks."""
        return self.reader.stats()

    def document_counts(self) -> dict[str, int]:
        """Files indexed and failed, from the catalog alone: instant, unlike stats() (its contexts' figures took
        450 ms at 110k chunks)."""
        return self.reader.document_counts()

    def chunk_count(self) -> int:
        return self.reader.chunk_count()

    def contexts_awaiting_upgrade(self) -> int:
        return self.reader.contexts_awaiting_upgrade()

    def llm_seconds_per_chunk(self) -> float | None:
        return self.reader.contexts.llm_seconds_per_chunk()

    def review_rows(self, filter_name: str = "all") -> tuple[list[ReviewRow], int]:
        """The first rows of the Review tab under a filter, and how many there are in all."""
        return self.reader.review.review_rows(filter_name), self.reader.review.count_reviewable(filter_name)

    def context(self, chunk_id: int) -> dict | None:
        """A chunk's stored context (text, source, model, quality, the generated text a hand edit replaced)."""
        return self.reader.contexts.context(chunk_id)

    def contexts_of(self, chunk_ids: Sequence[int]) -> dict[int, dict]:
        """The stored context of each chunk: what a view showing them needs after an edit."""
        return {chunk_id: row for chunk_id in chunk_ids if (row := self.reader.contexts.context(chunk_id)) is not None}

    def chunks_by_id(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRecord]:
        return self.reader.chunks_by_id(chunk_ids)

    def chunk_in_document(self, chunk_id: int) -> tuple[str, int, int] | None:
        """(document text, start, end) of a chunk, or None when it is gone."""
        return self.reader.review.chunk_in_document(chunk_id)

    def chunk_document_id(self, chunk_id: int) -> int:
        return self.reader.contexts.chunk_document_id(chunk_id)

    def document_record(self, path: str) -> DocumentRecord | None:
        return self.reader.document(path)

    def document_for_contexts(self, doc_id: int) -> tuple[dict, list[dict]] | None:
        return self.reader.contexts.document_for_contexts(doc_id)

    def stored_document(self, doc_id: int):
        """A document and its chunks as stored, ready for a contextualizer (core/indexing/upgrade.py)."""
        from desktop_rag.core.indexing.upgrade import stored_document

        return stored_document(self.reader, doc_id)


class ClientReads(LibraryReads):
    """The reads of a client of the service (the window) in its own process, on a connection that cannot write
    (issue 49: the service is the one writer; a Review listing or a preview read here costs no call). Opened on
    first use: before the service has made the catalog there is nothing to read."""

    def __init__(self, catalog_path: Path):
        self._path = catalog_path
        self._catalog: Catalog | None = None
        self._file: tuple[int, int] | None = None  # (device, inode) of the file the connection reads
        self._opening = threading.Lock()
        super().__init__(self._open)

    def _open(self) -> Catalog:
        """The connection, opened again when the catalog's file was replaced (a damaged one set aside and made anew
        by the service: the old connection went on reading the damaged file, "malformed" in every view). A stat
        per read: microseconds."""
        with self._opening:
            now = _file_identity(self._path)
            if self._catalog is not None and now is not None and now != self._file:
                self._catalog.close()
                self._catalog = None
            if self._catalog is None:
                self._catalog = Catalog(self._path, query_only=True)
                self._file = _file_identity(self._path)
            return self._catalog

    def close(self) -> None:
        with self._opening:
            if self._catalog is not None:
                self._catalog.close()
                self._catalog = None


def _file_identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:  # set aside, the new one not made yet: the open connection is all there is
        return None
    return found.st_dev, found.st_ino
