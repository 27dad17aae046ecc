"""The Python API that the CLI and the app share: one data folder, its catalog, its indexes, its models.

Heavy parts (Chroma, the embedding model, the reranker) are created on first use, so opening a library and
reading its catalog is instant.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Sequence

from desktop_rag.config import OPTIONS, Settings, models_cache_dir
from desktop_rag.core.contexts.choice import make_contextualizer
from desktop_rag.core.contexts.rules import RULES_VERSION, NoContextualizer
from desktop_rag.core.dense.embedding import Embedder, shared_embedder
from desktop_rag.core.dense.model_process import EmbedderProcess, RerankerInChild
from desktop_rag.core.dense.tokens import (ENGLISH_EMBEDDING_MODEL, embedding_model_id, embedding_model_path,
                                           token_counter)
from desktop_rag.core.files import member_copies
from desktop_rag.core.files.reading import DocumentReader, ReaderProcess
from desktop_rag.core.indexing import Indexer, IndexSummary, ProgressCallback
from desktop_rag.core.runs.control import Cancelled, RunControl
from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.core.search.rerank import Reranker
from desktop_rag.core.search.searcher import SearchResult, Searcher
from desktop_rag.core.text.lexical import TOKENIZER_VERSION, lexical_tokens
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.documents import ContextResult, index_text
from desktop_rag.errors import CatalogDamaged, DataFolderUnusable
from desktop_rag.storage import writer_lock
from desktop_rag.storage.use_notes import UseNotes
from desktop_rag.storage.catalog import Catalog, damaged_message
from desktop_rag.storage.keyword_index import KeywordIndex
from desktop_rag.storage.vector_process import VectorStoreProcess
from desktop_rag.storage.vector_store import VectorStore

log = logging.getLogger(__name__)

CATALOG_FILE = "catalog.sqlite3"


class Library:
    def __init__(self, data_dir: Path, settings: Settings | None = None, child_processes: bool = False,
                 read_in_child: bool | None = None):
        """`child_processes`: the app's choice — the vector store, the models and the reading of files run in
        child processes, so that work holding Python's GIL never holds up its window (storage/vector_process.py,
        core/dense/model_process.py, core/files/reading.py). `read_in_child` alone: the CLI's, so that a parser
        crashing on a file fails that file instead of ending the run (default: as `child_processes`)."""
        self.data_dir = Path(data_dir)
        self.child_processes = child_processes
        self.read_in_child = child_processes if read_in_child is None else read_in_child
        if self.data_dir.exists() and not self.data_dir.is_dir():
            raise DataFolderUnusable(f"the data folder {self.data_dir} is a file: choose a folder (--data-dir, or "
                                     "File → Data folder in the app)")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.settings = settings or Settings.load(self.data_dir)
        self.catalog = Catalog(self.data_dir / CATALOG_FILE)
        self._lock = threading.Lock()  # held by the one write in progress (a run, a sync, an edit's index update)
        # A person's edit does not wait for a run in progress: it is stored at once and marked here, and the run
        # indexes it before it lets go of the library. The guard makes "mark it" and "let go" one step each, so an
        # edit is never marked just after the run last looked.
        self._handover = threading.Lock()
        self._edits_unindexed = False
        self._llm_backend = None
        self._writer_claim = None
        self._indexes_checked = False  # whether the indexes were built with this library's model and tokenizer
        self.index_notices: list[str] = []  # why the next run rebuilds an index (_rebuild_stale_indexes)
        self.use_notes = UseNotes(self.data_dir / CATALOG_FILE)  # searches and openings: the upgrade's order

    def close(self, keep_catalog: bool = False) -> None:
        """`keep_catalog`: the app quits while a worker still finishes its step; the process is about to end and
        SQLite's journal keeps every committed unit, so the catalog is not closed under the worker."""
        self.end_children(interrupt=keep_catalog)
        self.use_notes.close(wait=not keep_catalog)
        if isinstance(self.__dict__.get("vectors"), VectorStoreProcess):
            self.vectors.close()  # its write in hand is waited for (milliseconds): Chroma's files stay whole
        if self._writer_claim is not None:
            writer_lock.release(self._writer_claim)
            self._writer_claim = None
        if not keep_catalog:
            self.catalog.close()
            if "reader" in self.__dict__:
                self.reader.close()

    def end_children(self, interrupt: bool) -> None:
        """End the language model's, the embedder's and the reader's children; with `interrupt` at once (they
        hold nothing that is not redone), so a worker waiting on one of them returns (ChildClosed)."""
        self._close_llm_backend(interrupt=interrupt)
        for part in ("embedder", "document_reader"):
            if isinstance(self.__dict__.get(part), (EmbedderProcess, ReaderProcess)):
                self.__dict__[part].close(interrupt=interrupt)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextmanager
    def _writing(self, wait: bool = True):
        """One writer at a time: per library (threads), and per data folder (processes; see writer_lock). Yields
        True once the library is held. With `wait=False` (a person's edit), while another write holds it: yields
        False at once, and that write indexes the edit before it lets go."""
        self._claim_writer()
        if wait:
            self._lock.acquire()
        else:
            with self._handover:
                held = self._lock.acquire(blocking=False)
                if not held:
                    self._edits_unindexed = True
            if not held:
                yield False
                return
        try:
            if not self._indexes_checked:
                self._check_before_writing()
            yield True
        finally:
            self._let_go()

    def _let_go(self) -> None:
        """Release the library, first indexing the edits a person made while it was held."""
        while True:
            with self._handover:
                if not self._edits_unindexed:
                    self._lock.release()
                    return
                self._edits_unindexed = False
            try:
                self._sync()
            except Exception:  # the app quits, a child failed: the edits stay pending for the next sync
                log.warning("the edits made during a run were left for the next sync", exc_info=True)

    def _index_edit(self) -> bool:
        """Bring the indexes in line with an edit stored in the catalog: now, and True, when nothing holds the
        library; else False, and the write in progress does it before it lets go (a person's edit never waits
        for a run of minutes)."""
        with self._writing(wait=False) as held:
            if held:
                self._sync()
        return held

    def _check_before_writing(self) -> None:
        """Once per library, before its first write: a damaged catalog is not written to (a person decides what
        becomes of it), and indexes built otherwise, or lost, are rebuilt from the catalog by the next sync."""
        from desktop_rag.core.doctor import lost_indexes

        damage = self.catalog.damage()
        if damage:
            raise CatalogDamaged(damaged_message(self.catalog.path, damage))
        self._rebuild_stale_indexes()
        self.index_notices += lost_indexes(self)

    def _rebuild_stale_indexes(self) -> None:
        """An index built by another embedding model or keyword tokenizer than this library's is rebuilt from the
        catalog: vectors of two models in one store, or tokens of two tokenizers in one index, would rank at
        random. Only the indexes are redone (chunks and contexts are kept); the next sync does the work, and its
        summary says why."""
        self._indexes_checked = True
        catalog = self.catalog
        has_chunks = catalog.chunk_count() > 0
        model = embedding_model_id(self.settings.embedding_model)
        built = catalog.index_built_with("embedding_model")
        if built is None and has_chunks:
            # Libraries made before the record: the packaged English model, unless one was chosen in Settings.
            built = model if self.settings.embedding_model.strip() else ENGLISH_EMBEDDING_MODEL
        if built is not None and built != model:
            catalog.mark_all_unembedded()  # first: a kill before the reset leaves work to redo, never a lie
            self.vectors.reset()
            catalog.clear_dense_deletions(catalog.pending_dense_deletions())
            self.index_notices.append(f"the embedding model changed ({built} → {model}): every chunk is embedded "
                                      "again; search by meaning is incomplete until then")
        catalog.set_index_built_with("embedding_model", model)
        if catalog.index_built_with("rules_contexts") != RULES_VERSION:
            from desktop_rag.core.contexts.upgrade import refresh_rules_contexts

            if has_chunks and refresh_rules_contexts(self):
                self.index_notices.append("rules contexts were rewritten with this version's rules")
            catalog.set_index_built_with("rules_contexts", RULES_VERSION)
        tokenizer = str(TOKENIZER_VERSION)
        if catalog.index_built_with("keyword_tokenizer") != tokenizer:
            if has_chunks:
                catalog.mark_keyword_index_dirty()
                self.index_notices.append("keyword search learnt new scripts: its index is built again")
            catalog.set_index_built_with("keyword_tokenizer", tokenizer)

    def claim_writer(self) -> None:
        """Become this data folder's one writer now, not at the first write (`serve`: others are told so)."""
        self._claim_writer()

    def release_writer(self) -> None:
        """Let another process write to this data folder again (a short-lived writer, `mcp`, between its runs).
        What this process holds of the dense index may then grow stale: it should be reopened before use."""
        with self._lock:
            if self._writer_claim is not None:
                writer_lock.release(self._writer_claim)
                self._writer_claim = None

    def _claim_writer(self) -> None:
        if self.catalog.read_only:
            raise DataFolderUnusable(f"the data folder {self.data_dir} cannot be written: searching works, but "
                                     "indexing and edits need a data folder you may write")
        if self._writer_claim is None and not self.settings.chroma_server:  # a server serialises writes itself
            self._writer_claim = writer_lock.acquire(self.data_dir)

    # -- parts, created on first use ------------------------------------------------------------------------

    @cached_property
    def embedder(self) -> Embedder | EmbedderProcess:
        path = embedding_model_path(self.settings.embedding_model)
        if self.child_processes:
            return EmbedderProcess(path, self.settings.embedding_precision, self.settings.embed_batch_size)
        return shared_embedder(path, self.settings.embedding_precision, self.settings.embed_batch_size)

    @cached_property
    def token_counter(self):
        return token_counter(self.embedder.model_path)

    @cached_property
    def document_reader(self) -> DocumentReader | ReaderProcess:
        """Files into documents and chunks (core/files/reading.py)."""
        if self.read_in_child:
            return ReaderProcess(self.embedder.model_path)
        return DocumentReader(self.embedder.model_path)

    @cached_property
    def vectors(self) -> VectorStore | VectorStoreProcess:
        if self.child_processes and not self.settings.chroma_server:
            return VectorStoreProcess(self.data_dir / "chroma")
        return VectorStore(self.data_dir / "chroma", server=self.settings.chroma_server)

    @cached_property
    def keywords(self) -> KeywordIndex:
        return KeywordIndex(self.data_dir / "bm25", lexical_tokens)

    @cached_property
    def reranker(self) -> Reranker | RerankerInChild | None:
        if not self.settings.rerank_model:
            return None
        if self.child_processes:
            return self.embedder.reranker(self.settings.rerank_model)
        return Reranker(self.settings.rerank_model)

    @cached_property
    def reader(self) -> Catalog:
        """A second connection for searching: in WAL mode it sees only committed work, so a search running
        while a file is being re-indexed never sees that file half-replaced."""
        return Catalog(self.data_dir / CATALOG_FILE)

    @cached_property
    def searcher(self) -> Searcher:
        return Searcher(self.reader, self.vectors, self.keywords, self.embedder, self.settings, self.reranker)

    def settings_changed(self, names: Sequence[str]) -> None:
        """Settings were changed in place: drop the parts built from old values; they are rebuilt on next use."""
        rebuilds = set().union(*(OPTIONS[name].rebuilds for name in names if name in OPTIONS))
        if "llm" in rebuilds:  # when and how often the model runs changes nothing in it: those keep it
            self._close_llm_backend(interrupt=True)
        stale = set()
        if "reranker" in rebuilds:
            stale |= {"reranker", "searcher"}
        if "embedder" in rebuilds:
            self._indexes_checked = False  # the next write re-embeds every chunk with the new model
            # The app's reranker is in the model's child; the reader counts the model's word pieces.
            stale |= {"embedder", "token_counter", "reranker", "searcher", "document_reader"}
        for name in stale:
            part = self.__dict__.pop(name, None)
            if isinstance(part, (EmbedderProcess, ReaderProcess)):
                part.close(interrupt=True)  # called from the GUI thread: a batch being embedded is cut short

    # -- operations -----------------------------------------------------------------------------------------

    def index(self, paths: Sequence[Path], contexts: str | None = None, on_progress: ProgressCallback | None = None,
              control: RunControl | None = None) -> IndexSummary:
        notices: list[str] = []
        contextualizer = self.contextualizer(contexts or self.settings.contexts, on_notice=notices.append)
        with self._writing():
            summary = Indexer(self, contextualizer, on_progress, control).run(paths)
        notices += contextualizer.run_notices()
        summary.notices = self._take_index_notices() + notices
        return summary

    def apply_changes(self, changes: ChangeBatch, on_progress: ProgressCallback | None = None,
                      control: RunControl | None = None) -> IndexSummary:
        """Bring the catalog and indexes in line with what a file watcher saw. With `auto` contexts, changed
        files get rules contexts (searchable in seconds); the background upgrade writes their LLM contexts."""
        with self._writing():
            return Indexer(self, self.contextualizer(self.watch_contexts), on_progress, control).apply_changes(changes)

    @property
    def watch_contexts(self) -> str:
        """The contexts written while following changes: with `auto`, rules now and the LLM's in the upgrade."""
        return "rules" if self.settings.contexts == "auto" else self.settings.contexts

    def contextualizer(self, choice: str, on_notice=None, max_words: int | None = None):
        """`max_words`: a longest context other than the setting's (an agent asking for one)."""
        s = self.settings
        return make_contextualizer(
            choice, max_words or s.context_max_words, s.context_max_tokens, self.token_counter,
            llm_backend_factory=self.llm_backend, on_notice=on_notice, llm_levels=s.llm_context_levels,
            budget_seconds=(s.llm_document_budget_seconds, s.llm_run_budget_seconds),
            seconds_per_chunk=self.catalog.llm_seconds_per_chunk() if choice == "auto" else None,
            llm_quote_chars=s.llm_chunk_quote_chars,
        )

    def _close_llm_backend(self, interrupt: bool = False) -> None:
        backend, self._llm_backend = self._llm_backend, None
        if hasattr(backend, "close"):  # the app's model child ends; a run holding the old backend sees it closed
            backend.close(interrupt=interrupt)

    def release_llm_model(self) -> None:
        """Give the language model's memory back (it loads again on next use): for when it has nothing to do."""
        self._close_llm_backend()

    def llm_backend(self):
        """The model, loaded on first use and kept: loading costs seconds, and its KV cache is the point.
        An OpenAI-compatible server when one is set, else the local GGUF model."""
        if self._llm_backend is None:
            if self.settings.llm_server:
                from desktop_rag.core.llm.openai_backend import OpenAiServerBackend

                self._llm_backend = OpenAiServerBackend(self.settings.llm_server, self.settings.llm_server_model)
                return self._llm_backend
            from desktop_rag.core.llm.llama_backend import LlamaCppBackend
            from desktop_rag.core.llm.llama_process import LlamaInChild
            from desktop_rag.core.llm.models import resolve_model

            path = resolve_model(self.settings.llm_model, models_cache_dir())
            backend = LlamaInChild if self.child_processes else LlamaCppBackend
            self._llm_backend = backend(
                path, n_ctx=self.settings.llm_context_tokens, n_threads=self.settings.llm_threads or None
            )
        return self._llm_backend

    def search(self, query: str, k: int = 10, mode: str = "hybrid", rerank: bool | None = None,
               filters: SearchFilters | None = None, sort: str = "relevance", facets: bool = False) -> SearchResult:
        return self._noted(self.searcher.search(query, k=k, mode=mode, rerank=rerank, filters=filters, sort=sort,
                                                facets=facets))

    def similar(self, chunk_id: int, k: int = 10, filters: SearchFilters | None = None) -> SearchResult:
        return self._noted(self.searcher.similar(chunk_id, k=k, filters=filters))

    def _noted(self, result: SearchResult) -> SearchResult:
        """A search's hits are what the person is looking for: the LLM upgrade takes their documents first."""
        if not self.catalog.read_only:
            self.use_notes.hits([hit.chunk_id for hit in result.hits])
        return result

    def note_opened(self, chunk_id: int) -> None:
        """A hit was opened: its document is upgraded before the ones only seen in results."""
        if not self.catalog.read_only:
            self.use_notes.opened(chunk_id)

    def mark_upgrade_first(self, folder: str, marked: bool = True) -> None:
        """The LLM upgrade takes this folder's documents before all others (or no longer)."""
        self.catalog.mark_upgrade_first(str(Path(folder).expanduser().resolve()), marked)

    def openable_path(self, path: str) -> Path:
        """A path the system's viewer can open for a hit: the file itself, or for a document inside a file (an
        archive member, a mail's attachment) a copy taken out of it (core/files/member_copies.py)."""
        place = self.reader.member_place(path)
        if place is None:
            return Path(path)
        return member_copies.extract(*place, max_bytes=int(self.settings.max_file_mb * 2**20))

    def rebuild_keyword_index(self) -> int:
        count = self.keywords.rebuild(
            (chunk_id, index_text(context, text)) for chunk_id, context, text in self.catalog.iter_index_texts()
        )
        self.catalog.mark_keyword_index_clean()
        return count

    def reindex(self, on_progress: ProgressCallback | None = None, control: RunControl | None = None) -> IndexSummary:
        """Rebuild both indexes from the catalog alone (no file is read, no context regenerated)."""
        with self._writing():
            self.catalog.mark_all_unembedded()  # first: a kill before the reset leaves work to redo, never a lie
            self.vectors.reset()
            self.catalog.clear_dense_deletions(self.catalog.pending_dense_deletions())
            self.catalog.mark_keyword_index_dirty()
            return self._sync(on_progress, control)

    def set_context(self, chunk_id: int, text: str) -> bool:
        """A person's context for a chunk: it replaces the generated one and survives re-indexing while the chunk's
        text is unchanged. True: searchable as this returns; False: an indexing run is in progress, and the edit
        is searchable when it ends (stored now either way)."""
        self._claim_writer()  # before the catalog changes: the index update must not fail after it
        self.catalog.set_manual_context(chunk_id, " ".join(text.split()))
        return self._index_edit()

    def revert_context(self, chunk_id: int) -> bool:
        """Back to the generated context; False if the chunk had no hand edit."""
        self._claim_writer()
        reverted = self.catalog.revert_context(chunk_id)
        if reverted:
            self._index_edit()
        return reverted

    def regenerate_context(self, chunk_id: int, on_notice=None) -> ContextResult:
        """A new LLM context for one chunk, replacing what it has, a hand edit included (a person asked for it).
        Sampled when the chunk already has a generated or hand-written context, so the answer differs. When
        the model is unavailable or its answer is rejected, nothing changes and the rules result is returned."""
        from desktop_rag.core.contexts.upgrade import stored_document

        self._claim_writer()
        current = self.catalog.context(chunk_id)
        if current is None:
            raise KeyError(f"no chunk with id {chunk_id}")
        stored = stored_document(self.catalog, self.catalog.chunk_document_id(chunk_id))
        position = [row["id"] for row in stored.rows].index(chunk_id)
        sampled = current["source"] in ("llm", "manual")
        contextualizer = self.contextualizer("llm", on_notice=on_notice)
        result = contextualizer.contextualize(
            stored.document, stored.chunks, only=[position], temperature=0.7 if sampled else 0.0,
            seed=time.time_ns() % 2**31,
        )[position]
        if result.source == "llm":
            self.catalog.replace_context(chunk_id, result)
            self._index_edit()
        return result

    def approve_context(self, chunk_id: int) -> None:
        """A person checked the context and keeps it as it is."""
        self.catalog.approve_context(chunk_id)

    def remove_folder(self, folder: str) -> int:
        """Stop indexing a folder and drop what was indexed from it (its files are not touched)."""
        with self._writing():
            removed = self.catalog.remove_folder(folder)
            self._sync()
        return removed

    def upgrade_contexts(self, on_progress: ProgressCallback | None = None, control: RunControl | None = None,
                         limit: int | None = None):
        """Give documents indexed with rules contexts LLM contexts (see core/contexts/upgrade.py)."""
        from desktop_rag.core.contexts.upgrade import upgrade_contexts

        self._claim_writer()
        return upgrade_contexts(self, on_progress, control, limit)

    def sync(self, on_progress: ProgressCallback | None = None, control: RunControl | None = None) -> IndexSummary:
        with self._writing():
            return self._sync(on_progress, control)

    def sync_dense(self, control: RunControl | None = None) -> None:
        """Embed what waits (the keyword index is left for the next sync): cheap, for work that goes on."""
        with self._writing():
            try:
                Indexer(self, NoContextualizer(), None, control).embed_pending()
            except Cancelled:
                pass  # the rest stays pending

    def _sync(self, on_progress: ProgressCallback | None = None, control: RunControl | None = None) -> IndexSummary:
        indexer = Indexer(self, NoContextualizer(), on_progress, control)  # writes no context: only syncs indexes
        started = time.perf_counter()
        try:
            indexer.sync_indexes()
        except Cancelled:  # what was embedded is marked; the rest stays pending for the next sync
            indexer.summary.cancelled = True
        indexer.summary.seconds = time.perf_counter() - started
        indexer.summary.notices[:0] = self._take_index_notices()
        return indexer.summary

    def _take_index_notices(self) -> list[str]:
        notices, self.index_notices = self.index_notices, []
        return notices

    def stats(self) -> dict:
        stats = self.reader.stats()  # committed state, and no wait on a running write
        stats["data_dir"] = str(self.data_dir)
        stats["dense_index_vectors"] = self.vectors.count()  # a long chunk has one vector per embedder window
        stats["keyword_index_chunks"] = len(self.keywords) if self.keywords.exists else 0
        stats["index_bytes"] = {
            "catalog": _size(self.data_dir / CATALOG_FILE),
            "chroma": _size(self.data_dir / "chroma"),
            "bm25": _size(self.data_dir / "bm25"),
        }
        return stats


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return 0
