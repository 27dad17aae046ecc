"""The embedded Chroma store in a child process, for the app.

Chroma's Rust bindings keep Python's GIL for the whole of an insert (measured: 25–250 ms per call, whatever the
batch size), so in the app's process every vector write froze the window for that long. The child is the only one
to open the store, so the one-writer rule per data folder holds (the parent keeps the data folder's writer lock).
"""

from __future__ import annotations

import threading
from pathlib import Path
from collections.abc import Sequence

import numpy as np

from desktop_rag.child_process import ChildFailed, ChildObject
from desktop_rag.storage.vector_store import COLLECTION, VectorStore


class VectorStoreError(ChildFailed):
    pass


class VectorStoreProcess:
    """VectorStore's methods, run by a child process; calls from several threads are taken one at a time."""

    def __init__(self, path: Path, collection: str = COLLECTION):
        self._child = ChildObject(_open_store, (str(path), collection), name="the vector store",
                                  error=VectorStoreError)

    @property
    def _process(self):  # for tests that kill the child
        return self._child._process

    def _call(self, method: str, *args):
        try:
            return self._child.call(method, *args)
        except VectorStoreError:
            raise
        except ChildFailed as exc:  # the child died or did not start
            raise VectorStoreError(str(exc)) from exc

    def count(self) -> int:
        return self._call("count")

    def chunk_ids(self) -> set[int]:
        return self._call("chunk_ids")

    def add(self, owners: Sequence[int], vectors: np.ndarray) -> None:
        self._call("add", [int(o) for o in owners], np.asarray(vectors, dtype=np.float32))

    def windows(self, chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
        return self._call("windows", [int(i) for i in chunk_ids])

    def delete(self, chunk_ids: Sequence[int]) -> None:
        self._call("delete", [int(i) for i in chunk_ids])

    def query(self, vector: np.ndarray, n: int) -> list[tuple[int, float]]:
        return self._call("query", np.asarray(vector, dtype=np.float32), n)

    def reset(self) -> None:
        self._call("reset")

    @property
    def running(self) -> bool:
        return self._child.running

    def end_if_unused(self, seconds: float) -> bool:
        """The child ended when nothing used it for `seconds` (the background service at rest): the store's index
        in its memory goes back (~180 MB at 35,000 chunks, bench/idle_service.py), and the next call opens the store
        again. The parent keeps the data folder's writer lock meanwhile."""
        return self._child.end_if_unused(seconds)

    def wake(self) -> None:
        """Open the store in its child now, on a thread of its own (a search after a rest embeds its query
        meanwhile: the two children start side by side)."""
        if not self._child.running:
            threading.Thread(target=self._wake, name="desktop-rag vector store wake", daemon=True).start()

    def _wake(self) -> None:
        try:
            self._call("count")
        except VectorStoreError:
            pass  # the search that follows meets the same failure and says it

    def close(self) -> None:
        self._child.close()


def _open_store(path: str, collection: str) -> VectorStore:
    return VectorStore(Path(path), collection=collection)
