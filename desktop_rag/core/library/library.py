"""The Python API of one data folder (its catalog, indexes and models), built for writing by the service alone
(service/writer_process.py) and the CLI's `--local` path; heavy parts are made on first use (opening is instant)."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, cast
from collections.abc import Mapping, Sequence

from desktop_rag.config import OPTIONS, Settings, what_changing_does
from desktop_rag.core.indexing.changes import Changes
from desktop_rag.core.library.context_edits import ContextEdits
from desktop_rag.core.contexts.choice import make_contextualizer
from desktop_rag.core.library.access import KEYWORD_INDEX_FOLDER, MEANING_INDEX_FOLDER
from desktop_rag.core.library.made_once import made_once
from desktop_rag.core.dense.embedding import Embedder, shared_embedder
from desktop_rag.core.dense.model_process import EmbedderProcess, RerankerInChild
from desktop_rag.core.dense.tokens import embedding_model_path
from desktop_rag.core.files import member_copies
from desktop_rag.core.files.reading import DocumentReader, ReaderProcess
from desktop_rag.core.library.index_upkeep import IndexUpkeep
from desktop_rag.core.indexing.report import IndexSummary, ProgressCallback
from desktop_rag.core.indexing.run import Indexer
from desktop_rag.core.library.reads import LibraryReads
from desktop_rag.core.library.writing import LibraryWriter
from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.library.read_only import CATALOG_FILE, READ_ONLY_SEARCH, CatalogVectors
from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.core.dense.rerank import Reranker
from desktop_rag.core.search.searcher import SearchResult, Searcher
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.platform.private_paths import private_folder
from desktop_rag.storage.catalog import Catalog
from desktop_rag.storage.keyword_index import KeywordIndex
from desktop_rag.storage.vector_process import VectorStoreProcess
from desktop_rag.storage.use_notes import UseNotes
from desktop_rag.storage.vector_store import VectorStore


class Library:
    """The facade the front ends use: operations (each write returns what it changed, core/indexing/changes.py) and the
    reads they need (`reads`, core/library/reads.py); its parts (catalog, indexes, models) are its own business."""

    def __init__(self, data_dir: Path, settings: Settings | None = None, child_processes: bool = False,
                 read_in_child: bool | None = None, read_only: bool = False):
        """`child_processes`: the vector store, the models and the reading of files in child processes, so that work
        holding Python's GIL never holds up the process (storage/vector_process.py, core/dense/model_process.py,
        core/files/reading.py); `read_in_child` alone: a parser crashing on a file fails that file, not the run
        (default: as `child_processes`); `read_only`: a client's library (issue 62), whose catalog is only read."""
        self.data_dir = Path(data_dir)
        self.child_processes = child_processes
        self.read_in_child = child_processes if read_in_child is None else read_in_child
        private_folder(self.data_dir)
        self.settings = settings or Settings.load(self.data_dir)
        self.catalog = Catalog(self.data_dir / CATALOG_FILE, query_only=read_only)
        self._llm_backend: Any = None  # LlamaInChild, LlamaCppBackend or OpenAiServerBackend, on first use
        self._llm_loading = threading.Lock()  # the upgrade and a person's regeneration at once: one model, not two
        # One writer per data folder, and a person's edit that never waits (core/library/writing.py).
        # Checked before the first write, synced, rebuilt (core/library/index_upkeep.py).
        self.indexes = IndexUpkeep(self)
        self.writer = LibraryWriter(self.data_dir, self.catalog, self.settings, self.indexes.check_before_writing,
                                    self.indexes.sync_now)
        self.use_notes = UseNotes()  # searches and openings (the upgrade's order), written by the writer
        self.reads = LibraryReads(lambda: self.reader)  # what the front ends read, on the reader's connection
        # A person's hand on one context. Its contextualizer is looked up at each use (a test may put its own on
        # the library); the settings are the library's own object (the window changes them in place).
        self.edits = ContextEdits(self.catalog, self.writer.claim, self.writer.index_edit,
                                  lambda *args, **kwargs: self.contextualizer(*args, **kwargs),  # noqa: PLW0108
                                  self.settings)

    def close(self, keep_catalog: bool = False) -> None:
        """`keep_catalog`: the app quits while a worker still finishes its step; the process is about to end and
        SQLite's journal keeps every committed unit, so the catalog is not closed under the worker. The models'
        and the reader's children hold nothing to save: ended at once, also when one still reads a page of OCR
        that a paused or cancelled run gave up waiting for (a polite end waited 7.5 s for it under load)."""
        self.end_children(interrupt=True)
        if not keep_catalog:  # (else a worker still writes with the catalog: the notes are dropped)
            self.use_notes.write_waiting(self.catalog)
        # A child's write in hand is waited for (ms): Chroma's files stay whole. In this process: Chroma's view of the
        # files let go, so that a library opened here again reads them afresh.
        if (vectors := self.__dict__.get("vectors")) and (isinstance(vectors, VectorStoreProcess) or not keep_catalog):
            vectors.close()
        self.writer.release(wait=False)  # a worker may still hold the lock as the app quits
        if not keep_catalog:
            self.catalog.close()
            if "reader" in self.__dict__:
                self.reader.close()

    def end_children(self, interrupt: bool) -> None:
        """End the language model's, the embedder's and the reader's children; with `interrupt` at once (they
        hold nothing that is not redone), so a worker waiting on one of them returns (ChildClosed). All at once:
        one after the other, each took 0.3-0.4 s to be reaped at its low priority on a busy machine."""
        parts = [self.__dict__[name] for name in ("embedder", "document_reader")
                 if isinstance(self.__dict__.get(name), (EmbedderProcess, ReaderProcess))]
        endings = [threading.Thread(target=part.close, kwargs={"interrupt": interrupt}) for part in parts]
        endings.append(threading.Thread(target=self._close_llm_backend, kwargs={"interrupt": interrupt}))
        for ending in endings:
            ending.start()
        for ending in endings:
            ending.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- parts, created on first use ------------------------------------------------------------------------

    @made_once
    def embedder(self) -> Embedder | EmbedderProcess:
        path = embedding_model_path(self.settings.embedding_model)
        if self.child_processes:
            return EmbedderProcess(path, self.settings.embedding_precision, self.settings.embed_batch_size)
        return shared_embedder(path, self.settings.embedding_precision, self.settings.embed_batch_size)

    def load_embedding_model(self) -> None:
        """Load it now, the vector store's child opened and the keyword index loaded meanwhile (the window at its
        start; the quick popup as it opens, through the service after a rest): a first search waits for none."""
        self._wake_vectors()
        self.keywords.load_if_readable()
        _ = self.embedder.dimension

    def _wake_vectors(self) -> None:
        if isinstance(vectors := self.__dict__.get("vectors"), VectorStoreProcess):
            vectors.wake()  # after a rest: opened on a thread of its own while the query is embedded, not after

    @property
    def token_counter(self):
        """Word pieces, counted by the reader (in its child where it has one): one tokenizer, not two. Not kept
        apart from the reader: a reader replaced (a setting, a test's fault injected) takes its counter along."""
        return self.document_reader.counter

    @made_once
    def document_reader(self) -> DocumentReader | ReaderProcess:
        """Files into documents and chunks (core/files/reading.py)."""
        if self.read_in_child:
            return ReaderProcess(self.embedder.model_path)
        return DocumentReader(self.embedder.model_path)

    @made_once
    def vectors(self) -> VectorStore | VectorStoreProcess | CatalogVectors:
        if self.settings.chroma_server or not (self.child_processes or self.catalog.read_only):
            return VectorStore(self.data_dir / MEANING_INDEX_FOLDER, server=self.settings.chroma_server)
        if self.catalog.read_only:  # Chroma cannot open a store it may not write: the catalog's copy
            return CatalogVectors(self.reader, lambda: self.embedder.dimension)
        return VectorStoreProcess(self.data_dir / MEANING_INDEX_FOLDER)

    @made_once
    def keywords(self) -> KeywordIndex:
        return KeywordIndex(self.data_dir / KEYWORD_INDEX_FOLDER, lexical_tokens)

    @made_once
    def reranker(self) -> Reranker | RerankerInChild | None:
        if not self.settings.rerank_model:
            return None
        if self.child_processes:
            return cast(EmbedderProcess, self.embedder).reranker(self.settings.rerank_model)  # in its child
        return Reranker(self.settings.rerank_model)

    @made_once
    def reader(self) -> Catalog:
        """A second connection for searching, which cannot write: in WAL mode it sees only committed work, so a
        search running while a file is being re-indexed never sees that file half-replaced."""
        return Catalog(self.data_dir / CATALOG_FILE, query_only=True)

    @made_once
    def searcher(self) -> Searcher:
        return Searcher(self.reader, self.vectors, self.keywords, self.embedder, self.settings, self.reranker)

    def set_settings(self, values: Mapping[str, object]) -> Changes:
        """Settings changed, checked and saved (Settings.change), the parts built from old values dropped (rebuilt
        on next use); the Changes say which changed, what each does to the index (notes), and if folders' OCR did."""
        names = self.settings.change(values, self.data_dir)
        self._drop_parts_built_from(names)
        return Changes(settings=frozenset(names), folders=bool({"ocr", "ocr_skip_folders"} & set(names)),
                       notes=tuple(what_changing_does(names)))

    def _drop_parts_built_from(self, names: Sequence[str]) -> None:
        """Settings were changed in place: drop the parts built from old values; they are rebuilt on next use."""
        rebuilds = set().union(*(OPTIONS[name].rebuilds for name in names if name in OPTIONS))
        if "llm" in rebuilds:  # when and how often the model runs changes nothing in it: those keep it
            self._close_llm_backend(interrupt=True)
        stale = set()
        if "reranker" in rebuilds:
            stale |= {"reranker", "searcher"}
        if "embedder" in rebuilds:
            self.writer.indexes_checked = False  # the next write re-embeds every chunk with the new model
            # The app's reranker is in the model's child; the reader counts the model's word pieces.
            stale |= {"embedder", "reranker", "searcher", "document_reader"}
        for name in stale:
            part = self.__dict__.pop(name, None)
            if isinstance(part, (EmbedderProcess, ReaderProcess)):
                part.close(interrupt=True)  # called from the GUI thread: a batch being embedded is cut short

    # -- operations -----------------------------------------------------------------------------------------

    def index(self, paths: Sequence[str | Path], contexts: str | None = None,
              on_progress: ProgressCallback | None = None, control: RunControl | None = None) -> IndexSummary:
        """With `auto` contexts (the default) every file gets rules contexts now and is searchable in seconds;
        the background upgrade (upgrade_contexts) writes their LLM contexts later."""
        notices: list[str] = []
        contextualizer = self.contextualizer(contexts or self.settings.contexts, on_notice=notices.append)
        with self.writer.writing():
            summary = Indexer(self, contextualizer, on_progress, control).run(paths)
        summary.notices = self.indexes.take_notices() + notices
        return summary

    def apply_changes(self, changes: ChangeBatch, on_progress: ProgressCallback | None = None,
                      control: RunControl | None = None, within_run: bool = False) -> IndexSummary:
        """Bring the catalog and indexes in line with what a file watcher saw (contexts as `index` writes them).
        `within_run`: between two documents of a run in hand (core/runs/lane.py), which embeds what this leaves."""
        with self.writer.writing():
            return Indexer(self, self.contextualizer(self.settings.contexts), on_progress, control,
                           embedding_left_to_run=within_run).apply_changes(changes)

    def contextualizer(self, choice: str, on_notice=None, max_words: int | None = None):
        """`max_words`: a longest context other than the setting's (an agent asking for one)."""
        s = self.settings
        return make_contextualizer(choice, max_words or s.context_max_words, s.context_max_tokens, self.token_counter,
                                   llm_backend_factory=self.llm_backend, on_notice=on_notice,
                                   llm_levels=s.llm_context_levels, llm_quote_chars=s.llm_chunk_quote_chars,
                                   llm_questions=s.llm_questions)

    def _close_llm_backend(self, interrupt: bool = False) -> None:
        backend, self._llm_backend = self._llm_backend, None
        if hasattr(backend, "close"):  # the app's model child ends; a run holding the old backend sees it closed
            backend.close(interrupt=interrupt)

    def release_llm_model(self) -> None:
        """Give the language model's memory back (it loads again on next use): for when it has nothing to do."""
        self._close_llm_backend()

    def has_unused_parts(self, seconds: float) -> bool:
        """A part holding much memory that no call used for `seconds` (a quick check: the release may take a
        moment): the language model, the document reader's child."""
        use = getattr(self._llm_backend, "use", None)  # a server's model is the server's to keep
        reader = self.__dict__.get("document_reader")
        return ((use is not None and use.unused_for(seconds))
                or (isinstance(reader, ReaderProcess) and reader.unused_for(seconds)))

    def release_unused(self, seconds: float, embedder_after: float | None = None) -> None:
        """The memory of the parts nothing used for `seconds` given back, whoever used them last (the upgrade, a
        person's regeneration, an agent, a run; desktop_rag/use_clock.py); each loads again on its next use.
        `embedder_after`: the embedding model (with the reranker) and the vector store's index too, once unused that
        long (the background service's; the app keeps them: a search typed in its window never waits for them)."""
        if isinstance(embedder := self.__dict__.get("embedder"), EmbedderProcess) and embedder_after is not None:
            embedder.end_if_unused(embedder_after)
        if isinstance(vectors := self.__dict__.get("vectors"), VectorStoreProcess) and embedder_after is not None:
            vectors.rest_if_unused(embedder_after)
        backend = self._llm_backend
        use = getattr(backend, "use", None)
        if use is not None:  # let go of, then closed: a caller meanwhile gets a new one, not a closed one
            use.close_if_unused(seconds, self._close_llm_backend if self._llm_backend is backend else backend.close)
        reader = self.__dict__.get("document_reader")
        if isinstance(reader, ReaderProcess):
            reader.end_if_unused(seconds)

    def llm_backend(self):
        """The model, loaded on first use and kept: loading costs seconds, and its KV cache is the point.
        An OpenAI-compatible server when one is set, else the local GGUF model."""
        with self._llm_loading:
            return self._llm_backend or self._load_llm_backend()

    def _load_llm_backend(self):
        if self.settings.llm_server:
            from desktop_rag.core.llm.openai_backend import OpenAiServerBackend

            self._llm_backend = OpenAiServerBackend(self.settings.llm_server, self.settings.llm_server_model)
            return self._llm_backend
        from desktop_rag.core.llm.engines import local_engine
        from desktop_rag.core.llm.llama_process import LlamaInChild
        from desktop_rag.core.llm.models import resolve_model
        from desktop_rag.data_folders import models_cache_dir

        engine = local_engine(self.settings.llm_engine)
        path = resolve_model(self.settings.llm_model, models_cache_dir())
        n_ctx, n_threads = self.settings.llm_context_tokens, self.settings.llm_threads or None
        self._llm_backend = (LlamaInChild(path, n_ctx, n_threads, engine=engine) if self.child_processes
                             else engine(path, n_ctx=n_ctx, n_threads=n_threads))
        return self._llm_backend

    def search(self, query: str, k: int = 10, mode: str = "hybrid", rerank: bool | None = None,
               filters: SearchFilters | None = None, sort: str = "relevance", facets: bool = False,
               words_first: bool = False) -> SearchResult:
        if mode != "bm25":
            self._wake_vectors()
        return self._noted(self.searcher.search(query, k=k, mode=mode, rerank=rerank, filters=filters, sort=sort,
                                                facets=facets, words_first=words_first))

    def similar(self, chunk_id: int, k: int = 10, filters: SearchFilters | None = None) -> SearchResult:
        return self._noted(self.searcher.similar(chunk_id, k=k, filters=filters))

    def _noted(self, result: SearchResult) -> SearchResult:
        """A search's hits are what the person is looking for: the LLM upgrade takes their documents first."""
        if not self.catalog.read_only:
            self.use_notes.hits([hit.chunk_id for hit in result.hits])
        return result if not self.catalog.read_only else replace(result, notices=[*result.notices, READ_ONLY_SEARCH])

    def note_opened(self, chunk_id: int) -> None:
        """A hit was opened: its document is upgraded before the ones only seen in results."""
        if not self.catalog.read_only:
            self.use_notes.opened(chunk_id)

    def mark_upgrade_first(self, folder: str, marked: bool = True) -> Changes:
        """The LLM upgrade takes this folder's documents before all others (or no longer)."""
        self.writer.claim()
        self.catalog.upgrade_order.mark_upgrade_first(str(Path(folder).expanduser().resolve()), marked)
        return Changes(folders=True)

    def openable_path(self, path: str) -> Path:
        """A path the system's viewer can open for a hit: the file itself, or for a document inside a file (an
        archive member, a mail's attachment) a copy taken out of it (core/files/member_copies.py)."""
        place = self.reader.files.member_place(path)
        if place is None:
            return Path(path)
        container, chain, span = place
        return member_copies.extract(container, chain, int(self.settings.max_file_mb * 2**20), span)

    def remove_folder(self, folder: str) -> Changes:
        """Stop indexing a folder and drop what was indexed from it (its files are not touched)."""
        with self.writer.writing():
            removed = self.catalog.remove_folder(folder)
            self.indexes.sync_now()
        return Changes(folders=True, documents=True, notes=(f"{removed} documents removed",))

    def upgrade_contexts(self, on_progress: ProgressCallback | None = None, control: RunControl | None = None,
                         limit: int | None = None):
        """Give documents indexed with rules contexts LLM contexts (see core/indexing/upgrade.py)."""
        from desktop_rag.core.indexing.upgrade import upgrade_contexts

        self.writer.claim()
        return upgrade_contexts(self, on_progress, control, limit)

    def stats(self) -> dict:
        stats = self.reader.stats()  # committed state, and no wait on a running write
        stats["data_dir"] = str(self.data_dir)
        stats["dense_index_vectors"] = self.vectors.count()  # a long chunk has one vector per embedder window
        stats["keyword_index_chunks"] = len(self.keywords) if self.keywords.exists else 0
        places = {"catalog": CATALOG_FILE, "chroma": MEANING_INDEX_FOLDER, "bm25": KEYWORD_INDEX_FOLDER}
        stats["index_bytes"] = {name: _size(self.data_dir / place) for name, place in places.items()}
        return stats


def _size(path: Path) -> int:
    files = [path] if path.is_file() else path.rglob("*") if path.is_dir() else []
    return sum(p.stat().st_size for p in files if p.is_file())
