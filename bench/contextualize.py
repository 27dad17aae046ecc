"""Contextualization throughput of the local model, with and without KV-cache prefix reuse.

    .venv/bin/python bench/contextualize.py [--model qwen2.5-coder-0.5b-instruct-q4_k_m] [--docs 3] [--chunks 4]

For each document of the codebase set (../shared/datasets/codebase, else the bundled samples) it asks the
per-chunk question for its first chunks twice: in document order with the cache kept (the document is
evaluated once), and with the cache dropped before every call. Prints evaluated prompt tokens, generated tokens,
seconds and rates.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_rag.core.llm.llama_backend import LlamaCppBackend  # noqa: E402
from desktop_rag.core.llm.models import resolve_model  # noqa: E402
from desktop_rag.core.llm.prompts import CHUNK_CONTEXT, document_messages  # noqa: E402

DATASET = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "codebase"


def load_documents(limit: int, chunks_per_doc: int) -> list[tuple[str, list[str]]]:
    if (DATASET / "documents.jsonl").exists():
        docs = [json.loads(line) for line in (DATASET / "documents.jsonl").open()]
        chunks: dict[str, list[str]] = {}
        for line in (DATASET / "chunks.jsonl").open():
            c = json.loads(line)
            chunks.setdefault(c["doc_id"], []).append(c["text"])
        picked = [d for d in docs if len(chunks.get(d["_id"], [])) >= chunks_per_doc][:limit]
        return [(d["text"][:6000], chunks[d["_id"]][:chunks_per_doc]) for d in picked]
    samples = Path(__file__).resolve().parent.parent / "resources" / "samples"
    texts = [p.read_text() for p in sorted(samples.glob("*.md")) + sorted(samples.glob("*.txt"))][:limit]
    return [(t, [p for p in t.split("\n\n") if p.strip()][:chunks_per_doc]) for t in texts]


def run(backend: LlamaCppBackend, docs, reuse: bool, max_tokens: int) -> dict:
    evaluated = generated = 0
    started = time.perf_counter()
    for text, chunks in docs:
        backend.forget_cache()
        for chunk in chunks:
            if not reuse:
                backend.forget_cache()
            c = backend.chat(document_messages(text, CHUNK_CONTEXT.format(passage=chunk)), max_tokens=max_tokens)
            evaluated += c.evaluated_prompt_tokens
            generated += c.completion_tokens
    seconds = time.perf_counter() - started
    n = sum(len(chunks) for _, chunks in docs)
    return {"chunks": n, "seconds": round(seconds, 1), "chunks_per_min": round(60 * n / seconds, 1),
            "prompt_tokens_evaluated": evaluated, "generated_tokens": generated,
            "evaluated_per_chunk": round(evaluated / n)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b-instruct-q4_k_m")
    parser.add_argument("--docs", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        backend = LlamaCppBackend(resolve_model(args.model, Path(tmp)), n_ctx=4096)
        docs = load_documents(args.docs, args.chunks)
        backend.chat([{"role": "user", "content": "hi"}], max_tokens=1)  # load the model outside the timing
        with_reuse = run(backend, docs, True, args.max_tokens)
        without = run(backend, docs, False, args.max_tokens)
    print(f"{'':<26}{'reuse':>12}{'no reuse':>12}")
    for key in with_reuse:
        print(f"{key:<26}{with_reuse[key]:>12}{without[key]:>12}")
    print(f"speed-up: {without['seconds'] / with_reuse['seconds']:.2f}x   "
          f"(model {args.model}, {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
