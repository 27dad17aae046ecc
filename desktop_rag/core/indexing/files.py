"""One file of an indexing run: read within its size limit (a file still being written waits for the next look),
read into a document and chunks by the reader, given contexts (contexts.py), stored; or skipped (not a document,
not text) or failed (with a reason the person can act on), both remembered in the catalog.

A part of Indexer (run.py), which holds the run's state.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from dataclasses import replace
from pathlib import Path
from collections.abc import Callable

from desktop_rag.child_process import ChildClosed, ChildFailed
from desktop_rag.core.files import containers, parsers
from desktop_rag.core.files.parsers.decoding import SNIFF_BYTES, looks_like_text
from desktop_rag.core.files.scan import FileTooLarge, FoundFile, NotRegular, read_bounded
from desktop_rag.core.indexing import mailboxes
from desktop_rag.core.indexing.members import Target
from desktop_rag.core.indexing.report import FileFailure, Progress
from desktop_rag.core.indexing.scans import ScanToRead
from desktop_rag.core.llm.interrupt import Interrupted
from desktop_rag.documents import MEMBER_SEPARATOR, NAME_ONLY, ContextResult, name_card, name_chunk
from desktop_rag.storage.catalog import DocumentRecord

log = logging.getLogger(__name__)


class FileStep:
    def _index_file(self, found: FoundFile, position: tuple[int, int] = (0, 1)) -> None:
        """`position`: (files done, files in the run), for the contextualize phase's progress."""
        catalog = self.lib.catalog
        path = str(found.path)
        known = catalog.document(path)
        # Scanned pages left unread (OCR was off) are read once OCR may: the file is read again though unchanged.
        scans_due = bool(known and known.unread_scans and self._ocr_allowed(found.path))
        if (known and known.size == found.size and known.mtime_ns == found.mtime_ns and not known.retry_due
                and not scans_due):
            if known.status == "failed":
                self.summary.failed.append(FileFailure(path, f"{known.error} (unchanged since the last attempt)"))
            else:
                self.summary.unchanged += 1
            return
        if parsers.is_image(found.path) and not self._ocr_allowed(found.path):
            self._skip(found, f"an image, not read: {self._why_no_ocr(found.path)}")
            return
        if found.kind != parsers.DOCUMENT and self._skipped(found):
            return
        if mailboxes.is_mailbox(found):  # read as a stream, whatever its size
            self._index_mailbox(found, position)
            return
        t0 = time.perf_counter()
        data = self._read_bytes(found)
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
            self._index_container(found, kind, data, content_hash, known, position)
            return
        if known is not None and (inside := catalog.members_of(known.id)):  # it held files, and holds none now
            self.summary.removed += catalog.remove_documents([doc.id for doc in inside.values()])
        if self._file_copy(found, content_hash):
            return
        if (found.kind == parsers.MAYBE_TEXT and not looks_like_text(data[:SNIFF_BYTES])
                and parsers.sniffed_suffix(data) is None):  # began like a document, is none (an unknown OLE file)
            self._record_skip(found, "not text (binary content)")
            return
        read = self._read(found, data, content_hash)
        if read is None:
            return
        document, chunks = read
        if document.scanned_pages and self._ocr_allowed(found.path):
            recognised = self._recognised(content_hash)
            if not all(page in recognised for page in document.scanned_pages):
                self._scans.append(ScanToRead(found, content_hash, known, document.scanned_pages))
                return  # read by OCR after the run's other files (_read_scans)
            read = self._read(found, data, content_hash, recognised)  # read before: no OCR again
            if read is None:
                return
            document, chunks = read
        self.summary.phase_seconds["parse"] += time.perf_counter() - t0
        self._store(found, content_hash, known, document, chunks, position)

    def _read_bytes(self, found: FoundFile) -> bytes | None:
        """The file's bytes, or None when it is not read now (its failure recorded, or busy: still being written)."""
        path = str(found.path)
        limit = int(self.settings.max_file_mb * 1024 * 1024)
        if found.size > limit:
            self._fail(found, None, f"too large: {found.size / 2**20:.1f} MB is over the "
                                    f"{self.settings.max_file_mb:g} MB limit (setting max_file_mb)")
            return None
        try:
            data = read_bounded(found.path, limit)
        except FileTooLarge:  # it grew since the scan: the next run sees its new size
            self.summary.busy.append(path)
            return None
        except NotRegular as exc:
            self._fail(found, None, str(exc))
            return None
        except OSError as exc:  # permission denied, an I/O error: the file may read fine next time
            self._fail(found, None, f"cannot read file: {exc.strerror or exc}", transient=True)
            return None
        if not _unchanged_since(found, len(data)):  # still being written: index it once it is complete
            self.summary.busy.append(path)
            return None
        return data

    def _read(self, found: FoundFile, data: bytes, content_hash: str, recognised: dict | None = None):
        """(document, chunks) read by the reader, with the OCR text of scanned pages in `recognised`; None when the
        file cannot be read (its failure is recorded)."""
        return self._reading(found, content_hash, lambda: self.lib.document_reader.read(
            found.path, data, self.settings.chunk_tokens, self.settings.chunk_overlap_tokens, recognised))

    def _reading(self, where: FoundFile | Target, content_hash: str, read: Callable):
        """What `read()` returns, or None when it fails: the failure is recorded for the file or the member."""
        try:
            return read()
        except parsers.ParseError as exc:
            self._fail(where, content_hash, str(exc), transient=isinstance(exc, parsers.TransientReadError))
        except ChildClosed:  # the app quits: not the file's fault, and it is read again next time
            raise
        except ChildFailed as exc:  # the reader did not start (memory, a loaded machine): no fault of the file's
            self._fail(where, content_hash, f"the reader could not run ({exc}); it is tried again next time",
                       transient=True)
        except Exception:  # a parser bug or a library crash on odd input must not end the run
            log.exception("parsing %s failed", where.path)
            self._fail(where, content_hash, "could not be read: desktop-rag's reader failed on it (the details are "
                                            "in the log)")
        return None

    def _store(self, where: FoundFile | Target, content_hash: str, known: DocumentRecord | None, document, chunks,
               position: tuple[int, int]) -> None:
        """Contexts for a document read, then the document into the catalog."""
        target = Target.of(where)
        catalog, path = self.lib.catalog, target.path
        if document.scanned_pages and not document.text.strip():
            why = self._why_no_ocr(Path(path.split(MEMBER_SEPARATOR)[0])) or "OCR found no text in them"
            self._fail(target, content_hash, f"only scanned pages, not read: {why}",
                       unread_scans=0 if target.member else len(document.scanned_pages))
            return
        if not chunks:  # nothing to read in it (a deck of charts, a blank page): known by its name and metadata
            card = name_card(path, document.title, document.metadata)
            document, chunks = replace(document, text=card, parser=NAME_ONLY), [name_chunk(card)]
            contexts = [ContextResult("", "none")]
            self.summary.without_text += 1
        else:
            contexts = self._contexts_for(content_hash, document, chunks, known, position, path)
        catalog.save_document(
            path=path, size=target.size, mtime_ns=target.mtime_ns, content_hash=content_hash, parser=document.parser,
            title=document.title, text=document.text, page_count=document.page_count, chunks=chunks,
            contexts=contexts, ocr_confidence=document.ocr_confidence,
            unread_scans=0 if target.member else len(document.scanned_pages), metadata=document.metadata,
            member=target.member,
        )
        if target.member:
            self.summary.inside += 1
        else:
            self.summary.indexed += 1
        self.summary.chunks += len(chunks)
        self.meter.stored(len(chunks), sum(len(c.text) for c in chunks) + sum(len(c.text) for c in contexts))

    def _contexts_for(self, content_hash: str, document, chunks, known: DocumentRecord | None,
                      position: tuple[int, int], path: str) -> list:
        """The contexts of a document's chunks: reused from the cache, or written (contexts.py)."""
        t1 = time.perf_counter()
        self.on_progress(Progress("contextualize", *position, path))
        contexts = self._cached_contexts(content_hash, document, chunks)
        while contexts is None:
            try:
                self._prepare_model(len(chunks), position, path)
                contexts = self._contexts(document, chunks, known)
            except Interrupted:  # paused (asked again on resume) or cancelled (the file is redone next run)
                self.control.checkpoint()
        self.summary.phase_seconds["contextualize"] += time.perf_counter() - t1
        return contexts

    def _skip(self, found: FoundFile, reason: str) -> None:
        """Skipped (an image while OCR may not read it), remembered unless it already is with this size and mtime."""
        if self.lib.catalog.is_skipped(str(found.path), found.size, found.mtime_ns):
            self.summary.skipped += 1
        else:
            self._record_skip(found, reason)

    def _record_skip(self, found: FoundFile, reason: str) -> None:
        self.lib.catalog.save_skipped(str(found.path), found.size, found.mtime_ns, reason)
        self.summary.skipped += 1

    def _skipped(self, found: FoundFile) -> bool:
        """A file whose name does not make it a document: skipped (and remembered as such) unless its first bytes
        are text, then it is read as plain text (a LICENSE, a Makefile, notes.log)."""
        catalog, path = self.lib.catalog, str(found.path)
        if catalog.is_skipped(path, found.size, found.mtime_ns):
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
        self._record_skip(found, reason)
        return True

    def _moved_here(self, found: FoundFile, content_hash: str) -> bool:
        """A new file with the content of a document whose file is gone is that document, moved (while nobody
        watched, or between folders whose events arrive apart): it keeps its chunks, contexts and vectors."""
        catalog = self.lib.catalog
        vanished = next((doc for doc in catalog.documents_with_content(content_hash) if not os.path.exists(doc.path)),
                        None)
        if vanished is None:
            return False
        self.summary.moved += catalog.move_path(vanished.path, str(found.path))
        catalog.touch_document(vanished.id, found.size, found.mtime_ns)
        return True

    def _fail(self, where: FoundFile | Target, content_hash: str | None, reason: str, transient: bool = False,
              unread_scans: int = 0) -> None:
        target = Target.of(where)
        self.lib.catalog.save_failure(
            path=target.path, size=target.size, mtime_ns=target.mtime_ns, content_hash=content_hash, error=reason,
            transient=transient, unread_scans=unread_scans, member=target.member,
        )
        self.summary.failed.append(FileFailure(target.path, reason))

    def _report_member(self, found: FoundFile, position: tuple[int, int], index: int, total: int, name: str) -> None:
        """Reading the documents inside a file: "Inbox: 120 of 5000 (2025-03-14 Lunch)" beside the files' count."""
        self.on_progress(Progress("parse", *position, str(found.path),
                                  note=f"{found.path.name}: {index + 1} of {total} ({name})"))


def _unchanged_since(found: FoundFile, bytes_read: int) -> bool:
    """The file still has the size and mtime the scan saw, and we read all of it."""
    try:
        st = found.path.stat()
    except OSError:
        return False
    return (st.st_size, st.st_mtime_ns) == (found.size, found.mtime_ns) and bytes_read == found.size
