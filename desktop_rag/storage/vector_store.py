"""The dense index: a Chroma collection holding the vectors of each chunk, keyed by the catalog's chunk id.

A chunk whose context + text is longer than the embedder's window has one vector per window (ids "17", "17:1",
"17:2"...; metadata {"chunk": 17} on all), and a query scores the chunk by its best window.

Embedded (PersistentClient in the data folder) by default, or a Chroma server (HttpClient) for users who
outgrow one laptop. Vectors are always given explicitly: Chroma's own embedding function would try to
download a model, and `query_texts=` would too.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from collections.abc import Iterator, Sequence

import numpy as np

from desktop_rag.platform.file_locks import one_at_a_time
from desktop_rag.storage.disk_space import full_disk_said, says_full_disk

COLLECTION = "chunks"
OPEN_LOCK_FILE = "chroma-open.lock"  # beside the store, in the data folder
# Chroma's default HNSW settings measured recall@20 of 0.45–0.51 on random vectors; these gave 0.99–1.00
# (offline-stack.md). ef_search is also the query-time beam width, so it bounds the candidates we can ask for.
HNSW_CONFIG = {"space": "cosine", "ef_search": 400, "ef_construction": 400, "max_neighbors": 32,
               "sync_threshold": 100}
# sync_threshold: Chroma writes its index to disk every this many vectors, and a store opened again first re-inserts
# those written since (ef_construction 400: ~2 ms each). At Chroma's 1,000 the background service's first search
# after a rest opened a 105k-chunk store in 1.3 s (553 pending), 0.34 s with none; writing every 100 measured no
# slower to fill (30,000 vectors in batches of 2,000: 51–57 s vs 56–60 s).
_ADD_BATCH = 2000  # Chroma rejects very large single adds (max batch size); stay well below it
_GET_BATCH = 500  # ids per `$in`: Chroma binds each as an SQL parameter, and fails past SQLite's limit


class VectorStore:
    def __init__(self, path: Path | None = None, server: str = "", collection: str = COLLECTION):
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False)
        # The embedded store's count, kept between this object's own writes (it is the store's only writer: the
        # data folder's): Chroma's count() took 11 ms of a 110k-chunk search's ~50, asked by every query. A server's
        # collection is asked each time (nothing says who else writes it).
        self._count: int | None = None
        self._count_kept = not server
        self._path = None if server else path  # (where a full disk is looked for)
        if server:
            host, _, port = server.rpartition(":")
            self._client = chromadb.HttpClient(host=host or "localhost", port=int(port), settings=settings)
        else:
            assert path is not None
            path.mkdir(parents=True, exist_ok=True)
            with one_at_a_time(path.parent / OPEN_LOCK_FILE), full_disk_said(path):
                self._client = chromadb.PersistentClient(path=str(path), settings=settings)
                self._name = collection
                self._collection = self._open()
                self._sync_often()
            return
        self._name = collection
        self._collection = self._open()

    def close(self) -> None:
        """Let go of Chroma's in-memory index. Chroma keeps one per folder for the whole process, shared by its
        clients, and reads the files only when it makes one: without this, a library opened again in the same
        process (a long-lived `mcp` after another process wrote) searched the vectors of its first opening."""
        close = getattr(self._client, "close", None)  # chromadb >= 1.1
        if close is not None:
            close()

    def ready_within(self, seconds: float) -> bool:
        """Open since it was made (in this process: the vector store's child opens it apart, vector_process.py)."""
        return True

    def _open(self):
        return self._client.get_or_create_collection(
            self._name, configuration={"hnsw": HNSW_CONFIG}, embedding_function=None
        )

    def _sync_often(self) -> None:
        """A store made with Chroma's default sync_threshold takes ours (Chroma keeps the change)."""
        hnsw = (self._collection.configuration or {}).get("hnsw") or {}
        if hnsw.get("sync_threshold", 0) > HNSW_CONFIG["sync_threshold"]:
            self._collection.modify(configuration={"hnsw": {"sync_threshold": HNSW_CONFIG["sync_threshold"]}})

    @contextmanager
    def _count_changing(self) -> Iterator[None]:
        """A write: the kept count is forgotten before it and after it (a count taken by another thread while it
        ran may be the old one)."""
        self._count = None
        try:
            yield
        finally:
            self._count = None

    @says_full_disk(lambda store: store._path)
    def count(self) -> int:
        if self._count is None or not self._count_kept:
            self._count = self._collection.count()
        return self._count

    @says_full_disk(lambda store: store._path)
    def chunk_ids(self) -> set[int]:
        """Every chunk that has a vector (for the doctor's comparison with the catalog), read a page at a time."""
        owners: set[int] = set()
        offset = 0
        while True:
            page = self._collection.get(include=["metadatas"], limit=_ADD_BATCH, offset=offset)
            owners.update(int(meta["chunk"]) for meta in page["metadatas"] if meta is not None)  # None: see query
            if len(page["ids"]) < _ADD_BATCH:
                return owners
            offset += _ADD_BATCH

    @says_full_disk(lambda store: store._path)
    def add(self, owners: Sequence[int], vectors: np.ndarray) -> None:
        """Store vectors; owners[i] is the chunk id of vectors[i], and a chunk's windows come consecutively."""
        ids, window, previous = [], 0, None
        for owner in owners:
            window = window + 1 if owner == previous else 0
            ids.append(str(owner) if window == 0 else f"{owner}:{window}")
            previous = owner
        with self._count_changing():
            for start in range(0, len(ids), _ADD_BATCH):
                end = start + _ADD_BATCH
                # upsert, not add: re-adding an id after a crash between Chroma and the catalog must not fail
                self._collection.upsert(
                    ids=ids[start:end], embeddings=vectors[start:end],
                    metadatas=[{"chunk": int(o)} for o in owners[start:end]],
                )

    @says_full_disk(lambda store: store._path)
    def windows(self, chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored vectors of these chunks, each chunk's windows in order (rows), for the chunks that have some."""
        found: dict[int, list[tuple[int, np.ndarray]]] = {}
        for start in range(0, len(chunk_ids), _GET_BATCH):
            part = [int(i) for i in chunk_ids[start:start + _GET_BATCH]]
            page = self._collection.get(where={"chunk": {"$in": part}}, include=["embeddings", "metadatas"])
            for key, meta, vector in zip(page["ids"], page["metadatas"], page["embeddings"]):
                if meta is None:  # deleted while read: see query
                    continue
                window = int(key.partition(":")[2] or 0)
                found.setdefault(int(meta["chunk"]), []).append((window, np.asarray(vector, dtype=np.float32)))
        return {chunk: np.stack([v for _, v in sorted(rows, key=lambda row: row[0])]) for chunk, rows in found.items()}

    @says_full_disk(lambda store: store._path)
    def delete(self, chunk_ids: Sequence[int]) -> None:
        with self._count_changing():
            for start in range(0, len(chunk_ids), _ADD_BATCH):
                part = [int(i) for i in chunk_ids[start : start + _ADD_BATCH]]
                self._collection.delete(where={"chunk": {"$in": part}})

    @says_full_disk(lambda store: store._path)
    def query(self, vector: np.ndarray, n: int) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity of its best window) best first, at most n chunks."""
        total = self.count()
        if total == 0:
            return []
        # Ask for extra neighbours: several windows of one chunk may come back and collapse into one hit.
        result = self._collection.query(
            query_embeddings=[vector], n_results=min(2 * n, total), include=["distances", "metadatas"]
        )
        best: dict[int, float] = {}
        for meta, distance in zip(result["metadatas"][0], result["distances"][0]):
            # A window deleted by another thread while this query ran comes back from the vector index with no
            # metadata (chroma-core/chroma#2007): its chunk is gone from the catalog too, so it is no hit.
            if meta is None:
                continue
            chunk = int(meta["chunk"])
            if chunk not in best:  # results come nearest first, so the first window seen is the best
                best[chunk] = 1.0 - float(distance)
        return list(best.items())[:n]

    @says_full_disk(lambda store: store._path)
    def reset(self) -> None:
        """Drop every vector (for a rebuild from the catalog)."""
        with self._count_changing():
            self._client.delete_collection(self._name)
            self._collection = self._open()
