"""The part of an indexing run that reads files holding documents: archives, mailboxes, e-mail messages with
attachments (core/files/containers.py). Each document inside is stored as a document of its own, with the file as
its container. The mailboxes step (mailboxes.py) reads each message's attachments here too.

A file changed since it was read is opened again, and only its members whose content changed are read: appending
one message to a 5,000-message mailbox reads one message. The file's row has no content hash until its last member
is stored, so a run killed halfway opens it again and reads only the members not stored yet.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import PurePosixPath
from collections.abc import Callable

from desktop_rag.core.files import containers, parsers
from desktop_rag.core.files.scan import FoundFile
from desktop_rag.core.indexing.copies import CopyStore
from desktop_rag.core.indexing.index_sync import IndexSync
from desktop_rag.core.indexing.ocr_pages import OcrPages
from desktop_rag.core.indexing.outcomes import FileOutcomes, Target
from desktop_rag.core.indexing.report import Progress
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.core.indexing.storing import DocumentRead, DocumentStore
from desktop_rag.documents import member_path
from desktop_rag.storage.catalog import DocumentRecord, Member

_PARSERS = {containers.ZIP: "zip", containers.TAR: "tar", containers.MBOX: "mbox", containers.PST: "pst",
            containers.MESSAGE: "email", containers.OUTLOOK: "outlook",
            containers.WITH_FILES: "document",  # (the row becomes the document's once it is read)
            containers.COMPRESSED: "compressed", containers.TNEF: "tnef"}


class MemberIndexing:
    """Files that hold documents."""

    def __init__(self, state: RunState, outcomes: FileOutcomes, ocr: OcrPages, store: DocumentStore,
                 copies: CopyStore, sync: IndexSync):
        self.state = state
        self.lib = state.lib
        self.summary = state.summary
        self.outcomes = outcomes
        self.ocr = ocr
        self.store = store
        self.copies = copies
        self.sync = sync

    def index_container(self, found: FoundFile, kind: str, data: bytes, content_hash: str,
                         known: DocumentRecord | None, position: tuple[int, int]) -> None:
        """`kind`: containers.container_format's for the file."""
        catalog, reader = self.lib.catalog, self.lib.document_reader
        name = found.path.name

        def open_container():  # again when the reader's child lost it (it crashed on an earlier member)
            return reader.open_container(name, content_hash, data)

        def read_member(index: int, ocr=None):
            return reader.read_member(content_hash, index, self.state.settings.chunk_tokens,
                                      self.state.settings.chunk_overlap_tokens, reopen=open_container, ocr=ocr)

        def member_bytes(index: int) -> bytes:
            return reader.member_bytes(content_hash, index, reopen=open_container)

        started = time.perf_counter()
        members = self.outcomes.reading(found, content_hash, open_container)
        if members is None:
            return
        container_id = catalog.files.start_container(str(found.path), parser=_PARSERS[kind], title=name)
        before = catalog.members_of(container_id)
        self.summary.phase_seconds["parse"] += time.perf_counter() - started
        own = [index for index, info in enumerate(members) if not info.chain]
        own_message = own[0] if own else None  # an .eml file's own message: stored last, at the file's path
        if own_message is not None and members[own_message].problem:  # an .eml that is no mail: the file's error
            self.outcomes.fail(found, content_hash, members[own_message].problem)
            return
        wanted = self.read_members(
            found, container_id, members, (), before.get, read_member, member_bytes,
            lambda index, member_name: self._report_member(found, position, index, len(members), member_name),
            position)
        gone = [doc.id for path, doc in before.items() if path not in wanted]
        if gone:
            self.summary.removed += catalog.remove_documents(gone)
        self._store_container(found, kind, content_hash, known, own_message, read_member, member_bytes, position)
        if any(doc.retry_due for doc in catalog.members_of(container_id).values()):
            # A member failed for a cause outside it (a timeout on a busy machine): the file stays unfinished, so
            # the next run opens it again and tries that member (the others are not read again).
            catalog.files.start_container(str(found.path), parser=_PARSERS[kind], title=name)

    def read_members(self, found: FoundFile, container_id: int, members: list, prefix: tuple[str, ...],
                      stored_at: Callable[[str], DocumentRecord | None], read_member: Callable[..., DocumentRead],
                      member_bytes: Callable[[int], bytes], report: Callable[[int, str], None],
                      position: tuple[int, int]) -> set[str]:
        """The documents inside a file (all but the file's own message, chain ()) read and stored, those whose
        content is stored already passed over; `prefix`: the names before theirs (a mailbox's message). Pictures
        and scans among them are read by OCR when the file's folder allows it (left out when OCR is off: a zip of
        photos is not 500 failures). Returns their paths."""
        ocr_allowed = self.ocr.allowed(found.path)
        wanted: set[str] = set()
        first_with: dict[str, str] = {}  # a content hash → the member read with it
        for index, info in enumerate(members):
            if not info.chain or (not ocr_allowed and parsers.is_image(PurePosixPath(info.chain[-1]))):
                continue
            chain = (*prefix, *info.chain)
            target = Target(member_path(str(found.path), chain), info.size, found.mtime_ns,
                            Member(container_id, chain))
            wanted.add(target.path)
            original = first_with.get(info.content_hash) if not info.problem and info.size else None
            first_with.setdefault(info.content_hash, target.path)
            stored = stored_at(target.path)
            if stored and stored.content_hash == info.content_hash and (stored.status == "indexed"
                                                                       or not stored.retry_due):
                continue  # read before with this content (or failed on it): nothing to do
            self.state.control.checkpoint()
            report(index, info.chain[-1])
            if info.problem:
                self.outcomes.fail(target, info.content_hash, info.problem)
            elif original is not None:
                self.copies.store_copy(target, info.content_hash, original)
            else:
                t0 = time.perf_counter()
                read = self.outcomes.reading(target, info.content_hash, partial(read_member, index))
                self.summary.phase_seconds["parse"] += time.perf_counter() - t0
                if read is not None and read[0].scanned_pages and ocr_allowed:
                    read = self._member_by_ocr(target, info.content_hash, read[0].scanned_pages,
                                               partial(member_bytes, index),
                                               partial(read_member, index))
                if read is not None:
                    self.store.store(target, info.content_hash, stored, *read, position)
            self.sync.keyword_index_catch_up()
        return wanted

    def _member_by_ocr(self, target: Target, content_hash: str, pages: list[int], member_bytes: Callable[[], bytes],
                       read_with: Callable[[dict], DocumentRead]) -> DocumentRead | None:
        """A picture or scan inside a file, its pages read by OCR now (kept by content, as a file's are), then read
        with their text; None when it cannot be (its failure recorded)."""
        recognised = self.ocr.recognised(content_hash)
        waiting = [page for page in pages if page not in recognised]
        if waiting:
            data = self.outcomes.reading(target, content_hash, member_bytes)
            if data is None:
                return None
            t0 = time.perf_counter()
            for page in waiting:
                name = target.member.chain[-1] if target.member else target.path
                result = self.ocr.recognize_page(target, content_hash, PurePosixPath(name).suffix, page, data)
                if result is None:
                    return None
                recognised[page] = result
            self.summary.phase_seconds["ocr"] += time.perf_counter() - t0
        return self.outcomes.reading(target, content_hash, lambda: read_with(recognised))

    def _store_container(self, found: FoundFile, kind: str, content_hash: str, known: DocumentRecord | None,
                         own_message: int | None, read_member: Callable[..., DocumentRead],
                         member_bytes: Callable[[int], bytes], position: tuple[int, int]) -> None:
        """The file's own row, with its content hash: an .eml's message, or a document holding files, as its
        document (a PDF's scanned pages read by OCR); an archive or a mailbox as a document without text (its
        members are the documents)."""
        if own_message is not None:
            read = self.outcomes.reading(found, content_hash, lambda: read_member(own_message))
            if read is not None and read[0].scanned_pages and self.ocr.allowed(found.path):
                read = self._member_by_ocr(Target.of(found), content_hash, read[0].scanned_pages,
                                           lambda: member_bytes(own_message),
                                           lambda recognised: read_member(own_message, recognised))
            if read is not None:
                self.store.store(found, content_hash, known, *read, position)
            return
        self.lib.catalog.save_document(
            path=str(found.path), size=found.size, mtime_ns=found.mtime_ns, content_hash=content_hash,
            parser=_PARSERS[kind], title=found.path.name, text="", page_count=None, chunks=[], contexts=[])
        self.summary.indexed += 1

    def _report_member(self, found: FoundFile, position: tuple[int, int], index: int, total: int, name: str) -> None:
        """Reading the documents inside a file: "Inbox: 120 of 5000 (2025-03-14 Lunch)" beside the files' count."""
        self.state.progress(Progress("parse", *position, str(found.path),
                                     note=f"{found.path.name}: {index + 1} of {total} ({name})"))
