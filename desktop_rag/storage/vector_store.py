"""The dense index: a Chroma collection holding one vector per chunk, keyed by the catalog's chunk id.

Embedded (PersistentClient in the data folder) by default, or a Chroma server (HttpClient) for users who
outgrow one laptop. Vectors are always given explicitly: Chroma's own embedding function would try to
download a model, and `query_texts=` would too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

COLLECTION = "chunks"
# Chroma's default HNSW settings measured recall@20 of 0.45–0.51 on random vectors; these gave 0.99–1.00
# (offline-stack.md). ef_search is also the query-time beam width, so it bounds the candidates we can ask for.
HNSW_CONFIG = {"space": "cosine", "ef_search": 400, "ef_construction": 400, "max_neighbors": 32}
_ADD_BATCH = 2000  # Chroma rejects very large single adds (max batch size); stay well below it


class VectorStore:
    def __init__(self, path: Path | None = None, server: str = "", collection: str = COLLECTION):
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False)
        if server:
            host, _, port = server.rpartition(":")
            self._client = chromadb.HttpClient(host=host or "localhost", port=int(port), settings=settings)
        else:
            assert path is not None
            path.mkdir(parents=True, exist_ok=True)
            self._client = chromadb.PersistentClient(path=str(path), settings=settings)
        self._name = collection
        self._collection = self._open()

    def _open(self):
        return self._client.get_or_create_collection(
            self._name, configuration={"hnsw": HNSW_CONFIG}, embedding_function=None
        )

    def count(self) -> int:
        return self._collection.count()

    def add(self, chunk_ids: Sequence[int], vectors: np.ndarray) -> None:
        for start in range(0, len(chunk_ids), _ADD_BATCH):
            ids = [str(i) for i in chunk_ids[start : start + _ADD_BATCH]]
            # upsert, not add: re-adding an id after a crash between Chroma and the catalog must not fail
            self._collection.upsert(ids=ids, embeddings=vectors[start : start + _ADD_BATCH])

    def delete(self, chunk_ids: Sequence[int]) -> None:
        for start in range(0, len(chunk_ids), _ADD_BATCH):
            self._collection.delete(ids=[str(i) for i in chunk_ids[start : start + _ADD_BATCH]])

    def query(self, vector: np.ndarray, n: int) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity) best first."""
        total = self.count()
        if total == 0:
            return []
        result = self._collection.query(
            query_embeddings=[vector], n_results=min(n, total), include=["distances"]
        )
        return [(int(i), 1.0 - float(d)) for i, d in zip(result["ids"][0], result["distances"][0])]

    def ids(self) -> set[int]:
        found: set[int] = set()
        offset = 0
        while True:
            page = self._collection.get(include=[], limit=10_000, offset=offset)["ids"]
            found.update(int(i) for i in page)
            if len(page) < 10_000:
                return found
            offset += len(page)

    def reset(self) -> None:
        """Drop every vector (for a rebuild from the catalog)."""
        self._client.delete_collection(self._name)
        self._collection = self._open()
