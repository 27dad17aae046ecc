"""What the catalog gives back: a document's record (a file's state in the catalog), where a document sits inside
a file, and a chunk as search shows it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DocumentRecord:
    id: int
    path: str
    size: int
    mtime_ns: int
    content_hash: str | None
    status: str
    error: str | None
    retries: int = 0  # failures in a row whose cause was outside the file (migration 0007)
    unread_scans: int = 0  # scanned pages not read by OCR (off, or unavailable): read once OCR may (0009)
    container_id: int | None = None  # a document inside a file (an archive member, a message): that file's (0010)

    @property
    def retry_due(self) -> bool:
        """A failed file the next run reads again although it did not change."""
        return self.status == "failed" and 0 < self.retries <= MAX_TRANSIENT_RETRIES


MAX_TRANSIENT_RETRIES = 3  # a file that times out every time is not read for minutes on every run forever
# DocumentRecord's fields
DOCUMENT_COLUMNS = "id, path, size, mtime_ns, content_hash, status, error, retries, unread_scans, container_id"


@dataclass(frozen=True)
class Member:
    """Where a document sits inside a file: the file's document, and the names on the way (core/files/containers)."""

    container_id: int
    chain: tuple[str, ...]


@dataclass(frozen=True)
class ChunkRecord:
    """A chunk as search shows it: the original text, its place, and the context it was indexed with."""

    id: int
    document_id: int
    path: str
    title: str | None
    idx: int
    text: str
    start_char: int
    end_char: int
    page: int | None
    heading_path: list[str]
    context: str
    context_source: str
    quality: float | None
    ocr_confidence: float | None = None  # set when the chunk's page is a scan read by OCR: its mean confidence
    metadata: dict | None = None  # the document's (author, dates; a mail's sender and date): ParsedDocument.metadata
    family: str | None = None  # its format's (core/files/parsers/formats.py; migration 0019)
    dated: float | None = None  # the date filters and sorting use: a mail's sent date, else the file's mtime
    questions: str = ""  # the questions the chunk answers, one per line (keyword-indexed with the context)
    # A document known by its name alone (documents.NAME_ONLY): why it has no text ("" when there is none in it,
    # else the reason it could not be read); None for a document read.
    unread: str | None = None
