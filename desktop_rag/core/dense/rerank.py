"""Optional cross-encoder reranking. No PyPI package ships cross-encoder weights, so the model is a folder the
user supplies (an air-gapped user copies one in); it is loaded with sentence-transformers' CrossEncoder."""

from __future__ import annotations

import threading
from pathlib import Path

from desktop_rag.errors import UserError


class RerankerUnavailable(UserError):
    pass


class Reranker:
    def __init__(self, model_path: str | Path):
        self.model_path = Path(model_path).expanduser()
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                if not (self.model_path / "config.json").exists():
                    raise RerankerUnavailable(f"no cross-encoder model in {self.model_path} (config.json missing)")
                import torch
                from sentence_transformers import CrossEncoder

                from desktop_rag.core.dense.embedding import bfloat16_is_fast

                model = CrossEncoder(str(self.model_path), device="cpu", local_files_only=True)
                if bfloat16_is_fast():  # ~3× faster where the CPU has bf16 instructions, as for the embedder
                    model.model.to(torch.bfloat16)
                self._model = model
        return self._model

    def score(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        scores = self._load().predict([(query, p) for p in passages], show_progress_bar=False)
        return [float(s) for s in scores]
