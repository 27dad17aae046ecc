"""The indexing run: scan → parse → chunk → contextualize → (catalog) → keyword index → embed.

Keywords first: every file of a run is read and keyword-searchable before the embedder starts on it (embedding
is the slow part, ~1 hour per 100k chunks on 2 cores; reading and keyword indexing take minutes); meaning search
covers what is embedded so far, and says so (core/search/searcher.py).

Each file is committed to the catalog on its own and each embedding batch is marked done as soon as Chroma has
it, so a run killed at any point resumes without redoing finished work: unchanged files are recognised by size
and mtime (then by content hash), and only chunks not yet embedded are embedded.

The run is one class cut along its seams: this module holds its state and its order (scan, the files, forgetting
the gone, keywords, scans, embedding); files.py reads and stores one file, members.py the documents inside one,
mailboxes.py a mailbox as a stream, scans.py the pages OCR reads, contexts.py the contexts a document gets,
index_sync.py the keyword and dense indexes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Protocol
from collections.abc import Callable, Sequence

from desktop_rag.config import Settings
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.files.scan import FoundFile, ScanProblem, name_is_storable, printable, scan
from desktop_rag.core.indexing.contexts import ContextStep
from desktop_rag.core.indexing.copies import CopyStep
from desktop_rag.core.indexing.files import FileStep
from desktop_rag.core.indexing.index_sync import IndexSync
from desktop_rag.core.indexing.mailboxes import MailboxIndexing
from desktop_rag.core.indexing.members import MemberIndexing
from desktop_rag.core.indexing.report import FileFailure, IndexSummary, Progress, ProgressCallback
from desktop_rag.core.indexing.scans import ScanStep, ScanToRead
from desktop_rag.core.llm.interrupt import calls_controlled_by
from desktop_rag.core.progress.control import Cancelled, RunControl
from desktop_rag.core.progress.run_meter import RunMeter
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.storage.catalog import Catalog, DocumentRecord


class IndexParts(Protocol):
    """What a run uses of a library: the Library (core/library.py) is one, its heavy parts made on first use (a
    run with nothing new never loads the embedding model); the unit tests give a smaller one
    (tests/unit/core/indexing/index_parts_fake.py)."""

    # Read-only: the library makes its heavy parts on first use (made_once). Any: each has two forms (in this
    # process, or in a child) with no declared interface in common yet.
    @property
    def settings(self) -> Settings: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def document_reader(self) -> Any: ...  # a file into a document and chunks: DocumentReader, or ReaderProcess
    @property
    def vectors(self) -> Any: ...  # the dense index: VectorStore, or VectorStoreProcess
    @property
    def embedder(self) -> Any: ...
    @property
    def keywords(self) -> Any: ...  # rebuilt from the catalog's texts; how long that spent tokenizing
    @property
    def token_counter(self) -> Any: ...


class Indexer(FileStep, MemberIndexing, MailboxIndexing, CopyStep, ScanStep, ContextStep, IndexSync):
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
        self._keyword_rebuild_s: float | None = None  # what the last rebuild cost (None: not timed yet)
        self._scans: list[ScanToRead] = []
        self._run_files = 0  # files in the run: the contexts counter's total, which scans count on to
        self._ocr_setup: tuple[str, str] | str | None = None  # (languages, recipe), or why OCR cannot run

    def on_progress(self, progress: Progress) -> None:
        """Each report carries the whole run's share done and time left, once the run knows its files."""
        progress.overall, progress.seconds_left = self.meter.progress()
        self._report(progress)

    def run(self, roots: Sequence[str | Path]) -> IndexSummary:
        """Index the files under `roots` (folders are remembered as watched folders) and forget what is gone
        from them: the `index` command, and the reconciliation scan when watching starts."""
        folders = [Path(r).expanduser().resolve() for r in roots]
        return self._timed(lambda: self._update(*self._scan(folders, register=True)))

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
        written = self.lib.catalog.writes()["documents"]
        try:
            with calls_controlled_by(self.control):  # a pause or cancel cuts a model call short
                work()
        except Cancelled:
            self.summary.cancelled = True
        finally:
            self.summary.seconds = time.perf_counter() - started
            self.summary.documents_written = self.lib.catalog.writes()["documents"] != written
        return self.summary

    def _update(self, files: list[FoundFile], gone: list[DocumentRecord]) -> None:
        catalog = self.lib.catalog
        to_read = {f.path for f in files if not catalog.unchanged(str(f.path), f.size, f.mtime_ns)}
        # The files to read smallest first (the unchanged ones, passed over in milliseconds, before them): the most
        # files searchable soonest. In path order a 3 MB book near the top of a folder held the next 500 files back
        # for 4 s, and the first hit of a first run came 26.5 s after the folder was added (issue 37).
        files = sorted(files, key=lambda f: (f.path in to_read, f.size if f.path in to_read else 0))
        self.meter.plan([f.size for f in files if f.path in to_read], catalog.count_pending_embeddings())
        self._run_files = len(files)
        for number, found in enumerate(files, start=1):
            self.on_progress(Progress("parse", number - 1, len(files), str(found.path)))
            self.control.checkpoint()
            started = time.perf_counter()
            self._index_file(found, (number - 1, len(files)))
            if found.path in to_read:
                self.meter.file_read(found.size, time.perf_counter() - started)
            # Files whose contexts are written: a scan's come after OCR (_read_scans), counting on from here.
            self.on_progress(Progress("contextualize", number - len(self._scans), len(files)))
            self._keyword_index_catch_up()
            self.measure_embedding()
        # Forgotten after the files are read: one of them may have been recognised as a gone one, moved.
        still_gone = [doc.id for doc in gone if (now := catalog.document(doc.path)) and now.id == doc.id]
        self.summary.removed += catalog.remove_documents(still_gone)
        self._read_orphaned_copies()  # their originals removed or changed: each the document it is now
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
