"""Scanned pages in an indexing run: files with pages OCR must read wait until the run's other files are indexed
(they are quicker to find), then each page is read in the reader's child and kept at once, so a killed run or a
copy of the file never reads a page twice. A part of Indexer (run.py).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from desktop_rag.child_process import CallAbandoned, ChildClosed, ChildFailed
from desktop_rag.core.files import ocr, parsers
from desktop_rag.core.files.scan import FoundFile
from desktop_rag.core.indexing.report import Progress
from desktop_rag.storage.catalog import DocumentRecord


@dataclass
class ScanToRead:
    """A file with scanned pages, read by OCR once the run's other files are indexed (they are quicker to find)."""

    found: FoundFile
    content_hash: str
    known: DocumentRecord | None
    pages: list[int]


class ScanStep:
    _ocr_setup: tuple[str, str] | str | None  # (languages, recipe), or why OCR cannot run; None: not looked yet
    _scans: list[ScanToRead]

    def _ocr(self) -> tuple[str, str] | str:
        """(languages, recipe) OCR reads with, or the reason it cannot run; found once per run."""
        if self._ocr_setup is None:
            try:
                _, languages = ocr.find_languages(self.settings.ocr_languages)
                self._ocr_setup = (languages, ocr.recipe(languages))
            except ocr.OcrUnavailable as exc:
                self._ocr_setup = f"OCR is not available ({exc})"
                self.summary.notices.append(f"Scanned pages and images are not read: {exc}")
        return self._ocr_setup

    def _ocr_allowed(self, path: Path) -> bool:
        return self._why_no_ocr(path) is None

    def _why_no_ocr(self, path: Path) -> str | None:
        if not self.settings.ocr:
            return "OCR is turned off (setting ocr)"
        if any(path.is_relative_to(Path(folder).expanduser()) for folder in self.settings.ocr_skip_folders):
            return "OCR is skipped in its folder (setting ocr_skip_folders)"
        setup = self._ocr()
        return setup if isinstance(setup, str) else None

    def _recognised(self, content_hash: str) -> dict[int, ocr.OcrPage]:
        """Pages of this content already read by OCR with the run's recipe (a copy, a touched file, a killed run)."""
        setup = self._ocr()
        if isinstance(setup, str):  # OCR cannot run: its reason's second letter was taken for a recipe (mypy)
            return {}
        texts = self.lib.catalog.ocr_texts(content_hash, setup[1])
        return {page: ocr.OcrPage(text, confidence, 0.0) for page, (text, confidence) in texts.items()}

    def _read_scans(self) -> None:
        """The run's files with scanned pages: each page read by OCR (and kept at once), then the file indexed."""
        waiting_files, self._scans = self._scans, []
        if not waiting_files:
            return
        recognised_before = [self._recognised(f.content_hash) for f in waiting_files]
        pages_total = sum(len([p for p in f.pages if p not in known])
                          for f, known in zip(waiting_files, recognised_before))
        self.meter.plan_ocr(pages_total)
        pages_done = 0
        contexts_done = self._run_files - len(waiting_files)  # the contexts counter goes on, never restarts
        for number, (to_read, recognised) in enumerate(zip(waiting_files, recognised_before)):
            self.control.checkpoint()
            t0 = time.perf_counter()
            data = self._read_bytes(to_read.found)
            if data is None:
                continue
            if hashlib.sha256(data).hexdigest() != to_read.content_hash:  # changed since: the next run reads it
                self.summary.busy.append(str(to_read.found.path))
                continue
            waiting = [page for page in to_read.pages if page not in recognised]
            for done, page in enumerate(waiting):
                self.on_progress(Progress("ocr", pages_done, pages_total, str(to_read.found.path),
                                          note=f"OCR: page {page} of {to_read.found.path.name} ({done + 1} of "
                                               f"{len(waiting)} to read in it)"))
                result = self._recognize(to_read, data, page)
                if result is None:
                    break
                recognised[page] = result
                pages_done += 1
                self.meter.page_recognised(result.seconds)
            else:
                self.on_progress(Progress("ocr", pages_done, pages_total))
                self.summary.phase_seconds["ocr"] += time.perf_counter() - t0
                read = self._read(to_read.found, data, to_read.content_hash, recognised)
                if read is not None:
                    self._store(to_read.found, to_read.content_hash, to_read.known, *read,
                                (contexts_done + number, self._run_files))
                    self.on_progress(Progress("contextualize", contexts_done + number + 1, self._run_files))
            self._keyword_index_catch_up()

    def _recognize(self, to_read: ScanToRead, data: bytes, page: int) -> ocr.OcrPage | None:
        return self._recognize_page(to_read.found, to_read.content_hash, to_read.found.path.suffix, page, data)

    def _recognize_page(self, where, content_hash: str, suffix: str, page: int, data: bytes) -> ocr.OcrPage | None:
        """One page read by OCR and kept; None when the file (or the document inside one, `where`) cannot be (its
        failure is recorded). A pause waits between pages, and cuts a page short (it is read again on resume)."""
        setup = self._ocr()
        if isinstance(setup, str):  # OCR cannot run here (callers ask _ocr_allowed first)
            return None
        languages, recipe = setup
        while True:
            self.control.checkpoint()
            try:
                result = self.lib.document_reader.recognize(content_hash, suffix.lower(), page, languages, data,
                                                            abandon=lambda: self.control.stopping)
                break
            except CallAbandoned:
                continue  # paused: the checkpoint waits; cancelled: it ends the run
            except ChildClosed:
                raise
            except (parsers.ParseError, ChildFailed, ocr.OcrUnavailable) as exc:
                transient = not isinstance(exc, parsers.ParseError) or isinstance(exc, parsers.TransientReadError)
                self._fail(where, content_hash, str(exc), transient=transient)
                return None
        self.lib.catalog.save_ocr_text(content_hash, recipe, page, result.text, result.confidence, result.seconds)
        return result
