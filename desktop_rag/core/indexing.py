"""The indexing run: scan → parse → chunk → contextualize → (catalog) → keyword index → embed.

Keywords first: every file of a run is read and keyword-searchable before the embedder starts on it (embedding
is the slow part, ~1 hour per 100k chunks on 2 cores; reading and keyword indexing take minutes); meaning search
covers what is embedded so far, and says so (core/search/searcher.py).

Each file is committed to the catalog on its own and each embedding batch is marked done as soon as Chroma has
it, so a run killed at any point resumes without redoing finished work: unchanged files are recognised by size
and mtime (then by content hash), and only chunks not yet embedded are embedded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Protocol, Sequence

import numpy as np

from desktop_rag.child_process import CallAbandoned, ChildClosed, ChildFailed
from desktop_rag.config import Settings
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.dense.dense_text import dense_windows
from desktop_rag.core.files import containers, ocr, parsers
from desktop_rag.core.files.parsers.decoding import SNIFF_BYTES, looks_like_text
from desktop_rag.core.files.scan import (FileTooLarge, FoundFile, NotRegular, ScanProblem, name_is_storable, printable,
                                   read_bounded, scan)
from desktop_rag.core.indexing_members import MemberIndexing, Target
from desktop_rag.core.llm.interrupt import Interrupted, calls_controlled_by
from desktop_rag.core.runs.control import Cancelled, RunControl
from desktop_rag.core.runs.run_meter import RunMeter
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.documents import RULES_FOR_LOW_OCR
from desktop_rag.storage.catalog import Catalog, DocumentRecord

log = logging.getLogger(__name__)

PHASES = ("scan", "parse", "ocr", "contextualize", "embed", "index")
LOADING_NOTE = "Loading the language model…"
_KEYWORD_CATCH_UP_S = 60.0  # at least this long between keyword rebuilds during one run


@dataclass
class Progress:
    phase: str
    done: int
    total: int | None
    path: str | None = None
    note: str | None = None  # what the counts do not say ("Loading the language model…")
    overall: float | None = None  # the whole run's share done, where the run can estimate it
    seconds_left: float | None = None  # and its estimate of the time left


@dataclass
class FileFailure:
    path: str
    reason: str


@dataclass
class IndexSummary:
    indexed: int = 0
    unchanged: int = 0
    failed: list[FileFailure] = field(default_factory=list)
    removed: int = 0
    skipped: int = 0  # not text, or a format nothing here reads (parsers.file_kind)
    moved: int = 0  # recognised by path events or by content: chunks, contexts and vectors kept
    inside: int = 0  # documents read inside files: archive members, mailbox messages, attachments
    busy: list[str] = field(default_factory=list)  # changed while being read: not indexed half-written
    chunks: int = 0
    reused_contexts: int = 0  # found in the context cache: no model call
    kept_contexts: int = 0  # chunks of changed files whose text did not change: context kept, no model call
    embedded: int = 0
    keyword_chunks: int | None = None
    seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=lambda: {p: 0.0 for p in PHASES})
    cancelled: bool = False
    notices: list[str] = field(default_factory=list)

    def headline(self, stopped: str = "Interrupted") -> str:
        """The run in one sentence, as the CLI and the app both say it ("Done: 3 files indexed (12 chunks), …");
        `stopped`: the word for a run cut short (the CLI's Ctrl-C interrupts, the app's button cancels)."""
        inside = f"{self.inside} documents inside them, " if self.inside else ""
        return (f"{stopped if self.cancelled else 'Done'}: {self.indexed} files indexed "
                f"({inside}{self.chunks} chunks), "
                f"{self.unchanged} unchanged, {len(self.failed)} failed, {self.removed} removed"
                + (f", {self.moved} moved" if self.moved else "")
                + (f", {self.skipped} skipped (not text, or a format not read)" if self.skipped else "")
                + f", in {self.seconds:.1f} s")

    def changes(self) -> list[str]:
        """What the run changed, in words ("2 indexed", "1 moved", …), the counts that are not zero."""
        counts = ((self.indexed, "indexed"), (self.moved, "moved"), (self.removed, "removed"),
                  (len(self.failed), "failed"), (self.skipped, "skipped"))
        return [f"{n} {label}" for n, label in counts if n]


ProgressCallback = Callable[[Progress], None]


@dataclass
class ScanToRead:
    """A file with scanned pages, read by OCR once the run's other files are indexed (they are quicker to find)."""

    found: FoundFile
    content_hash: str
    known: DocumentRecord | None
    pages: list[int]


class IndexParts(Protocol):
    """What a run uses of a library: the Library (core/library.py) is one, its heavy parts made on first use (a
    run with nothing new never loads the embedding model); a test may give a smaller one."""

    settings: Settings
    catalog: Catalog
    document_reader: object  # reads a file into a document and chunks: DocumentReader, or ReaderProcess
    vectors: object  # the dense index: VectorStore, or VectorStoreProcess
    embedder: object
    token_counter: object

    def rebuild_keyword_index(self) -> int: ...


class Indexer(MemberIndexing):
    def __init__(self, library: IndexParts, contextualizer: Contextualizer, on_progress: ProgressCallback | None = None,
                 control: RunControl | None = None):
        self.lib = library
        self.settings = library.settings
        self.contextualizer = contextualizer
        self._report = on_progress or (lambda progress: None)
        self.control = control or RunControl()
        self.summary = IndexSummary()
        self.meter = RunMeter()
        self._keyword_rebuilt_at = time.monotonic()  # a run starts from the index as it is
        self._keyword_rebuild_s = 0.0
        self._scans: list[ScanToRead] = []
        self._ocr_setup: tuple[str, str] | str | None = None  # (languages, recipe), or why OCR cannot run

    def on_progress(self, progress: Progress) -> None:
        """Each report carries the whole run's share done and time left, once the run knows its files."""
        progress.overall, progress.seconds_left = self.meter.estimate()
        self._report(progress)

    def run(self, roots: Sequence[Path]) -> IndexSummary:
        """Index the files under `roots` (folders are remembered as watched folders) and forget what is gone
        from them: the `index` command, and the reconciliation scan when watching starts."""
        roots = [Path(r).expanduser().resolve() for r in roots]
        return self._timed(lambda: self._update(*self._scan(roots, register=True)))

    def apply_changes(self, changes: ChangeBatch) -> IndexSummary:
        """What a file watcher saw: moves are applied to the catalog first (nothing is re-read), then every
        touched path is brought in line with the disk: indexed, re-indexed, or forgotten."""

        def work():
            dirty = set(changes.outermost_dirty())
            for source, destination in changes.moves:
                if name_is_storable(source) and name_is_storable(destination):
                    self.summary.moved += self.lib.catalog.move_path(source, destination)
                else:  # the catalog cannot hold one of the names: forget the old, report the new (scan)
                    dirty.update((source, destination))
            existing = [Path(p) for p in sorted(dirty) if os.path.exists(p)]
            # A name the catalog cannot hold was never in it: nothing to forget.
            missing = [p for p in sorted(dirty) if not os.path.exists(p) and name_is_storable(p)]
            files, gone = self._scan(existing, register=False)
            for path in missing:
                gone.extend(self.lib.catalog.documents_under(path))
                self.lib.catalog.forget_skipped(path)
            self._update(files, gone)

        return self._timed(work)

    def _timed(self, work: Callable[[], None]) -> IndexSummary:
        started = time.perf_counter()
        try:
            with calls_controlled_by(self.control):  # a pause or cancel cuts a model call short
                work()
        except Cancelled:
            self.summary.cancelled = True
        finally:
            self.summary.seconds = time.perf_counter() - started
        return self.summary

    def _update(self, files: list[FoundFile], gone: list[DocumentRecord]) -> None:
        catalog = self.lib.catalog
        to_read = {f.path for f in files if not catalog.unchanged(str(f.path), f.size, f.mtime_ns)}
        self.meter.plan([f.size for f in files if f.path in to_read], catalog.count_pending_embeddings())
        for number, found in enumerate(files, start=1):
            self.on_progress(Progress("parse", number - 1, len(files), str(found.path)))
            self.control.checkpoint()
            started, chunks = time.perf_counter(), self.summary.chunks
            self._index_file(found, (number - 1, len(files)))
            if found.path in to_read:
                self.meter.file_read(found.size, self.summary.chunks - chunks, time.perf_counter() - started)
            self.on_progress(Progress("contextualize", number, len(files)))
            self._keyword_index_catch_up()
        # Forgotten after the files are read: one of them may have been recognised as a gone one, moved.
        still_gone = [doc.id for doc in gone if (now := catalog.document(doc.path)) and now.id == doc.id]
        self.summary.removed += catalog.remove_documents(still_gone)
        self._sync_keywords()  # every file read is keyword-searchable before OCR and embedding start
        self._read_scans()
        self.on_progress(Progress("parse", len(files), len(files)))
        catalog.forget_old_ocr_texts()  # text of scans no file has had for a month
        self.sync_indexes()

    # -- scan -----------------------------------------------------------------------------------------------

    def _scan(self, roots: list[Path], register: bool) -> tuple[list[FoundFile], list[DocumentRecord]]:
        """The files under `roots`, and the documents the catalog has under them that are no longer there."""
        t0 = time.perf_counter()
        problems: list[ScanProblem] = []
        files: list[FoundFile] = []
        for found in scan(roots, self.settings.ignore_patterns, problems):
            files.append(found)
            if len(files) % 500 == 0:
                self.on_progress(Progress("scan", len(files), None, str(found.path)))
                self.control.checkpoint()  # a scan of a big tree takes seconds: Pause and Quit must not wait
        self.on_progress(Progress("scan", len(files), len(files)))
        for problem in problems:
            self.summary.failed.append(FileFailure(printable(problem.path), problem.reason))
        self.lib.catalog.record_scan_problems([printable(r) for r in roots],
                                              [(printable(p.path), p.reason) for p in problems])
        if register:
            for root in roots:
                if root.is_dir():
                    self.lib.catalog.add_folder(str(root))
        seen = {str(f.path) for f in files}
        gone = self._gone(roots, seen, [printable(p.path) for p in problems])
        for root in roots:
            if root.is_dir() and not problems:  # a folder we could not list may still hold them
                self.lib.catalog.forget_skipped(str(root), keep=seen)
        self.summary.phase_seconds["scan"] += time.perf_counter() - t0
        return files, gone

    def _gone(self, roots: list[Path], seen: set[str], unreadable: list[str]) -> list[DocumentRecord]:
        gone = []
        for root in roots:
            if not root.is_dir():
                continue
            for doc in self.lib.catalog.documents_under(str(root)):
                # A file in a folder we could not list is not known to be gone: keep it.
                # A document inside a file goes with its file (MemberIndexing), not by a path of its own.
                if (doc.container_id is None and doc.path not in seen
                        and not any(doc.path.startswith(u) for u in unreadable)):
                    gone.append(doc)
        return gone

    # -- one file -------------------------------------------------------------------------------------------

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
        if (kind := containers.container_format(found.path.name, data[:SNIFF_BYTES])) is not None:
            self._index_container(found, kind, data, content_hash, known, position)
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
        except Exception as exc:  # a parser bug or a library crash on odd input must not end the run
            log.exception("parsing %s failed", where.path)
            self._fail(where, content_hash, f"could not parse: {exc.__class__.__name__}: {exc}")
        return None

    def _store(self, where: FoundFile | Target, content_hash: str, known: DocumentRecord | None, document, chunks,
               position: tuple[int, int]) -> None:
        """Contexts for a document read, then the document into the catalog."""
        target = Target.of(where)
        catalog, path = self.lib.catalog, target.path
        if document.scanned_pages and not document.text.strip():
            why = ("scanned pages inside archives and e-mail are not read by OCR" if target.member
                   else self._why_no_ocr(Path(path)))
            self._fail(target, content_hash, f"only scanned pages, not read: {why}",
                       unread_scans=0 if target.member else len(document.scanned_pages))
            return
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

    # -- scanned pages --------------------------------------------------------------------------------------

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
        texts = self.lib.catalog.ocr_texts(content_hash, self._ocr()[1])
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
                                (number, len(waiting_files)))
                    self.on_progress(Progress("contextualize", number + 1, len(waiting_files)))
            self._keyword_index_catch_up()

    def _recognize(self, to_read: ScanToRead, data: bytes, page: int) -> ocr.OcrPage | None:
        """One page read by OCR and kept; None when the file cannot be (its failure is recorded). A pause waits
        between pages, and cuts a page short (it is read again on resume)."""
        languages, recipe = self._ocr()
        while True:
            self.control.checkpoint()
            try:
                result = self.lib.document_reader.recognize(
                    to_read.content_hash, to_read.found.path.suffix.lower(), page, languages, data,
                    abandon=lambda: self.control.stopping)
                break
            except CallAbandoned:
                continue  # paused: the checkpoint waits; cancelled: it ends the run
            except ChildClosed:
                raise
            except (parsers.ParseError, ChildFailed, ocr.OcrUnavailable) as exc:
                transient = not isinstance(exc, parsers.ParseError) or isinstance(exc, parsers.TransientReadError)
                self._fail(to_read.found, to_read.content_hash, str(exc), transient=transient)
                return None
        self.lib.catalog.save_ocr_text(to_read.content_hash, recipe, page, result.text, result.confidence,
                                       result.seconds)
        return result

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
            if not looks_like_text(head):
                reason = "not text (binary content)" if head else "empty file"
        if reason is None:
            return False
        self._record_skip(found, reason)
        return True

    def _prepare_model(self, chunk_count: int, position: tuple[int, int], path: str) -> None:
        """A language model that is about to be asked is loaded first, with a word to the person watching."""
        if not self.contextualizer.model_ready:
            self.on_progress(Progress("contextualize", *position, path, note=LOADING_NOTE))
            self.contextualizer.prepare_model(chunk_count)
            self.on_progress(Progress("contextualize", *position, path))

    def _cached_contexts(self, content_hash: str, document, chunks) -> list | None:
        """The contexts this model and prompt already wrote for the same content (a copy, a file touched or
        re-indexed), or None: only a complete set is reused, since a document's contexts come from one pass."""
        key = self.contextualizer.cache_key()
        if key is None or not chunks:
            return None
        cached = self.lib.catalog.cached_contexts(content_hash, document.title, *key)
        if not all(chunk.text_hash in cached for chunk in chunks):
            return None
        self.summary.reused_contexts += len(chunks)
        return [cached[chunk.text_hash] for chunk in chunks]

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

    def _contexts(self, document, chunks, known: DocumentRecord | None) -> list:
        """New contexts only for chunks whose text is new: a changed document's other chunks keep theirs. Chunks
        of garbled OCR text get rules contexts, kept as such (RULES_FOR_LOW_OCR)."""
        previous = self.lib.catalog.reusable_contexts(known.id) if known and known.status == "indexed" else {}
        missing = [i for i, chunk in enumerate(chunks) if chunk.text_hash not in previous]
        garbled = set(document.garbled_chunks(chunks))
        asked = [i for i in missing if i not in garbled]
        if len(asked) == len(chunks):
            fresh = self.contextualizer.contextualize(document, chunks)
        else:  # the chunks not asked about get rules contexts
            fresh = self.contextualizer.contextualize(document, chunks, only=asked) if missing else []
        self.summary.kept_contexts += len(chunks) - len(missing)
        contexts = [previous[c.text_hash] if c.text_hash in previous else fresh[i] for i, c in enumerate(chunks)]
        for i in garbled:
            if contexts[i].source == "rules":
                contexts[i] = replace(contexts[i], prompt_version=RULES_FOR_LOW_OCR)
        return contexts

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

    # -- indexes --------------------------------------------------------------------------------------------

    def _keyword_index_catch_up(self) -> None:
        """During a long run, files already catalogued become keyword-searchable now and then, not only at the run's
        end (3 of 40 files were, 10 minutes into a run). The index is rebuilt whole, so not more often than
        _KEYWORD_CATCH_UP_S, and never taking more than a tenth of the run's time."""
        since = time.monotonic() - self._keyword_rebuilt_at
        if since < max(_KEYWORD_CATCH_UP_S, 10 * self._keyword_rebuild_s) or not self.lib.catalog.keyword_index_dirty:
            return  # the clock first: the catalog is asked at most once a minute, not after every file
        t0 = time.perf_counter()
        self.lib.rebuild_keyword_index()
        self._keyword_rebuild_s = time.perf_counter() - t0
        self._keyword_rebuilt_at = time.monotonic()
        self.summary.phase_seconds["index"] += self._keyword_rebuild_s

    def sync_indexes(self) -> None:
        """Bring BM25 and Chroma in line with the catalog: rebuild the keyword index if anything changed, then
        drop removed vectors and embed pending chunks. Safe to call any time; does nothing when all is in sync."""
        self._sync_keywords()
        self.embed_pending()

    def _sync_keywords(self) -> None:
        if not self.lib.catalog.keyword_index_dirty:
            return
        self.control.checkpoint()
        t0 = time.perf_counter()
        self.on_progress(Progress("index", 0, 1))
        self.summary.keyword_chunks = self.lib.rebuild_keyword_index()
        self._keyword_rebuilt_at = time.monotonic()
        self.on_progress(Progress("index", 1, 1))
        self.summary.phase_seconds["index"] += time.perf_counter() - t0

    def embed_pending(self) -> None:
        catalog = self.lib.catalog
        # Deletions first, always: SQLite may give a new chunk the id of a removed one, and the removed one's
        # vectors must be gone before the new ones are written under that id.
        deletions = catalog.pending_dense_deletions()
        if deletions:
            self.lib.vectors.delete(deletions)
            catalog.clear_dense_deletions(deletions)
        self._keep_older_vectors()
        done_before = self.summary.embedded  # the embed bar counts the whole run, not this flush alone
        batch_size = max(self.settings.embed_batch_size * 4, 64)
        while True:
            self.control.checkpoint()
            waiting = catalog.count_pending_embeddings()
            batch = catalog.pending_embeddings(batch_size)
            if not batch:
                break
            t0 = time.perf_counter()
            expected = max(self.summary.embedded + waiting, self.meter.chunks_expected())
            self.on_progress(Progress("embed", self.summary.embedded, expected))
            owners, texts = [], []
            for chunk_id, context, text in batch:
                for window in dense_windows(context, text, self.lib.token_counter):
                    owners.append(chunk_id)
                    texts.append(window)
            vectors = self.lib.embedder.embed(texts)
            self.lib.vectors.add(owners, vectors)
            ids = [chunk_id for chunk_id, _, _ in batch]
            catalog.mark_embedded(ids, owners, vectors)
            self.summary.embedded += len(batch)
            seconds = time.perf_counter() - t0
            self.summary.phase_seconds["embed"] += seconds
            self.meter.batch_embedded(len(batch), seconds)
        if self.summary.embedded > done_before:
            self.on_progress(Progress("embed", self.summary.embedded, self.summary.embedded))

    def _keep_older_vectors(self) -> None:
        """Chunks embedded before the catalog kept vectors (migration 0011): theirs are copied from the dense index,
        a page at a time (~3 s per 100k chunks), so filtered search scores them too."""
        catalog = self.lib.catalog
        while True:
            self.control.checkpoint()
            missing = catalog.chunks_without_vectors(2000)
            if not missing:
                return
            found = self.lib.vectors.windows(missing)
            owners = [chunk for chunk in missing for _ in range(len(found.get(chunk, ())))]
            if owners:
                catalog.store_vectors(owners, np.concatenate([found[c] for c in missing if c in found]))
            lost = [chunk for chunk in missing if chunk not in found]
            if lost:  # the catalog said embedded, the dense index has nothing: embedded again (doctor's finding too)
                catalog.mark_unembedded(lost)


def _unchanged_since(found: FoundFile, bytes_read: int) -> bool:
    """The file still has the size and mtime the scan saw, and we read all of it."""
    try:
        st = found.path.stat()
    except OSError:
        return False
    return (st.st_size, st.st_mtime_ns) == (found.size, found.mtime_ns) and bytes_read == found.size
