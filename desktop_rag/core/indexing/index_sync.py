"""The indexes of a run, derived from the catalog: the keyword index rebuilt when the catalog changed (now and then
during a long run, so files read are searchable before it ends), then removed vectors dropped and pending chunks
embedded, each batch marked done as soon as the dense index has it. A part of Indexer (run.py).
"""

from __future__ import annotations

import time

import numpy as np

from desktop_rag.core.dense.dense_text import dense_windows
from desktop_rag.core.indexing.report import Progress

_KEYWORD_CATCH_UP_S = 60.0  # at least this long between keyword rebuilds during one run


class IndexSync:
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
