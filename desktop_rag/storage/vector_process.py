"""The embedded Chroma store in a child process of the service.

Chroma's Rust bindings keep Python's GIL for the whole of an insert (measured: 25–250 ms per call, whatever the
batch size), so in the app's process every vector write froze the window for that long. The child is the only one
to open the store, so the one-writer rule per data folder holds (the parent keeps the data folder's writer lock).
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path
from collections.abc import Sequence

import numpy as np

from desktop_rag.child_process import ChildFailed, ChildObject
from desktop_rag.platform.processes import give_back_freed_memory
from desktop_rag.storage.store_holder import end_an_orphan_holding_the_store, hold_the_store
from desktop_rag.storage.vector_store import COLLECTION, VectorStore


class VectorStoreError(ChildFailed):
    pass


class VectorStoreProcess:
    """VectorStore's methods, run by a child process; calls from several threads are taken one at a time."""

    def __init__(self, path: Path, collection: str = COLLECTION):
        self._child = ChildObject(_StoreInChild, (str(path), collection), name="the vector store",
                                  error=VectorStoreError,
                                  before_start=lambda: end_an_orphan_holding_the_store(Path(path).parent))
        self.resting = False  # the child let go of the store's index (rest_if_unused); the next call opens it
        # Set once the child has answered a call since it started or rested: its store is open (or it said why
        # not), and a query waits for no opening (ready_within).
        self._answered = threading.Event()

    @property
    def _process(self):  # for tests that kill the child
        return self._child._process

    def _call(self, method: str, *args):
        resting = self.resting = method == "rest"  # said before the call: a call waiting meanwhile opens the store
        if resting:
            self._answered.clear()
        try:
            answer = self._child.call(method, *args)
        except VectorStoreError:
            self._answered.set()  # the store says why it cannot be used: a search says it too, without waiting
            raise
        except ChildFailed as exc:  # the child died or did not start
            self._answered.set()
            raise VectorStoreError(str(exc)) from exc
        if not resting:
            self._answered.set()
        return answer

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

    def rest_if_unused(self, seconds: float) -> bool:
        """The store closed in its child when nothing used it for `seconds` (the background service at rest): its
        index goes back (311 → ~105 MB at 105k chunks, bench/idle_service.py) and the next call opens it again. The
        child stays, with Chroma imported: importing it was 0.7 s of the 1.1 s a first search after a rest waited
        for the store. The parent keeps the data folder's writer lock meanwhile."""
        if self.resting or not self._child.running or not self._child.use.unused_for(seconds):
            return False
        self._call("rest")  # a call arriving meanwhile waits on the lane, then opens the store again
        return True

    def ready_within(self, seconds: float) -> bool:
        """True when a query would not wait for the store to open (it is open, or says why it cannot be), waiting
        at most `seconds` for that; the store is opened meanwhile. At a million passages it opens in 7 s (17 s
        with nothing of it in the system's file cache, bench/million_library.py): a hybrid search answers by
        words meanwhile (core/search/meaning_wait.py)."""
        if self.resting or not self._child.running:
            self._answered.clear()
            self.wake()
        return self._answered.wait(seconds)

    def wake(self) -> None:
        """Open the store in its child now, on a thread of its own (a search after a rest embeds its query
        meanwhile: the two children start side by side)."""
        if self.resting or not self._child.running:
            threading.Thread(target=self._wake, name="desktop-rag vector store wake", daemon=True).start()

    def _wake(self) -> None:
        try:
            self._call("count")
        except VectorStoreError:
            pass  # the search that follows meets the same failure and says it

    def close(self) -> None:
        self._child.close()


class _StoreInChild:
    """The store as its child holds it: opened as the child starts (a store that cannot be opened says so at once),
    let go of at rest, opened again by the next call."""

    def __init__(self, path: str, collection: str):
        self._path, self._collection = Path(path), collection
        self._store: VectorStore | None = None
        # Held for the child's life (the system lets go of it as the child ends): a vector store left by a
        # killed service is waited for or ended before this one opens the store.
        self._held = hold_the_store(self._path.parent)
        self._open()

    def _open(self) -> VectorStore:
        if self._store is None:
            self._store = VectorStore(self._path, collection=self._collection)
        return self._store

    def rest(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
            gc.collect()
            give_back_freed_memory()

    def __getattr__(self, name: str):
        """VectorStore's methods (count, add, query…), of the store opened again if it rested."""
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._open(), name)
