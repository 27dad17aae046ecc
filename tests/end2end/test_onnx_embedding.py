"""The int8 path (ONNX Runtime) against the reference (torch, float32): the same model on real text, vectors that
rank alike, and models it cannot convert left to torch."""

import inspect
import json
import shutil

import numpy as np
import pytest
from pydoc_data.topics import topics

from desktop_rag.core.dense import onnx_runtime
from desktop_rag.core.dense.embedding import Embedder
from desktop_rag.core.dense.onnx_runtime import FAILED_FILE, OnnxUnavailable, int8_graph
from desktop_rag.core.dense.tokens import default_embedding_model_path

pytestmark = pytest.mark.slow  # loads the embedding model twice


def real_chunks() -> list[str]:
    """Chunk-sized pieces of real text of three kinds: the Python reference's prose, the standard library's code,
    and Japanese and Chinese prose; of many lengths, so batches are padded."""
    prose = [paragraph for topic in ("if", "while", "try", "class", "with", "lambda", "import", "assert")
             for paragraph in topics[topic].split("\n\n") if len(paragraph) > 200][:16]
    source = inspect.getsource(json.decoder)
    code = [source[start:start + 900] for start in range(0, 900 * 12, 900)]
    from documents import CHINESE, MEETING, TRAVEL

    asian = [MEETING, TRAVEL, CHINESE, MEETING[:60], TRAVEL * 3]
    return prose + code + asian + ["short", "x = 1"]


@pytest.fixture(scope="module")
def reference_and_int8():
    path = default_embedding_model_path()
    reference, int8 = Embedder(path, "float32"), Embedder(path, "int8")
    assert int8.dimension == reference.dimension and int8.max_tokens == reference.max_tokens
    assert int8.effective_precision == "int8" and reference.effective_precision == "float32"
    return reference, int8


def test_int8_vectors_are_the_reference_model_s_on_real_chunks(reference_and_int8):
    reference, int8 = reference_and_int8
    texts = real_chunks()
    cosines = np.sum(reference.embed(texts) * int8.embed(texts), axis=1)
    # Measured on 160 code chunks of the codebase set: mean 0.998, lowest 0.995; recall@5 within a question of
    # float32's on three sets (docs/benchmarks.md "A whole home folder").
    assert cosines.mean() >= 0.99 and cosines.min() >= 0.97, cosines
    query = "how does Python decide which branch of an if statement runs"
    assert float(reference.embed_query(query) @ int8.embed_query(query)) >= 0.99


def test_int8_ranks_passages_as_the_reference_does(reference_and_int8):
    reference, int8 = reference_and_int8
    texts = real_chunks()
    for query in ("exception handling with try and finally", "物流コストの削減", "decoding JSON strings"):
        best_reference = np.argsort(-(reference.embed(texts) @ reference.embed_query(query)))[:3]
        best_int8 = np.argsort(-(int8.embed(texts) @ int8.embed_query(query)))[:3]
        assert best_reference[0] == best_int8[0] and set(best_reference) & set(best_int8[1:]), query


def test_a_model_that_cannot_be_converted_runs_in_torch_and_is_not_tried_again(tmp_path, monkeypatch):
    model = tmp_path / "max-pooled"
    shutil.copytree(default_embedding_model_path(), model)
    (model / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": 384, "pooling_mode_max_tokens": True}))
    embedder = Embedder(model)
    assert embedder.embed(["a heron in the shallows"]).shape == (1, 384)
    assert embedder.effective_precision in ("bfloat16", "float32")
    failed = onnx_runtime.graph_folder(model) / FAILED_FILE
    assert "pooling ['pooling_mode_max_tokens'] is not converted" in failed.read_text()
    monkeypatch.setattr(onnx_runtime, "_make_graph", lambda *a: pytest.fail("tried again"))
    with pytest.raises(OnnxUnavailable, match="pooling"):
        int8_graph(model)
    with pytest.raises(OnnxUnavailable, match="pooling"):  # asked for by name: an error, not a quiet fallback
        Embedder(model, "int8").embed(["a heron"])
