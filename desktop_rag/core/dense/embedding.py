"""Dense embeddings from a local sentence-transformers folder (never from a hub), run by ONNX Runtime in int8
where the model converts (core/dense/onnx_runtime.py: faster on every CPU measured), else by torch.

`import sentence_transformers` costs 5–9 s, so nothing imports it until the first text is embedded.
"""

from __future__ import annotations

import gc
import logging
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import numpy as np

from desktop_rag.core.dense.tokens import default_embedding_model_path, model_name
from desktop_rag.core.llm.interrupt import AbortFlag, CallGuard

log = logging.getLogger(__name__)


def bfloat16_is_fast() -> bool:
    """bfloat16 is ~3× faster than float32 where the CPU has native bf16 (AVX512-BF16 or AMX) and much slower
    where it is emulated, so it is used only where the instructions exist."""
    import torch

    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(torch.cpu, name, lambda: False)() for name in probes)


class Embedder:
    """`precision` (config.EMBEDDING_PRECISIONS): "auto" is int8 through ONNX Runtime, else torch in bfloat16 where
    the CPU has it natively, else float32."""

    def __init__(self, model_path: Path | None = None, precision: str = "auto", batch_size: int = 32,
                 abort_flag=None):
        """`abort_flag`: the child's, shared with EmbedderProcess, which raises it to cut a call of embed() short
        between two of its batches (Interrupted; core/llm/interrupt.py). None: in this process, embed() is cut short
        so by the pause or cancel of the run that calls it (calls_controlled_by): Ctrl-C to `index --local`."""
        self.model_path = Path(model_path) if model_path else default_embedding_model_path()
        self.precision = precision
        self.batch_size = batch_size
        self._guard: CallGuard | None = None
        if abort_flag is None:
            self._guard = CallGuard(abort_flag := AbortFlag())
        self._abort_flag = abort_flag
        self._model: Any = None  # TorchEncoder, or the int8 ONNX encoder: loaded at the first use
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return model_name(self.model_path)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _load(self):
        with self._lock:
            if self._model is None:
                if not (self.model_path / "modules.json").exists() and not (self.model_path / "config.json").exists():
                    raise FileNotFoundError(f"no sentence-transformers model in {self.model_path}")
                if self.precision in ("auto", "int8"):
                    self._model = self._load_int8()
                if self._model is None:
                    use_bf16 = self.precision == "bfloat16" or (self.precision == "auto" and bfloat16_is_fast())
                    with _without_full_collections():
                        self._model = TorchEncoder(self.model_path, use_bf16)
                    self.effective_precision = "bfloat16" if use_bf16 else "float32"
        return self._model

    def _load_int8(self):
        """The model's int8 graph in ONNX Runtime, or None (torch then) when it cannot be made: said in the log,
        and an error only when int8 was asked for by name."""
        from desktop_rag.work_apart import made_apart
        from desktop_rag.core.dense.onnx_runtime import OnnxEncoder, OnnxUnavailable, existing_int8_graph, int8_graph

        try:
            # Made once per machine, apart: making it imports torch and peaks at gigabytes that would stay here.
            graph = existing_int8_graph(self.model_path) or made_apart(int8_graph, self.model_path)
            encoder = OnnxEncoder(self.model_path, graph)
        except OnnxUnavailable as exc:
            if self.precision == "int8":
                raise
            log.info("%s runs in torch: %s", self.name, exc)
            return None
        self.effective_precision = "int8"
        return encoder

    @property
    def dimension(self) -> int:
        return self._load().dimension

    @property
    def max_tokens(self) -> int:
        return self._load().max_tokens

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text (cosine similarity is then a dot product)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self._guard is None:  # (in the child: its parent guards the call)
            return self._passages(texts)
        with self._guard.call():
            return self._passages(texts)

    def _passages(self, texts: list[str]) -> np.ndarray:
        flag = self._abort_flag
        return self._load().encode(texts, "passage", self.batch_size, stopped=lambda: bool(flag.value))

    def ready_within(self, seconds: float) -> bool:
        """In this process the model loads within the call that first needs it (the service's is apart:
        model_process.py)."""
        return True

    def embed_query(self, text: str) -> np.ndarray:
        return self._encode([text], "query")[0]

    def _encode(self, texts: list[str], role: str) -> np.ndarray:
        """E5 models were trained with "query: " and "passage: " before their inputs (and measure worse without);
        a model whose folder names such prompts gets them, others the text as it is."""
        return self._load().encode(texts, role, self.batch_size)


class TorchEncoder:
    """The model in torch through sentence-transformers: what runs where the int8 graph cannot be made, or where
    bfloat16 or float32 is asked for. The same members as onnx_runtime.OnnxEncoder."""

    def __init__(self, model_path: Path, bf16: bool):
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # its "Loading weights" bar would litter CLI output
        # Loaded in bfloat16 straight away: a float32 copy first (then cast) doubled the peak memory of a model
        # whose word table alone is 384 MB in float32 (multilingual-e5's 250k words).
        dtype = torch.bfloat16 if bf16 else torch.float32
        model = SentenceTransformer(str(model_path), device="cpu", local_files_only=True,
                                    model_kwargs={"dtype": dtype})
        self._model = model.to(dtype)  # modules that are not the transformer (pooling, a dense head) follow
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dimension = int(cast(int, getter()))  # None only for a model without a fixed size
        self.max_tokens = int(cast(int, model.max_seq_length))

    def encode(self, texts: list[str], role: str, batch_size: int, stopped=lambda: False) -> np.ndarray:
        """(`stopped` is not asked: sentence-transformers' loop has no place for it; a stop waits for the call.)"""
        vectors = self._model.encode(
            texts,
            prompt_name=role if role in (self._model.prompts or {}) else None,
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_tensor=True,
            show_progress_bar=False,
        )
        return vectors.float().cpu().numpy()


@contextmanager
def _without_full_collections():
    """Importing torch and sentence-transformers creates millions of objects, so the cyclic garbage collector ran
    full collections of the whole heap during the load, each holding the GIL 60-170 ms (when the app loaded the
    model in its own process, its window froze; the app now loads it in a child, core/dense/model_process.py, but a
    process with the model in it still pays for scanning them). No collection runs during the load; afterwards
    everything it created is moved out of the collector's sight (gc.freeze): those objects live as long as the
    process, and later collections no longer scan them."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


_shared: dict[tuple, Embedder] = {}
_shared_lock = threading.Lock()


def shared_embedder(model_path: Path | None = None, precision: str = "auto", batch_size: int = 32) -> Embedder:
    """One loaded model per configuration per process: libraries opened side by side (the app's search and its
    indexing worker, an evaluation's configurations) share it instead of each loading ~90 MB of weights."""
    key = (str(model_path or default_embedding_model_path()), precision, batch_size)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = Embedder(model_path, precision, batch_size)
        return _shared[key]
