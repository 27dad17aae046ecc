"""Do vector writes hold up the app's other threads? Chroma's Rust bindings keep the GIL for a whole insert.

    .venv/bin/python bench/vector_writes_gil.py

A thread that wants to run every 5 ms (as the window's event loop does) ticks while 90 inserts of 64 vectors go
to a Chroma store, once in this process (`VectorStore`, as the CLI does) and once through the child process the
app uses (`VectorStoreProcess`). Prints how often it got to run and how late it was.
"""

import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_rag.storage.vector_process import VectorStoreProcess
from desktop_rag.storage.vector_store import VectorStore

lat = []
stop = False


def ticker():
    last = time.perf_counter()
    while not stop:
        time.sleep(0.005)
        now = time.perf_counter()
        lat.append((now - last - 0.005) * 1000)
        last = now


def run(name, store):
    global stop, lat  # noqa: PLW0603 — a benchmark script's two shared counters
    store.count()  # started / opened outside the timing
    lat, stop = [], False
    t = threading.Thread(target=ticker)
    t.start()
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    for k in range(0, 64 * 90, 64):
        store.add(list(range(k + 1, k + 65)), rng.random((64, 384), dtype=np.float32))
    dt = time.perf_counter() - t0
    stop = True
    t.join()
    a = np.array(lat)
    print(f"{name:<16} {dt:5.1f} s for 90 inserts; the other thread ran {len(a):5d} times, late by p99 "
          f"{np.percentile(a, 99):6.1f} / max {a.max():6.1f} ms, {(a > 50).sum()} times over 50 ms", flush=True)


if __name__ == "__main__":
    for _ in range(2):
        run("in process", VectorStore(Path(tempfile.mkdtemp())))
        child = VectorStoreProcess(Path(tempfile.mkdtemp()))
        run("child process", child)
        child.close()
