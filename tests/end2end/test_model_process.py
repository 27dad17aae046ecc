"""The app's embedding model and reranker in a child process: the real model behind a pipe, the same vectors and
the same errors as in-process, and a query answered while a batch is being embedded."""

import os
import signal
import threading
import time

import numpy as np
import pytest

from desktop_rag.core.dense.embedding import Embedder, shared_embedder
from desktop_rag.core.dense.model_process import EmbedderProcess
from desktop_rag.core.dense.tokens import default_embedding_model_path
from desktop_rag.core.dense.rerank import RerankerUnavailable
from desktop_rag.core.llm.interrupt import Interrupted, calls_controlled_by
from desktop_rag.core.progress.control import RunControl
from documents import write_random_cross_encoder

TEXTS = ["The grey heron stands in shallow water waiting for fish.",
         "Quarterly revenue grew by four percent on services.",
         "def parse(data: bytes) -> Document: ..."]


@pytest.fixture
def models():
    process = EmbedderProcess(default_embedding_model_path())
    yield process
    process.close()
    assert not process._child.running  # closed: no child left behind


def test_the_child_embeds_as_the_model_does_in_process(models):
    in_process = shared_embedder()
    assert not models.loaded
    assert models.dimension == in_process.dimension and models.max_tokens == in_process.max_tokens
    assert models.loaded and models.name == in_process.name
    assert np.allclose(models.embed(TEXTS), in_process.embed(TEXTS), atol=1e-5)
    assert np.allclose(models.embed_query("heron"), in_process.embed_query("heron"), atol=1e-5)
    assert models.embed([]).shape == (0, in_process.dimension)


def test_a_query_is_answered_while_a_long_batch_is_embedded_and_a_dead_child_is_replaced(models):
    models.embed_query("warm up")  # the model loaded, so the race below is between the two calls alone
    batch = [f"{TEXTS[i % 3]} Paragraph {i} goes on about herons, revenue and parsers. " * 6 for i in range(600)]
    embedded = []
    indexing = threading.Thread(target=lambda: embedded.append(models.embed(batch)))
    indexing.start()
    try:
        vector = models.embed_query("heron")
        assert indexing.is_alive()  # the query did not wait for the batch: it has its own lane
        assert vector.shape == (models.dimension,)
    finally:
        indexing.join()
    assert embedded[0].shape == (600, models.dimension)

    os.kill(models._child._process.pid, signal.SIGKILL)  # the child dies (a crash, the OS reclaiming memory)
    models._child._process.join(10)
    assert np.allclose(models.embed_query("heron"), vector, atol=1e-5)  # a new child loads the model again


@pytest.mark.parametrize("where", ["child", "in-process"])
def test_a_pause_or_cancel_cuts_a_long_embedding_short_and_the_next_call_is_whole(models, where):
    """Ctrl-C, Pause or Cancel during a run's embedding: heard within a second, not after the step (18-24 s
    under load, issue 51); the child stops between two of its batches, and its next call is answered whole. In
    process (`index --local`, the CLI's own run): the same, through the embedder's own guard."""
    if where == "in-process":
        models = Embedder(default_embedding_model_path())
    before = models.embed(TEXTS)
    batch = [f"{TEXTS[i % 3]} Paragraph {i} goes on about herons, revenue and parsers. " * 6 for i in range(600)]
    control = RunControl()
    outcome: list[object] = []

    def embed() -> None:
        with calls_controlled_by(control):
            try:
                outcome.append(models.embed(batch))
            except Interrupted as exc:
                outcome.append(exc)

    indexing = threading.Thread(target=embed)
    indexing.start()
    time.sleep(1.0)
    assert indexing.is_alive()  # (600 long passages: ~20 s on 2 cores)
    cancelled_at = time.monotonic()
    control.cancel()
    indexing.join(10)
    assert time.monotonic() - cancelled_at < 2.0  # (50 ms idle; the whole batch: 8 s idle, 20 s under load)
    assert isinstance(outcome[0], Interrupted)
    if where == "child":
        assert models._child._owed  # the child's answer to the call given up is owed: read before the next one
    assert np.allclose(models.embed(TEXTS), before, atol=1e-5)


def test_failures_cross_the_pipe_as_the_same_exceptions(tmp_path, models):
    with pytest.raises(RerankerUnavailable, match=r"config.json missing"):
        models.reranker(tmp_path).score("heron", ["a passage"])
    assert models.reranker(tmp_path).score("heron", []) == []
    missing = EmbedderProcess(tmp_path / "no-model")
    try:
        with pytest.raises(FileNotFoundError, match="no sentence-transformers model"):
            missing.embed_query("heron")
    finally:
        missing.close()
    with pytest.raises(RuntimeError, match="closed"):
        missing.embed_query("heron")  # a closed child is not started again behind its owner's back


def test_the_reranker_scores_in_the_child_as_in_process(tmp_path, models):
    from desktop_rag.core.dense.rerank import Reranker

    # Random weights (no package ships a real cross-encoder): the scores mean nothing, but must be the same.
    folder = write_random_cross_encoder(tmp_path / "cross-encoder")
    in_child = models.reranker(folder).score("heron", TEXTS)
    assert len(in_child) == 3 and len(set(in_child)) == 3  # three passages, three different scores
    assert np.allclose(in_child, Reranker(folder).score("heron", TEXTS), atol=1e-4)


def test_ready_within_loads_the_model_on_a_thread_and_a_model_that_fails_says_so_when_used(tmp_path, models):
    """A hybrid search from the window does not wait for the model's load (core/search/meaning_wait.py): asked with
    no time to spare, the model is not ready yet and loads meanwhile; a missing model is 'ready' at once, so that
    the search that uses it says why."""
    assert not models.ready_within(0)  # starting a child and loading a model take seconds
    assert models.ready_within(120) and models.loaded and models.ready_within(0)
    assert models.end_if_unused(0) and not models.loaded  # the service's rest
    assert not models.ready_within(0)
    assert models.ready_within(120) and models.loaded

    missing = EmbedderProcess(tmp_path / "no-such-model")
    try:
        assert missing.ready_within(120) and not missing.loaded
        with pytest.raises(Exception, match="no-such-model"):
            missing.embed_query("heron")
    finally:
        missing.close()
