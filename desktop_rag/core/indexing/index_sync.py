"""The indexes of a run, derived from the catalog: the keyword index updated when the catalog changed (now and then
during a long run, so files read are searchable before it ends), then removed vectors dropped and pending chunks
embedded, each batch marked done as soon as the dense index has it.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np

from desktop_rag.core.indexing.changes import Changes
from desktop_rag.core.dense.dense_text import dense_windows_counted
from desktop_rag.core.indexing.report import Progress
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.core.llm.interrupt import Interrupted
from desktop_rag.core.progress.pacing import FIRST_EMBEDDED_CHUNKS, KEYWORD_CATCH_UP_S
from desktop_rag.core.indexing.keyword_upkeep import keywords_in_line
from desktop_rag.storage.keyword_index import RebuildStopped

# Before an update is timed: bm25s tokenizes and indexes ~10k chunks in 1.2 s on 2 cores (offline-stack notes).
_KEYWORD_REBUILD_S_PER_CHUNK = 1.2e-4

log = logging.getLogger(__name__)


class IndexSync:
    def __init__(self, state: RunState, embedding_left_to_run: bool = False):
        self.state = state
        self.embedding_left_to_run = embedding_left_to_run  # (see Indexer)
        self.lib = state.lib
        self.summary = state.summary
        self.meter = state.meter
        self.control = state.control
        self._rebuilt_at = time.monotonic()  # a run starts from the index as it is
        self._rebuild_s: float | None = None  # what the last rebuild cost beyond tokenizing (None: not timed yet)

    def keyword_index_catch_up(self) -> None:
        """During a run, files already catalogued become keyword-searchable now and then, not only at the run's
        end (3 of 40 files were, 10 minutes into a run): KEYWORD_CATCH_UP_S after the last time or ten times that
        update's overhead, whichever is longer."""
        since = time.monotonic() - self._rebuilt_at
        if self._rebuild_s is None:  # not updated in this run yet: a cost guessed from what changed
            self._rebuild_s = self.lib.catalog.keyword_changes.count() * _KEYWORD_REBUILD_S_PER_CHUNK
        if since < max(KEYWORD_CATCH_UP_S, 10 * self._rebuild_s) or not self.lib.catalog.keyword_index_dirty:
            return  # the clock first: the catalog is asked only when an update is due, not after every file
        try:
            self._update_keywords()
        except RebuildStopped:
            pass  # paused or cancelled: the run's next checkpoint holds it or ends it; a later catch-up updates

    def _update_keywords(self) -> None:
        """The keyword index in line with the catalog (its counter: the passages it holds; busy meanwhile)."""
        t0 = time.perf_counter()
        self.state.progress(Progress("index", self.summary.keyword_chunks or 0, None))
        self.summary.keyword_chunks = keywords_in_line(self.lib, stopped=lambda: self.control.stopping)
        self._rebuild_s = time.perf_counter() - t0 - self.lib.keywords.tokenizing_s  # the overhead
        self._rebuilt_at = time.monotonic()
        self.state.progress(Progress("index", self.summary.keyword_chunks, self.summary.keyword_chunks,
                                  changes=Changes(documents=True)))
        self.summary.phase_seconds["index"] += self._rebuild_s

    def sync_indexes(self) -> None:
        """Bring BM25 and Chroma in line with the catalog: update the keyword index if anything changed, then
        drop removed vectors and embed pending chunks. Safe to call any time; does nothing when all is in sync."""
        self.sync_keywords()
        self.embed_pending()

    def sync_keywords(self) -> None:
        while self.lib.catalog.keyword_index_dirty:
            self.control.checkpoint()
            try:
                self._update_keywords()
                return
            except RebuildStopped:  # paused (held at the checkpoint, then rebuilt) or cancelled (Cancelled there)
                continue

    def load_embedder_meanwhile(self) -> None:
        """The embedding model loaded on a thread of its own while the run reads its first files, so that
        measure_embedding can take this machine's pace early. A service that starts on an empty library has nothing
        to warm up: the model loaded only when embedding began, and the ETA stood on the guess of 50 chunks/s until
        then — "about 5 min left" of a run that had 13 (issue 49's first hour: ETA error 73% worst). A model that
        cannot load is the embedding step's to report: here it is only logged."""
        embedder = self.lib.embedder
        if self.embedding_left_to_run or getattr(embedder, "loaded", True):
            return

        def load() -> None:
            try:
                embedder.dimension  # noqa: B018 (asking for it loads the model)
            except Exception as exc:  # noqa: BLE001 (the run's embedding meets it again and reports it)
                log.info("the embedding model did not load ahead of the run's embedding: %s", exc)

        threading.Thread(target=load, name="desktop-rag embedding model loading", daemon=True).start()

    def measure_embedding(self) -> None:
        """Once a run has FIRST_EMBEDDED_CHUNKS waiting and the embedding model has loaded (the app loads it at
        start), they are embedded at once: the ETA needs this machine's embedding pace under its present load
        long before the files are all read. A guess of 50 chunks/s, slower by 5× on a busy laptop, made a bar run
        to 67% and fall back (issue 37). The run never waits for the model here: its first load on a new machine
        converts it (~40 s on 2 cores), and files keep being read meanwhile."""
        catalog = self.lib.catalog
        if (self.embedding_left_to_run or self.meter.chunks_embedded or not getattr(self.lib.embedder, "loaded", True)
                or catalog.count_pending_embeddings() < FIRST_EMBEDDED_CHUNKS):
            return
        self._drop_removed_vectors()
        try:
            self._embed(catalog.pending_embeddings(FIRST_EMBEDDED_CHUNKS), catalog.count_pending_embeddings())
        except Interrupted:  # paused or cancelled: held or ended here; the chunks stay pending, measured later
            self.control.checkpoint()

    def embed_pending(self) -> None:
        if self.embedding_left_to_run:
            return
        catalog = self.lib.catalog
        self._drop_removed_vectors()
        self._keep_older_vectors()
        done_before = self.summary.embedded  # the embed bar counts the whole run, not this flush alone
        batch_size = max(self.state.settings.embed_batch_size * 4, 64)
        last = 0
        while True:
            self.control.checkpoint(between_documents=True)
            waiting = catalog.count_pending_embeddings()
            # Forward by id, each chunk once: one whose context a person changed while it was embedded is pending
            # again (mark_embedded), and is embedded by the next sync, after its stale vector is dropped — here it
            # was embedded again and again while edits came, and a run never ended (test_one_writer.py).
            batch = catalog.pending_embeddings(batch_size, after=last)
            if not batch:
                break
            try:
                self._embed(batch, waiting)
            except Interrupted:  # paused (this batch asked again on resume) or cancelled (Cancelled, kept for later)
                self.control.checkpoint(between_documents=True)
                continue
            last = batch[-1][0]
        if self.summary.embedded > done_before:
            self.state.progress(Progress("embed", self.summary.embedded, self.summary.embedded))

    def _drop_removed_vectors(self) -> None:
        # Deletions first, always: SQLite may give a new chunk the id of a removed one, and the removed one's
        # vectors must be gone before the new ones are written under that id.
        deletions = self.lib.catalog.pending_dense_deletions()
        if deletions:
            self.lib.vectors.delete(deletions)
            self.lib.catalog.clear_dense_deletions(deletions)

    def _embed(self, batch: list, waiting: int) -> None:
        """One batch of (chunk id, context, text) into the dense index, marked done as soon as it is there."""
        t0 = time.perf_counter()
        self.state.progress(Progress("embed", self.summary.embedded, self.summary.embedded + waiting))
        owners, texts = [], []
        windows, pieces = dense_windows_counted([(context, text) for _, context, text in batch],
                                                self.lib.token_counter)
        for (chunk_id, _, _), chunk_windows in zip(batch, windows):
            owners += [chunk_id] * len(chunk_windows)
            texts += chunk_windows
        vectors = self.lib.embedder.embed(texts)
        self.lib.vectors.add(owners, vectors)
        self.lib.catalog.mark_embedded([chunk_id for chunk_id, _, _ in batch], owners, vectors,
                                       embedded_with=[context for _, context, _ in batch])
        self.summary.embedded += len(batch)
        seconds = time.perf_counter() - t0
        self.summary.phase_seconds["embed"] += seconds
        self.meter.batch_embedded(len(batch), pieces, seconds)

    def _keep_older_vectors(self) -> None:
        """Chunks embedded before the catalog kept vectors (migration 0011): theirs are copied from the dense index,
        a page at a time (~3 s per 100k chunks), so filtered search scores them too."""
        catalog = self.lib.catalog
        while True:
            self.control.checkpoint()
            missing = catalog.filters.chunks_without_vectors(2000)
            if not missing:
                return
            found = self.lib.vectors.windows(missing)
            owners = [chunk for chunk in missing for _ in range(len(found.get(chunk, ())))]
            if owners:
                catalog.filters.store_vectors(owners, np.concatenate([found[c] for c in missing if c in found]))
            lost = [chunk for chunk in missing if chunk not in found]
            if lost:  # the catalog said embedded, the dense index has nothing: embedded again (doctor's finding too)
                catalog.mark_unembedded(lost)
