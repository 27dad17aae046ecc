"""The embedding model and the reranker in a child process of the service (and the CLI): their own process
never imports torch.

Importing torch and sentence-transformers on a worker thread still froze the window (its C extension's start-up
holds the GIL ~200 ms at a time), and so did the Python side of every model call, shared with the GUI thread
(bench/ui_responsiveness.py). Indexing embeds on one lane and search on another, so a query is not queued behind a
batch of chunks; the child runs both at once, as the in-process embedder did on two threads.
"""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

import numpy as np

from desktop_rag.child_process import ChildObject
from desktop_rag.core.dense.embedding import Embedder
from desktop_rag.core.dense.tokens import model_name
from desktop_rag.core.dense.rerank import Reranker
from desktop_rag.core.llm.interrupt import CallGuard

_INDEXING, _SEARCH = "indexing", "search"


class ModelsInChild:
    """What the child holds: one embedder, and rerankers by folder as searches ask for them."""

    def __init__(self, embedding_model: str, precision: str, batch_size: int, abort_flag=None):
        self.embedder = Embedder(Path(embedding_model), precision, batch_size, abort_flag)
        self.rerankers: dict[str, Reranker] = {}

    def describe(self) -> dict:
        return {"dimension": self.embedder.dimension, "max_tokens": self.embedder.max_tokens,
                "effective_precision": self.embedder.effective_precision}

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.embedder.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embedder.embed_query(text)

    def rerank(self, model_path: str, query: str, passages: list[str]) -> list[float]:
        return self.rerankers.setdefault(model_path, Reranker(model_path)).score(query, passages)


class EmbedderProcess:
    """The Embedder's interface, its model in a child process (started on first use)."""

    def __init__(self, model_path: Path, precision: str = "auto", batch_size: int = 32):
        self.model_path = Path(model_path)
        self.precision, self.batch_size = precision, batch_size
        # A run's pause or cancel cuts its embedding short, as it does a language model's call: a step of 128
        # chunks took 18-24 s under load before a Ctrl-C was heard (issue 51, 9). The caller stops waiting at
        # once; the child, seeing the flag between two of its batches, stops computing within one.
        self._guard = CallGuard(multiprocessing.get_context("spawn").RawValue("b", 0))
        # A failure raises the child's own exception (e.g. FileNotFoundError for a missing model), as in-process.
        self._child = ChildObject(ModelsInChild, (str(self.model_path), precision, batch_size, self._guard.flag),
                                  name="the embedding model", lanes=(_INDEXING, _SEARCH), error=None)
        self._facts: dict | None = None
        self._settled = threading.Event()  # the model loaded (or failed to: the search that uses it says why)
        self._loader: threading.Thread | None = None  # ready_within's: one at a time

    @property
    def name(self) -> str:
        return model_name(self.model_path)

    @property
    def loaded(self) -> bool:
        return self._facts is not None

    @property
    def running(self) -> bool:
        """The model's child is there (it ends after a rest in the service: end_if_unused)."""
        return self._child.running

    def ready_within(self, seconds: float) -> bool:
        """True when a query would not wait for the model to load, waiting at most `seconds` for that; it loads
        meanwhile on a thread (~1.5 s on 2 cores, 3-4 s beside a large library's meaning index opening): a hybrid
        search answers by words meanwhile (core/search/meaning_wait.py)."""
        if self._facts is not None:
            return True
        if not (self._loader and self._loader.is_alive()):
            self._settled.clear()
            self._loader = threading.Thread(target=self._load_quietly, name="desktop-rag embedding model load",
                                            daemon=True)
            self._loader.start()
        return self._settled.wait(seconds)

    def _load_quietly(self) -> None:
        try:
            self._described()
        except Exception:  # noqa: BLE001 — the search that embeds its query meets the same failure and says it
            pass
        finally:
            self._settled.set()

    def _described(self) -> dict:
        if self._facts is None:
            self._facts = self._child.call("describe", lane=_SEARCH)  # loads the model
        return self._facts

    @property
    def dimension(self) -> int:
        return self._described()["dimension"]

    @property
    def max_tokens(self) -> int:
        return self._described()["max_tokens"]

    @property
    def effective_precision(self) -> str:
        return self._described()["effective_precision"]

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._guard.call_in_child(self._child, "embed", list(texts), lane=_INDEXING,
                                         cut_short="embedding was cut short")

    def embed_query(self, text: str) -> np.ndarray:
        return self._child.call("embed_query", text, lane=_SEARCH)

    def end_if_unused(self, seconds: float) -> bool:
        """The model's child ended when nothing used it for `seconds`: its memory goes back (~250 MB with the
        default model), and it loads again on the next use (~1.5 s on 2 cores). The background service's rest."""
        ended = self._child.end_if_unused(seconds)
        if ended:
            self._facts = None  # `loaded` says so: the next use loads it
        return ended

    def reranker(self, model_path: str | Path) -> RerankerInChild:
        return RerankerInChild(self, Path(model_path).expanduser())

    def close(self, interrupt: bool = False) -> None:
        self._child.close(interrupt)


class RerankerInChild:
    """The Reranker's interface, its cross-encoder in the embedding model's child (RerankerUnavailable crosses
    the pipe as itself)."""

    def __init__(self, models: EmbedderProcess, model_path: Path):
        self.model_path = model_path
        self._models = models

    def score(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        return self._models._child.call("rerank", str(self.model_path), query, list(passages), lane=_SEARCH)
