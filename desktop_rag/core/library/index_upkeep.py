"""The indexes' upkeep: both are derived from the catalog and rebuilt from it. Before its first write a library
checks that its catalog is whole and that its indexes were built with this library's embedding model, keyword
tokenizer and rules (one built otherwise is rebuilt by the next sync, which says why); a sync embeds what waits and
rebuilds the keyword index when the catalog changed; a re-index rebuilds both from the catalog alone.
"""

from __future__ import annotations

import json
import time
from typing import Protocol

from desktop_rag.core.contexts.rules import RULES_VERSION, NoContextualizer
from desktop_rag.core.files.parsers import revisions
from desktop_rag.core.dense.tokens import ENGLISH_EMBEDDING_MODEL, embedding_model_id
from desktop_rag.core.indexing.keyword_upkeep import merge_due, merge_keywords
from desktop_rag.core.indexing.report import IndexSummary, ProgressCallback
from desktop_rag.core.indexing.run import Indexer, IndexParts
from desktop_rag.core.library.writing import LibraryWriter
from desktop_rag.core.progress.control import Cancelled, RunControl
from desktop_rag.core.text.lexical import TOKENIZER_VERSION
from desktop_rag.errors import CatalogDamaged
from desktop_rag.storage.catalog_connection import damaged_message
from desktop_rag.storage.keyword_index import RebuildStopped

# Bump when the keyword index's files change so that one built before must be built again (1: segments, issue 64).
KEYWORD_SEGMENTS = "1"


class UpkeptLibrary(IndexParts, Protocol):
    """What the upkeep uses of a library (core/library/library.py): a run's parts, its writer, its contextualizers."""

    @property
    def writer(self) -> LibraryWriter: ...

    def contextualizer(self, choice: str, on_notice=None, max_words: int | None = None): ...


class IndexUpkeep:
    """Library's indexes (`library.indexes`): checked before the first write, synced, rebuilt. Like Anki's managers
    of a collection, it is given the library, whose parts (catalog, indexes, models, writer) it works with."""

    def __init__(self, library: UpkeptLibrary):
        self.library = library
        self.notices: list[str] = []  # why the next run rebuilds an index (rebuild_stale)

    def check_before_writing(self) -> None:
        """Once per library, before its first write: a damaged catalog is not written to (a person decides what
        becomes of it), the catalog's families follow the table of formats, and indexes built otherwise, or lost,
        are rebuilt from the catalog by the next sync."""
        from desktop_rag.core.library.doctor import lost_indexes

        from desktop_rag.core.files.parsers.formats import DEFAULT_FAMILY, parser_families

        damage = self.library.catalog.damage()
        if damage:
            raise CatalogDamaged(damaged_message(self.library.catalog.path, damage))
        self.library.catalog.filters.follow_families(parser_families(), DEFAULT_FAMILY)  # the formats' word
        self.rebuild_stale()
        self.notices += lost_indexes(self.library)

    def rebuild_stale(self) -> None:
        """An index built by another embedding model or keyword tokenizer than this library's is rebuilt from the
        catalog: vectors of two models in one store, or tokens of two tokenizers in one index, would rank at
        random. Only the indexes are redone (chunks and contexts are kept); the next sync does the work, and its
        summary says why."""
        library = self.library
        library.writer.indexes_checked = True
        catalog = library.catalog
        has_chunks = catalog.chunk_count() > 0
        model = embedding_model_id(library.settings.embedding_model)
        built = catalog.index_built_with("embedding_model")
        if built is None and has_chunks:
            # Libraries made before the record: the packaged English model, unless one was chosen in Settings.
            built = model if library.settings.embedding_model.strip() else ENGLISH_EMBEDDING_MODEL
        if built is not None and built != model:
            catalog.mark_all_unembedded()  # first: a kill before the reset leaves work to redo, never a lie
            library.vectors.reset()
            catalog.clear_dense_deletions(catalog.pending_dense_deletions())
            self.notices.append(f"the embedding model changed ({built} → {model}): every chunk is embedded "
                                      "again; search by meaning is incomplete until then")
        catalog.set_index_built_with("embedding_model", model)
        if catalog.index_built_with("rules_contexts") != RULES_VERSION:
            from desktop_rag.core.indexing.upgrade import refresh_rules_contexts

            if has_chunks and refresh_rules_contexts(library):
                self.notices.append("rules contexts were rewritten with this version's rules")
            catalog.set_index_built_with("rules_contexts", RULES_VERSION)
        self._read_again_by_newer_readers(has_chunks)
        tokenizer = str(TOKENIZER_VERSION)
        if catalog.index_built_with("keyword_tokenizer") != tokenizer:
            if has_chunks:
                catalog.mark_keyword_index_dirty()
                self.notices.append("keyword search learnt new scripts: its index is built again")
            catalog.set_index_built_with("keyword_tokenizer", tokenizer)
        if catalog.index_built_with("keyword_segments") != KEYWORD_SEGMENTS:
            if has_chunks and not catalog.keyword_changes.rebuild_asked:
                catalog.mark_keyword_index_dirty()
                self.notices.append("the keyword index is built again in parts, so that a saved file is found by "
                                    "its words at once in a library of any size")
            catalog.set_index_built_with("keyword_segments", KEYWORD_SEGMENTS)

    def _read_again_by_newer_readers(self, has_chunks: bool) -> None:
        """Files read by a reader this version has improved are marked for the next run to read (revisions.py)."""
        catalog = self.library.catalog
        recorded = catalog.index_built_with("readers")
        newer = revisions.outgrown(json.loads(recorded) if recorded else {})
        if newer and has_chunks:
            marked = {name: catalog.files.mark_read_again(suffixes) for name, suffixes in newer.items()}
            if kinds := [name for name, count in marked.items() if count]:
                self.notices.append(f"this version reads more of {_listed(kinds)} files: "
                                    f"{sum(marked.values()):,} are read again")
        catalog.set_index_built_with("readers", json.dumps(revisions.revisions(), sort_keys=True))

    def reindex(self, on_progress: ProgressCallback | None = None, control: RunControl | None = None) -> IndexSummary:
        """Rebuild both indexes from the catalog alone (no file is read, no context regenerated)."""
        library, catalog = self.library, self.library.catalog
        with library.writer.writing():
            catalog.mark_all_unembedded()  # first: a kill before the reset leaves work to redo, never a lie
            library.vectors.reset()
            catalog.clear_dense_deletions(catalog.pending_dense_deletions())
            catalog.mark_keyword_index_dirty()
            return self.sync_now(on_progress, control)

    def sync(self, on_progress: ProgressCallback | None = None, control: RunControl | None = None) -> IndexSummary:
        with self.library.writer.writing():
            return self.sync_now(on_progress, control)

    def merge_keywords(self, control: RunControl) -> bool:
        """At rest, when it is worth it (keyword_upkeep.merge_due): the keyword index's segments merged; the
        control's checkpoints (between blocks of ~0.5 s) apply what a person does meanwhile. False: not due."""
        if self.library.catalog.read_only or not merge_due(self.library):
            return False  # (asked first: the writer is taken only for a merge, which may start writing here)
        with self.library.writer.writing():
            if not merge_due(self.library):
                return False

            def stopped() -> bool:
                try:
                    control.checkpoint(between_documents=True)
                except Cancelled:
                    return True
                return False

            try:
                merge_keywords(self.library, stopped)
            except RebuildStopped:
                pass  # cancelled (a stop): the index is as it was, merged another time
            return True

    def sync_dense(self, control: RunControl | None = None) -> None:
        """Embed what waits (the keyword index is left for the next sync): cheap, for work that goes on."""
        with self.library.writer.writing():
            try:
                Indexer(self.library, NoContextualizer(), None, control).embed_pending()
            except Cancelled:
                pass  # the rest stays pending

    def sync_now(self, on_progress: ProgressCallback | None = None, control: RunControl | None = None) -> IndexSummary:
        """`sync` for a caller that holds the writer already."""
        indexer = Indexer(self.library, NoContextualizer(), on_progress, control)  # no context written: indexes only
        started = time.perf_counter()
        try:
            indexer.sync_indexes()
        except Cancelled:  # what was embedded is marked; the rest stays pending for the next sync
            indexer.summary.cancelled = True
        indexer.summary.seconds = time.perf_counter() - started
        indexer.summary.notices[:0] = self.take_notices()
        return indexer.summary

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
