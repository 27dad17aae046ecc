"""What the parts of one indexing run share (run.py composes them): the library's parts, the settings, the summary
they count into, the meter that estimates time left, Pause/Cancel, and where progress goes. Each part gets it
through its constructor and keeps its own state apart (the OCR setup in ocr_pages.py, the scans waiting in
scans.py, the keyword rebuild's clock in index_sync.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from desktop_rag.config import Settings
from desktop_rag.core.indexing.report import IndexSummary, Progress, ProgressCallback
from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.progress.run_meter import RunMeter
from desktop_rag.storage.catalog import Catalog

if TYPE_CHECKING:
    from desktop_rag.core.dense.embedding import Embedder
    from desktop_rag.core.dense.model_process import EmbedderProcess
    from desktop_rag.core.files.reading import DocumentReader, ReaderProcess
    from desktop_rag.core.search.catalog_vectors import CatalogVectors
    from desktop_rag.core.dense.tokens import CountsTokens
    from desktop_rag.storage.keyword_index import KeywordIndex
    from desktop_rag.storage.vector_process import VectorStoreProcess
    from desktop_rag.storage.vector_store import VectorStore


class IndexParts(Protocol):
    """What a run uses of a library: the Library (core/library.py) is one, its heavy parts made on first use (a
    run with nothing new never loads the embedding model); the unit tests give a smaller one
    (tests/unit/core/indexing/index_parts_fake.py)."""

    # Read-only: the library makes its heavy parts on first use (made_once); each in this process or in a child.
    @property
    def settings(self) -> Settings: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def document_reader(self) -> DocumentReader | ReaderProcess: ...  # a file into a document and chunks
    @property
    def vectors(self) -> VectorStore | VectorStoreProcess | CatalogVectors: ...  # dense (read-only: the catalog)
    @property
    def embedder(self) -> Embedder | EmbedderProcess: ...
    @property
    def keywords(self) -> KeywordIndex: ...  # rebuilt from the catalog's texts; how long that spent tokenizing
    @property
    def token_counter(self) -> CountsTokens: ...


@dataclass
class RunState:
    lib: IndexParts
    control: RunControl
    report: ProgressCallback
    summary: IndexSummary = field(default_factory=IndexSummary)
    meter: RunMeter = field(default_factory=RunMeter)
    run_files: int = 0  # files in the run: the contexts counter's total, which scans count on to

    @property
    def settings(self) -> Settings:
        return self.lib.settings

    @property
    def catalog(self) -> Catalog:
        return self.lib.catalog

    def progress(self, progress: Progress) -> None:
        """Each report carries the whole run's share done and time left, once the run knows its files."""
        progress.overall, progress.seconds_left = self.meter.progress()
        self.report(progress)
