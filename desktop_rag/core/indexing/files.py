"""One file of an indexing run, sent where it belongs: passed over when unchanged (by size and mtime, then by
content), recognised as a document moved here, skipped (not a document, not text), read as a mailbox, as a file
holding documents, as a copy of another, or read and stored; a file with scanned pages waits for OCR after the
run's other files (scans.py)."""

from __future__ import annotations

import hashlib
import os
import time

from desktop_rag.core.files import containers, parsers
from desktop_rag.core.files.parsers.decoding import SNIFF_BYTES, looks_like_text, looks_like_text_throughout
from desktop_rag.core.files.scan import LINK_OUTSIDE, FoundFile, read_bounded
from desktop_rag.core.indexing import mailboxes
from desktop_rag.core.indexing.copies import CopyStore
from desktop_rag.core.indexing.mailboxes import MailboxIndexing
from desktop_rag.core.indexing.members import MemberIndexing
from desktop_rag.core.indexing.ocr_pages import OcrPages
from desktop_rag.core.indexing.outcomes import FileOutcomes
from desktop_rag.core.indexing.reading import FileReading
from desktop_rag.core.indexing.report import FileFailure
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.core.indexing.scans import ScanStep, ScanToRead
from desktop_rag.core.indexing.storing import DocumentStore
from desktop_rag.storage.records import DocumentRecord


ASK = object()  # index_file's `known`: not read by the caller, asked of the catalog


class FileStep:
    def __init__(self, state: RunState, *, outcomes: FileOutcomes, reading: FileReading, ocr: OcrPages,
                 store: DocumentStore, copies: CopyStore, members: MemberIndexing, mailboxes: MailboxIndexing,
                 scans: ScanStep):
        self.state = state
        self.summary = state.summary
        self.outcomes = outcomes
        self.reading = reading
        self.ocr = ocr
        self.store = store
        self.copies = copies
        self.members = members
        self.mailboxes = mailboxes
        self.scans = scans

    def index_file(self, found: FoundFile, position: tuple[int, int] = (0, 1),
                   known: object = ASK) -> None:
        """`position`: (files done, files in the run), for the contextualize phase's progress; `known`: the
        catalog's record of the file when the caller read it in bulk (a run's scanned folders), else ASK."""
        catalog = self.state.catalog
        path = str(found.path)
        if found.kind == LINK_OUTSIDE:
            self._forget_what_the_link_brought(found)
            known = ASK  # (forgetting what it brought may change its record)
        if not isinstance(known, DocumentRecord):
            known = catalog.document(path)
        # Scanned pages left unread (OCR was off) are read once OCR may: the file is read again though unchanged.
        scans_due = bool(known and known.unread_scans and self.ocr.allowed(found.path))
        if (known and known.size == found.size and known.mtime_ns == found.mtime_ns and not known.retry_due
                and not scans_due):
            if known.status == "failed":
                self.summary.failed.append(FileFailure(path, f"{known.error} (unchanged since the last attempt)"))
            else:
                self.summary.unchanged += 1
            return
        if found.kind == LINK_OUTSIDE:  # said per file, as a file that could not be indexed is
            self.outcomes.fail(found, None, LINK_OUTSIDE)
            return
        if parsers.is_image(found.path) and not self.ocr.allowed(found.path):
            self.outcomes.skip(found, f"an image, not read: {self.ocr.why_not(found.path)}")
            return
        if found.kind != parsers.DOCUMENT and self._skipped(found):
            return
        if mailboxes.is_mailbox(found):  # read as a stream, whatever its size
            self.mailboxes.index_mailbox(found, position)
            return
        t0 = time.perf_counter()
        data = self.reading.read_bytes(found)
        if data is None:
            return
        content_hash = hashlib.sha256(data).hexdigest()
        if known is None and self._moved_here(found, content_hash):
            return
        if known and known.status == "indexed" and known.content_hash == content_hash and not scans_due:
            catalog.touch_document(known.id, found.size, found.mtime_ns)  # touched or copied, same content
            self.summary.unchanged += 1
            return
        if (kind := containers.container_of(found.path.name, data)) is not None:
            self.members.index_container(found, kind, data, content_hash, known, position)
            return
        if known is not None and (inside := catalog.members_of(known.id)):  # it held files, and holds none now
            self.summary.removed += catalog.remove_documents([doc.id for doc in inside.values()])
        if self.copies.file_copy(found, content_hash):
            return
        if (found.kind == parsers.MAYBE_TEXT and not looks_like_text_throughout(data)
                and parsers.sniffed_suffix(data) is None):  # began like a document, is none (an unknown OLE file)
            self.outcomes.record_skip(found, "not text (binary content)")
            return
        read = self.reading.read(found, data, content_hash)
        if read is None:
            return
        document, chunks = read
        if document.scanned_pages and self.ocr.allowed(found.path):
            recognised = self.ocr.recognised(content_hash)
            if not all(page in recognised for page in document.scanned_pages):
                self.scans.wait(ScanToRead(found, content_hash, known, document.scanned_pages))
                return  # read by OCR after the run's other files (ScanStep.read_scans)
            read = self.reading.read(found, data, content_hash, recognised)  # read before: no OCR again
            if read is None:
                return
            document, chunks = read
        self.summary.phase_seconds["parse"] += time.perf_counter() - t0
        self.store.store(found, content_hash, known, document, chunks, position)

    def _forget_what_the_link_brought(self, found: FoundFile) -> None:
        """Before links were checked, a link's target was indexed under its own path, outside every folder: it is
        forgotten now (a file outside the folders is in the catalog only through such a link, or when it was
        indexed by name — then it goes too, and comes back at its next `index FILE`)."""
        catalog = self.state.catalog
        try:
            target = found.path.resolve()
        except (OSError, RuntimeError):
            return
        if any(target.is_relative_to(folder) for folder in catalog.folders()):
            return
        brought = catalog.documents_under(str(target))
        if brought:
            self.summary.removed += catalog.remove_documents([doc.id for doc in brought])

    def _skipped(self, found: FoundFile) -> bool:
        """A file whose name does not make it a document: skipped (and remembered as such) unless its first bytes
        are text, then it is read as plain text (a LICENSE, a Makefile, notes.log)."""
        catalog, path = self.state.catalog, str(found.path)
        if catalog.files.is_skipped(path, found.size, found.mtime_ns):
            self.summary.skipped += 1
            return True
        reason = None
        if found.kind == parsers.NOT_READ:
            reason = f"not a format desktop-rag reads ({found.path.suffix.lower()})"
        elif found.kind != parsers.MAYBE_TEXT:
            reason = found.kind  # scan.NOT_REGULAR: a pipe, a socket, a device
        else:
            try:
                head = read_bounded(found.path, SNIFF_BYTES, head_only=True)
            except OSError:
                return False  # the read that follows reports it as the file's error
            if not looks_like_text(head) and not parsers.may_be_document(head):
                reason = "not text (binary content)" if head else "empty file"
        if reason is None:
            return False
        self.outcomes.record_skip(found, reason)
        return True

    def _moved_here(self, found: FoundFile, content_hash: str) -> bool:
        """A new file with the content of a document whose file is gone is that document, moved (while nobody
        watched, or between folders whose events arrive apart): it keeps its chunks, contexts and vectors."""
        catalog = self.state.catalog
        vanished = next((doc for doc in catalog.documents_with_content(content_hash) if not os.path.exists(doc.path)),
                        None)
        if vanished is None:
            return False
        self.summary.moved += catalog.move_path(vanished.path, str(found.path))
        catalog.touch_document(vanished.id, found.size, found.mtime_ns)
        return True
