"""The indexing run: scan → parse → chunk → contextualize → (catalog) → keyword index → embed.

Keywords first: every file of a run is read and keyword-searchable before the embedder starts on it (embedding
is the slow part, ~1 hour per 100k chunks on 2 cores; reading and keyword indexing take minutes); meaning search
covers what is embedded so far, and says so (core/search/searcher.py).

Each file is committed to the catalog on its own and each embedding batch is marked done as soon as Chroma has
it, so a run killed at any point resumes without redoing finished work: unchanged files are recognised by size
and mtime (then by content hash), and only chunks not yet embedded are embedded.

This module holds the run's order (scan, the files, forgetting the gone, keywords, scans, embedding) and composes
its parts, each given what it uses (run_state.py: what they share): files.py sends one file where it belongs,
reading.py reads it, storing.py stores a document with its contexts (contexts.py), outcomes.py records a failure
or a skip, copies.py stores a copy, members.py the documents inside a file, mailboxes.py a mailbox as a stream,
ocr_pages.py and scans.py the pages OCR reads, index_sync.py the keyword and dense indexes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from collections.abc import Callable, Sequence

from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.files.scan import FoundFile, ScanProblem, name_is_storable, printable, scan
from desktop_rag.core.indexing.contexts import ContextStep
from desktop_rag.core.indexing.copies import CopyStore
from desktop_rag.core.indexing.files import ASK, FileStep
from desktop_rag.core.indexing.index_sync import IndexSync
from desktop_rag.core.indexing.mailboxes import MailboxIndexing
from desktop_rag.core.indexing.members import MemberIndexing
from desktop_rag.core.indexing.ocr_pages import OcrPages
from desktop_rag.core.indexing.outcomes import FileOutcomes
from desktop_rag.core.indexing.reading import FileReading
from desktop_rag.core.indexing.report import FileFailure, IndexSummary, Progress, ProgressCallback
from desktop_rag.core.indexing.run_share import RunShare
from desktop_rag.core.indexing.run_state import IndexParts, RunState
from desktop_rag.core.indexing.scans import ScanStep
from desktop_rag.core.indexing.storing import DocumentStore
from desktop_rag.core.llm.interrupt import calls_controlled_by
from desktop_rag.core.progress.control import Cancelled, RunControl
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.storage.catalog import DocumentRecord


class Indexer:
    def __init__(self, library: IndexParts, contextualizer: Contextualizer, on_progress: ProgressCallback | None = None,
                 control: RunControl | None = None, embedding_left_to_run: bool = False):
        """`embedding_left_to_run`: this indexer works between two steps of a run in hand, whose embedding takes
        what this one leaves waiting (embedding it here would take the whole run's backlog: minutes)."""
        self.state = state = RunState(library, control or RunControl(), on_progress or (lambda progress: None))
        self.lib, self.control, self.summary = library, state.control, state.summary
        outcomes = FileOutcomes(state)
        reading = FileReading(state, outcomes)
        ocr = OcrPages(state, outcomes)
        store = DocumentStore(state, outcomes, ocr, ContextStep(state, contextualizer))
        copies = CopyStore(state)
        self.sync = IndexSync(state, embedding_left_to_run)
        self._known: dict[str, DocumentRecord] = {}  # the scanned folders' documents by path (_gone)
        members = MemberIndexing(state, outcomes, ocr, store, copies, self.sync)
        self.scans = ScanStep(state, reading, ocr, store, self.sync)
        self.files = FileStep(state, outcomes=outcomes, reading=reading, ocr=ocr, store=store, copies=copies,
                              members=members, mailboxes=MailboxIndexing(state, outcomes, store, members, self.sync),
                              scans=self.scans)

    def sync_indexes(self) -> None:
        """Bring BM25 and Chroma in line with the catalog (IndexSync.sync_indexes): index upkeep's sync."""
        self.sync.sync_indexes()

    def embed_pending(self) -> None:
        self.sync.embed_pending()

    def run(self, roots: Sequence[str | Path]) -> IndexSummary:
        """Index the files under `roots` (folders are remembered as watched folders) and forget what is gone
        from them: the `index` command, and the reconciliation scan when watching starts."""
        folders = [Path(r).expanduser().resolve() for r in roots]
        return self._timed(lambda: self._update(*self._scan(folders, register=True), folders=folders))

    def apply_changes(self, changes: ChangeBatch) -> IndexSummary:
        """What a file watcher saw: moves are applied to the catalog first (nothing is re-read), then every
        touched path is brought in line with the disk: indexed, re-indexed, or forgotten."""

        def work():
            dirty = set(changes.outermost_dirty())
            for source, destination in changes.moves:
                if name_is_storable(source) and name_is_storable(destination):
                    self.summary.moved += self.state.catalog.move_path(source, destination)
                else:  # the catalog cannot hold one of the names: forget the old, report the new (scan)
                    dirty.update((source, destination))
            existing = [Path(p) for p in sorted(dirty) if os.path.exists(p)]
            # A name the catalog cannot hold was never in it: nothing to forget.
            missing = [p for p in sorted(dirty) if not os.path.exists(p) and name_is_storable(p)]
            files, gone = self._scan(existing, register=False)
            for path in missing:
                gone.extend(self.state.catalog.documents_under(path))
                self.state.catalog.files.forget_skipped(path)
            self._update(files, gone)

        return self._timed(work)

    def _timed(self, work: Callable[[], None]) -> IndexSummary:
        started = time.perf_counter()
        written = self.state.catalog.writes()["documents"]
        try:
            with calls_controlled_by(self.control):  # a pause or cancel cuts a model call short
                work()
        except Cancelled:
            self.summary.cancelled = True
            if self.state.share is not None:
                self.state.share.cancelled(self.state.meter.progress()[0])
        finally:
            self.summary.seconds = time.perf_counter() - started
            self.summary.documents_written = self.state.catalog.writes()["documents"] != written
        return self.summary

    def _update(self, files: list[FoundFile], gone: list[DocumentRecord], folders: Sequence[Path] = ()) -> None:
        """`folders`: a run over folders, whose bar counts the work kept there and takes up an interrupted run's
        share (run_share.py); a batch of changes has none."""
        catalog = self.state.catalog
        known = self._known  # the scanned folders' documents, read in one query (_gone)

        def unchanged(found: FoundFile) -> bool:
            record = known.get(str(found.path))
            if record is not None and record.status == "indexed" and (record.size, record.mtime_ns) == (
                    found.size, found.mtime_ns):
                return True  # as catalog.unchanged says, without a query per file
            return catalog.unchanged(str(found.path), found.size, found.mtime_ns)

        # A catch-up of 11,000 unchanged files asked the catalog twice per file on the connection searches share:
        # searches answered in 60-100 ms instead of ~35 while it ran (issue 49). Now once per folder.
        to_read = {f.path for f in files if not unchanged(f)}
        # The files to read smallest first (the unchanged ones, passed over in milliseconds, before them): the most
        # files searchable soonest. In path order a 3 MB book near the top of a folder held the next 500 files back
        # for 4 s, and the first hit of a first run came 26.5 s after the folder was added (issue 37).
        files = sorted(files, key=lambda f: (f.path in to_read, f.size if f.path in to_read else 0))
        planned = [(f.size, f.path.suffix) for f in files if f.path in to_read]
        if folders:
            self.state.share = RunShare(catalog, self.state.meter)
            self.state.share.plan(planned, catalog.count_pending_embeddings(),
                                  sum(f.size for f in files if f.path not in to_read), [str(f) for f in folders])
        else:
            self.state.meter.plan(planned, catalog.count_pending_embeddings())
        self.state.run_files = len(files)
        if to_read:
            self.sync.load_embedder_meanwhile()
        for number, found in enumerate(files, start=1):
            self.state.progress(Progress("parse", number - 1, len(files), str(found.path)))
            self.control.checkpoint(between_documents=True)
            started = time.perf_counter()
            self.files.index_file(found, (number - 1, len(files)),  # a file to read: its record asked afresh
                                  ASK if found.path in to_read else known.get(str(found.path), ASK))
            if found.path in to_read:
                self.state.meter.file_read(found.size, time.perf_counter() - started, found.path.suffix)
            # Files whose contexts are written: a scan's come after OCR (_read_scans), counting on from here.
            self.state.progress(Progress("contextualize", number - self.scans.waiting, len(files)))
            self.sync.keyword_index_catch_up()
            self.sync.measure_embedding()
        # Forgotten after the files are read: one of them may have been recognised as a gone one, moved.
        still_gone = [doc.id for doc in gone if (now := catalog.document(doc.path)) and now.id == doc.id]
        self.summary.removed += catalog.remove_documents(still_gone)
        self._read_orphaned_copies()  # their originals removed or changed: each the document it is now
        self.sync.sync_keywords()  # every file read is keyword-searchable before OCR and embedding start
        self.scans.read_scans()
        self.state.progress(Progress("parse", len(files), len(files)))
        catalog.ocr.forget_old_ocr_texts()  # text of scans no file has had for a month
        self.sync.sync_indexes()
        if self.state.share is not None:
            self.state.share.ended(self.state.meter.progress()[0])

    # -- scan -----------------------------------------------------------------------------------------------

    def _scan(self, roots: list[Path], register: bool) -> tuple[list[FoundFile], list[DocumentRecord]]:
        """The files under `roots`, and the documents the catalog has under them that are no longer there."""
        t0 = time.perf_counter()
        problems: list[ScanProblem] = []
        files: list[FoundFile] = []
        folders = [Path(folder) for folder in self.state.catalog.folders()]
        for found in scan(roots, self.state.settings.ignore_patterns, problems, inside=folders):
            files.append(found)
            if len(files) % 500 == 0:
                self.state.progress(Progress("scan", len(files), None, str(found.path)))
                self.control.checkpoint(between_documents=True)  # a big tree's scan takes seconds: Pause must not wait
        self.state.progress(Progress("scan", len(files), len(files)))
        for problem in problems:
            self.summary.failed.append(FileFailure(printable(problem.path), problem.reason))
        self.state.catalog.files.record_scan_problems([printable(r) for r in roots],
                                              [(printable(p.path), p.reason) for p in problems])
        if register:
            for root in roots:
                if root.is_dir():
                    self.state.catalog.add_folder(str(root))
        seen = {str(f.path) for f in files}
        gone = self._gone(roots, seen, [printable(p.path) for p in problems])
        for root in roots:
            if root.is_dir() and not problems:  # a folder we could not list may still hold them
                self.state.catalog.files.forget_skipped(str(root), keep=seen)
        self.summary.phase_seconds["scan"] += time.perf_counter() - t0
        return files, gone

    def _gone(self, roots: list[Path], seen: set[str], unreadable: list[str]) -> list[DocumentRecord]:
        """The documents under `roots` not seen by the scan; all of them kept in self._known by path meanwhile (the
        run's per-file lookups)."""
        gone = []
        for root in roots:
            if not root.is_dir():
                continue
            for doc in self.state.catalog.documents_under(str(root)):
                if doc.container_id is None:
                    self._known[doc.path] = doc
                # A file in a folder we could not list is not known to be gone: keep it.
                # A document inside a file goes with its file (MemberIndexing), not by a path of its own.
                if (doc.container_id is None and doc.path not in seen
                        and not any(doc.path.startswith(u) for u in unreadable)):
                    gone.append(doc)
        return gone

    def _read_orphaned_copies(self) -> None:
        """Copies whose original was removed or changed in this run (or while nobody watched), read now as the
        documents they are (copies.py)."""
        catalog = self.state.catalog
        orphans = catalog.files.orphaned_copies()
        if not orphans:
            return
        catalog.remove_documents([doc_id for doc_id, _path in orphans])
        files, _gone = self._scan([Path(path) for _doc_id, path in orphans if os.path.exists(path)],
                                  register=False)
        for found in files:
            self.control.checkpoint()
            self.files.index_file(found)
