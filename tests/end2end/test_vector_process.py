"""The app's vector store in a child process: real Chroma behind a pipe, same answers as in-process."""

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.storage.vector_process import VectorStoreError, VectorStoreProcess
from desktop_rag.storage.vector_store import VectorStore


def unit(rows):
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_the_child_answers_like_the_store_itself_and_a_dead_child_is_replaced(tmp_path):
    vectors = unit(np.random.default_rng(0).normal(size=(40, 16)))
    store = VectorStoreProcess(tmp_path / "chroma")
    try:
        store.add(list(range(1, 41)), vectors)
        assert store.count() == 40
        assert store.query(vectors[6], 3)[0][0] == 7  # a vector is nearest to itself
        store.delete([7])
        assert store.count() == 39 and 7 not in [c for c, _ in store.query(vectors[6], 5)]

        os.kill(store._process.pid, signal.SIGKILL)  # the child dies (a crash, the OS reclaiming memory)
        store._process.join(10)
        assert store.count() == 39  # a new child opens the store from disk: nothing written is lost
        with pytest.raises(VectorStoreError, match=r"(?i)dimension"):
            store.add([99], unit(np.ones((1, 8))))  # Chroma's own complaint, readable; the child keeps serving
        assert store.query(vectors[0], 1)[0][0] == 1
    finally:
        store.close()
    assert store._process is None  # closed: no child left behind
    # What the child wrote is the store on disk, as the CLI opens it in its own process.
    assert VectorStore(tmp_path / "chroma").query(vectors[10], 1)[0][0] == 11


def test_a_store_that_cannot_be_opened_says_why(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    store = VectorStoreProcess(blocked / "chroma")
    with pytest.raises(VectorStoreError, match="cannot open the vector store"):
        store.count()
    store.close()


def files_open_in(store: VectorStoreProcess, folder) -> set[str]:
    """What the store's child holds open of the store's folder (its index's files, its database)."""
    import psutil

    return {Path(f.path).name for f in psutil.Process(store._process.pid).open_files()
            if Path(f.path).is_relative_to(folder)}


def test_the_service_at_rest_lets_the_store_s_index_go_and_a_search_opens_it_again(docs, data_dir):
    """The background service's rest (Library.release_unused with embedder_after): the vector store's child closes
    the store and the embedding model's child ends; the next search opens both again (side by side) and finds what
    it found before."""
    from desktop_rag.config import Settings
    from desktop_rag.core.library.library import Library

    (docs / "kayak.md").write_text("# Kayak\n\nThe sea kayak's rudder cable snapped near the skerries.\n")
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    with Library(data_dir, Settings(contexts="rules"), child_processes=True) as library:
        library.index([docs])
        before = [hit.path for hit in library.search("rudder cable", k=2, mode="dense").hits]
        assert not library.vectors.resting and library.embedder.running
        assert "chroma.sqlite3" in files_open_in(library.vectors, data_dir / "chroma")
        library.release_unused(0, embedder_after=0)
        assert library.vectors.resting and not library.embedder.running
        assert library.vectors.running and not files_open_in(library.vectors, data_dir / "chroma")  # let go of
        assert not library.vectors.rest_if_unused(0)  # already resting: the child is not asked again
        after = [hit.path for hit in library.search("rudder cable", k=2, mode="dense").hits]
        assert after == before and after[0] == str(docs / "kayak.md")
        assert not library.vectors.resting and library.embedder.running


def test_the_quick_popup_s_preparation_opens_both_children_again_before_any_search(docs, data_dir):
    """`prepare_search` (the popup asks as it opens) on the service's library at rest: the vector store's child and
    the embedding model's start, on a thread, so the person's first search finds them ready."""
    from desktop_rag.config import Settings
    from desktop_rag.core.library.library import Library
    from desktop_rag.service.runs import RunRegistry
    from desktop_rag.service.door import request_handler
    from desktop_rag.service.tools import LibraryTools
    from waiting import eventually

    (docs / "kayak.md").write_text("# Kayak\n\nThe sea kayak's rudder cable snapped near the skerries.\n")
    with Library(data_dir, Settings(contexts="rules"), child_processes=True) as library:
        library.index([docs])
        library.search("rudder cable", k=1)
        library.release_unused(0, embedder_after=0)
        assert library.vectors.resting and not library.embedder.running
        handle = request_handler(LibraryTools(library, RunRegistry(), lambda paths, contexts: "", "a test"))
        assert handle("prepare_search", {}) == {"served_by": "a test"}
        eventually(lambda: not library.vectors.resting and library.embedder.running, timeout=120)


def test_a_store_made_with_chroma_s_default_sync_threshold_takes_ours(tmp_path):
    """Chroma re-inserts the vectors written since its last sync each time a store opens (the service's first search
    after a rest): a store made by an older version (Chroma's 1,000) is given 100, and keeps it."""
    import chromadb
    from chromadb.config import Settings

    from desktop_rag.storage.vector_store import COLLECTION, HNSW_CONFIG

    client = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=Settings(anonymized_telemetry=False))
    client.get_or_create_collection(COLLECTION, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None)
    client.close()
    for _ in range(2):
        store = VectorStore(tmp_path / "chroma")
        assert store._collection.configuration["hnsw"]["sync_threshold"] == HNSW_CONFIG["sync_threshold"] == 100
        store.close()


def test_a_hybrid_search_while_the_store_opens_answers_by_words_and_meaning_joins_in_when_it_has(docs, data_dir):
    """At a million passages the store opens in 7-17 s (core/search/meaning_wait.py): a hybrid search from the
    window or the quick search answers by words meanwhile and says so; by meaning alone, or an agent's, waits. The store is kept opening here by holding Chroma's open
    lock, which the child's opening takes (storage/vector_store.py)."""
    import threading

    from desktop_rag.config import Settings
    from desktop_rag.core.library.library import Library
    from desktop_rag.core.search.meaning_wait import OPENING
    from desktop_rag.platform.file_locks import one_at_a_time
    from desktop_rag.storage.vector_store import OPEN_LOCK_FILE

    (docs / "kayak.md").write_text("# Kayak\n\nThe sea kayak's rudder cable snapped near the skerries.\n")
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    with Library(data_dir, Settings(contexts="rules"), child_processes=True) as library:
        library.index([docs])
        opened = library.search("rudder cable", k=2)
        assert not opened.meaning_pending and opened.hits[0].scores.dense is not None
        library.vectors.rest_if_unused(0)
        answers: dict = {}

        def search(mode: str, words_first: bool = False) -> threading.Thread:
            asked = threading.Thread(target=lambda: answers.update(
                {(mode, words_first): library.search("rudder cable", 2, mode, words_first=words_first)}))
            asked.start()
            return asked

        with one_at_a_time(data_dir / OPEN_LOCK_FILE):
            search("hybrid", words_first=True).join(30)  # (a timeout: a search that waited would hang the test)
            meanwhile = answers["hybrid", True]
            assert meanwhile.meaning_pending and OPENING in meanwhile.notices
            assert meanwhile.hits[0].path == str(docs / "kayak.md") and meanwhile.hits[0].scores.dense is None
            waiting = [search("dense"), search("hybrid")]  # by meaning alone, or by both as an agent asks: they wait
            waiting[0].join(2.0)
            assert all(asked.is_alive() for asked in waiting)
        for asked in waiting:
            asked.join(60)
        assert answers["dense", False].hits[0].path == str(docs / "kayak.md")
        assert answers["hybrid", False].hits[0].scores.dense is not None
        after = library.search("rudder cable", k=2, words_first=True)
        assert not after.meaning_pending and after.hits[0].scores.dense is not None
