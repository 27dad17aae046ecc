"""The embedded Chroma store in a child process, for the app.

Chroma's Rust bindings keep Python's GIL for the whole of an insert (measured: 25–250 ms per call, whatever the
batch size), so in the app's process every vector write froze the window for that long. Here a write blocks only
the worker thread waiting on the pipe, which waits without the GIL. The child is the only one to open the store,
so the one-writer rule per data folder holds (the parent process keeps the data folder's writer lock).
"""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from desktop_rag.storage.vector_store import COLLECTION, VectorStore

_START_TIMEOUT_S = 120  # importing chromadb in a fresh process takes seconds on a slow laptop


class VectorStoreError(RuntimeError):
    pass


class VectorStoreProcess:
    """VectorStore's methods, run by a child process; calls from several threads are taken one at a time."""

    def __init__(self, path: Path, collection: str = COLLECTION):
        self._path, self._collection = Path(path), collection
        self._lock = threading.Lock()
        self._process = None
        self._conn = None

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")  # no fork: the parent has Qt and worker threads
        self._conn, child_end = context.Pipe()
        self._process = context.Process(target=_serve, args=(child_end, str(self._path), self._collection),
                                        name="desktop-rag vectors", daemon=True)
        self._process.start()
        child_end.close()
        if not self._conn.poll(_START_TIMEOUT_S):
            self._stop()
            raise VectorStoreError("the vector store did not start")
        try:
            self._answer()  # the child's "ready", or why it could not open the store
        except VectorStoreError:
            self._stop()  # the child has returned; its pipe is closed too
            raise

    def _answer(self):
        try:
            ok, value = self._conn.recv()
        except (EOFError, OSError) as exc:
            self._stop()
            raise VectorStoreError("the vector store process stopped unexpectedly") from exc
        if not ok:
            raise VectorStoreError(value)
        return value

    def _call(self, method: str, *args):
        with self._lock:
            if self._process is None or not self._process.is_alive():
                self._start()  # first use, or the child died: a new one opens the store from disk
            try:
                self._conn.send((method, args))
            except (BrokenPipeError, OSError) as exc:
                self._stop()
                raise VectorStoreError("the vector store process stopped unexpectedly") from exc
            return self._answer()

    def count(self) -> int:
        return self._call("count")

    def add(self, owners: Sequence[int], vectors: np.ndarray) -> None:
        self._call("add", [int(o) for o in owners], np.asarray(vectors, dtype=np.float32))

    def delete(self, chunk_ids: Sequence[int]) -> None:
        self._call("delete", [int(i) for i in chunk_ids])

    def query(self, vector: np.ndarray, n: int) -> list[tuple[int, float]]:
        return self._call("query", np.asarray(vector, dtype=np.float32), n)

    def reset(self) -> None:
        self._call("reset")

    def close(self) -> None:
        with self._lock:
            if self._process is not None and self._process.is_alive():
                try:
                    self._conn.send(("close", ()))
                    self._conn.poll(10)
                except OSError:
                    pass
            self._stop()

    def _stop(self) -> None:
        if self._process is not None:
            self._process.join(10)
            if self._process.is_alive():
                self._process.kill()
        if self._conn is not None:
            self._conn.close()
        self._process = self._conn = None


def _serve(conn, path: str, collection: str) -> None:
    try:
        store = VectorStore(Path(path), collection=collection)
    except Exception as exc:  # reported to the parent as a readable line
        conn.send((False, f"cannot open the vector store: {exc.__class__.__name__}: {exc}"))
        return
    conn.send((True, "ready"))
    while True:
        try:
            method, args = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if method == "close":
            conn.send((True, None))
            return
        try:
            conn.send((True, getattr(store, method)(*args)))
        except Exception as exc:  # the parent raises it; the child keeps serving
            conn.send((False, f"{exc.__class__.__name__}: {exc}"))
