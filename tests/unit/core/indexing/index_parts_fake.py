"""A small IndexParts (core/indexing/run.py) for the indexing run's unit tests: the real catalog and the real
reading of files, fakes for the dense index, the embedding model and the keyword index (named so), so a test sees
what the run asks of each."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from desktop_rag.config import Settings
from desktop_rag.core.dense.tokens import default_embedding_model_path
from desktop_rag.core.files.reading import DocumentReader
from desktop_rag.storage.catalog import Catalog

DIMENSION = 8


class EmbedderFake:
    """A vector from each text's hash: the same text, the same vector."""

    loaded = True

    def __init__(self):
        self.texts_embedded = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts_embedded += len(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:DIMENSION], dtype=np.uint8) for t in texts]
        vectors = np.array(rows, dtype=np.float32).reshape(len(texts), DIMENSION) + 1.0
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class VectorStoreFake:
    """Chunk id → its windows' vectors."""

    def __init__(self):
        self.windows_of: dict[int, list[np.ndarray]] = {}
        self.deleted: list[int] = []

    def add(self, owners, vectors) -> None:
        for owner in set(owners):
            self.windows_of[int(owner)] = []
        for owner, vector in zip(owners, vectors):
            self.windows_of[int(owner)].append(vector)

    def delete(self, chunk_ids) -> None:
        self.deleted += [int(c) for c in chunk_ids]
        for chunk in chunk_ids:
            self.windows_of.pop(int(chunk), None)

    def windows(self, chunk_ids) -> dict[int, np.ndarray]:
        return {c: np.stack(self.windows_of[c]) for c in chunk_ids if c in self.windows_of}

    def count(self) -> int:
        return sum(len(v) for v in self.windows_of.values())


class KeywordIndexFake:
    """Counts its rebuilds and updates, and the texts it was given."""

    tokenizing_s = 0.0
    merging = False

    def __init__(self):
        self.rebuilds = self.updates = 0
        self.segment_count = 0
        self._held = 0

    def rebuild(self, texts, stopped=lambda: False) -> int:
        self.rebuilds += 1
        self.segment_count = 1
        self._held = sum(1 for _ in texts)
        return self._held

    def update(self, texts, changed, stopped=lambda: False) -> int:
        self.updates += 1
        self.segment_count = 2
        return sum(1 for _ in texts)

    def __len__(self) -> int:
        return self._held


class IndexPartsFake:
    def __init__(self, folder: Path, settings: Settings | None = None):
        self.settings = settings or Settings()
        self.catalog = Catalog(folder / "catalog.sqlite3")
        self.document_reader = DocumentReader(default_embedding_model_path())
        self.token_counter = self.document_reader.counter
        self.embedder = EmbedderFake()
        self.vectors = VectorStoreFake()
        self.keywords = KeywordIndexFake()

    def close(self) -> None:
        self.catalog.close()
