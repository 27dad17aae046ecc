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
    from desktop_rag.core.indexing.run_share import RunShare
    from desktop_rag.core.search.catalog_vectors import CatalogVectors
    from desktop_rag.core.dense.tokens import CountsTokens
    from desktop_rag.storage.keyword_index import KeywordIndex
    from desktop_rag.storage.vector_process import VectorStoreProcess
    from desktop_rag.storage.vector_store import VectorStore


class IndexParts(Protocol):
    """What a run uses of a library: the Library (core/library/library.py) is one, its heavy parts made on first use (a
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


NAME_CARD_PIECES = 20  # a name card's word pieces: its name, folder and kind


@dataclass
class RunState:
    lib: IndexParts
    control: RunControl
    report: ProgressCallback
    summary: IndexSummary = field(default_factory=IndexSummary)
    meter: RunMeter = field(default_factory=RunMeter)
    run_files: int = 0  # files in the run: the contexts counter's total, which scans count on to
    share: RunShare | None = None  # a run over folders: the share it shows, kept for the next run (run_share.py)
    reader_started_again: bool = False  # a reader that did not start was waited for once (outcomes.py)

    @property
    def settings(self) -> Settings:
        return self.lib.settings

    @property
    def catalog(self) -> Catalog:
        return self.lib.catalog

    def name_card_stored(self) -> None:
        """A document known by its name alone (a file that failed, a copy): its one passage counted as any, so
        that the run's passages and the meaning search's count agree (issue 60: 1,079 against 1,080)."""
        self.summary.chunks += 1
        self.meter.stored(1, NAME_CARD_PIECES)

    def progress(self, progress: Progress) -> None:
        """Each report carries the whole run's share done and time left, once the run knows its files."""
        progress.overall, progress.seconds_left = self.meter.progress()
        if self.meter.planned:
            progress.passages_made = self.meter.chunks_waiting_at_start + self.meter.chunks_read
        if self.share is not None:
            self.share.shown(progress.overall)
        self.report(progress)
