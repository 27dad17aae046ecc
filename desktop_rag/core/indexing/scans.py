"""Scanned pages in an indexing run: files with pages OCR must read wait until the run's other files are indexed
(they are quicker to find), then each page is read in the reader's child and kept at once, so a killed run or a
copy of the file never reads a page twice.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from desktop_rag.core.files import ocr
from desktop_rag.core.files.scan import FoundFile
from desktop_rag.core.indexing.index_sync import IndexSync
from desktop_rag.core.indexing.ocr_pages import OcrPages
from desktop_rag.core.indexing.reading import FileReading
from desktop_rag.core.indexing.report import Progress
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.core.indexing.storing import DocumentStore
from desktop_rag.storage.catalog import DocumentRecord


@dataclass
class ScanToRead:
    """A file with scanned pages, read by OCR once the run's other files are indexed (they are quicker to find)."""

    found: FoundFile
    content_hash: str
    known: DocumentRecord | None
    pages: list[int]


class ScanStep:
    """The run's files with scanned pages, waiting for OCR until its other files are indexed."""

    def __init__(self, state: RunState, reading: FileReading, ocr: OcrPages, store: DocumentStore, sync: IndexSync):
        self.state = state
        self.summary = state.summary
        self.reading = reading
        self.ocr = ocr
        self.store = store
        self.sync = sync
        self._waiting: list[ScanToRead] = []

    def wait(self, to_read: ScanToRead) -> None:
        self._waiting.append(to_read)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def read_scans(self) -> None:
        """The run's files with scanned pages: each page read by OCR (and kept at once), then the file indexed."""
        waiting_files, self._waiting = self._waiting, []
        if not waiting_files:
            return
        recognised_before = [self.ocr.recognised(f.content_hash) for f in waiting_files]
        pages_total = sum(len([p for p in f.pages if p not in known])
                          for f, known in zip(waiting_files, recognised_before))
        self.state.meter.plan_ocr(pages_total)
        pages_done = 0
        contexts_done = self.state.run_files - len(waiting_files)  # the contexts counter goes on, never restarts
        for number, (to_read, recognised) in enumerate(zip(waiting_files, recognised_before)):
            self.state.control.checkpoint()
            t0 = time.perf_counter()
            data = self.reading.read_bytes(to_read.found)
            if data is None:
                continue
            if hashlib.sha256(data).hexdigest() != to_read.content_hash:  # changed since: the next run reads it
                self.summary.busy.append(str(to_read.found.path))
                continue
            waiting = [page for page in to_read.pages if page not in recognised]
            for done, page in enumerate(waiting):
                self.state.progress(Progress("ocr", pages_done, pages_total, str(to_read.found.path),
                                          note=f"OCR: page {page} of {to_read.found.path.name} ({done + 1} of "
                                               f"{len(waiting)} to read in it)"))
                result = self._recognize(to_read, data, page)
                if result is None:
                    break
                recognised[page] = result
                pages_done += 1
                self.state.meter.page_recognised(result.seconds)
            else:
                self.state.progress(Progress("ocr", pages_done, pages_total))
                self.summary.phase_seconds["ocr"] += time.perf_counter() - t0
                read = self.reading.read(to_read.found, data, to_read.content_hash, recognised)
                if read is not None:
                    self.store.store(to_read.found, to_read.content_hash, to_read.known, *read,
                                (contexts_done + number, self.state.run_files))
                    self.state.progress(Progress("contextualize", contexts_done + number + 1, self.state.run_files))
            self.sync.keyword_index_catch_up()

    def _recognize(self, to_read: ScanToRead, data: bytes, page: int) -> ocr.OcrPage | None:
        return self.ocr.recognize_page(to_read.found, to_read.content_hash, to_read.found.path.suffix, page, data)
