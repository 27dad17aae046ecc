"""Contextualization throughput of the local model: KV-cache prefix reuse and batched decoding, measured.

    .venv/bin/python bench/contextualize.py [--model qwen2.5-coder-1.5b-instruct-q4_k_m] [--docs 3] [--chunks 6]
                                            [--quote-chars 300] [--whole-set] [--engine xllamacpp]

For the first documents of the codebase set (../shared/datasets/codebase, else the bundled samples) it asks the
chunk-level question the product asks (the document, then the chunk, "say which part this is") in three ways,
plus one cheaper prompt that was measured and rejected:
  no reuse      one question at a time, the KV cache dropped before each: the document is read every time
  reuse         one question at a time, in document order: the document prefix is read once
  reuse+batch   all of an excerpt's questions decoded together from the cached prefix (what the product does)
  marks+batch   chunks marked in the document and asked by mark, batched: cheaper, but it situated chunks less
                well (eval subset hybrid R@20 96.1 vs 98.4), so not used
`--engine`: what runs the model (core/llm/engines.py): llama-cpp-python (batched decoding) or llama.cpp's server
from the xllamacpp wheel (one slot: "reuse+batch" asks in turn there). Prints chunks/min, evaluated prompt and generated tokens and their rates, and speed-ups against "no reuse".

The few documents timed are not the set's mix (most of its chunks are in long files, read as head + section
excerpts). `--whole-set` counts, with the model's tokenizer, the prompt tokens every question of the whole set
would evaluate with and without reuse, and projects each mode's minutes from this run's own rates: the prompt
rate measured alone, and each mode's answering seconds per chunk (its time less its prompt time).
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

from desktop_rag.core.llm.engines import local_engine
from desktop_rag.core.llm.excerpts import document_excerpts, mark
from desktop_rag.core.llm.llama_backend import LlamaCppBackend
from desktop_rag.core.llm.models import resolve_model
from desktop_rag.core.llm.prompts import chunk_question, document_messages
from desktop_rag.documents import Chunk

DATASET = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "codebase"
BUDGET_TOKENS = 1500
MAX_TOKENS = 60
_MARK_QUESTION = (
    'In 1 sentence of your own words, say what part {mark} of the document (it begins: "{opening}") covers '
    "and where it sits, naming key identifiers."
)


def load_documents(limit: int, chunks_per_doc: int, every_chunk: bool = False) -> list[tuple[str, list[Chunk]]]:
    """The first `limit` documents with at least `chunks_per_doc` chunks, with that many of their chunks (all of
    them with `every_chunk`)."""
    if (DATASET / "documents.jsonl").exists():
        docs = [json.loads(line) for line in (DATASET / "documents.jsonl").open()]
        texts: dict[str, list[str]] = {}
        for line in (DATASET / "chunks.jsonl").open():
            record = json.loads(line)
            texts.setdefault(record["doc_id"], []).append(record["text"])
        picked = [d for d in docs if len(texts.get(d["_id"], [])) >= chunks_per_doc][:limit]
        pairs = [(d["text"], texts[d["_id"]]) for d in picked]
    else:
        samples = Path(__file__).resolve().parent.parent / "resources" / "samples"
        files = sorted(samples.glob("*.md")) + sorted(samples.glob("*.txt"))
        pairs = [(t, [p for p in t.split("\n\n") if p.strip()]) for t in (f.read_text() for f in files[:limit])]
    result = []
    for text, pieces in pairs:
        chunks, cursor = [], 0
        for number, piece in enumerate(pieces if every_chunk else pieces[:chunks_per_doc]):
            start = max(cursor, text.find(piece[:60], cursor))
            chunks.append(Chunk(number, piece, start, start + len(piece), None, [], len(piece) // 4, str(number)))
            cursor = start + 1
        result.append((text, chunks))
    return result


def questions(backend, text: str, chunks: list[Chunk], marks: bool, quote_chars: int) -> list[list[list[dict]]]:
    """Per excerpt, the conversations for its chunks (only the chunks asked about in this run)."""
    groups = []
    for excerpt in document_excerpts(text, chunks, backend, BUDGET_TOKENS, marks=marks):
        if marks:
            groups.append([document_messages(excerpt.text, _MARK_QUESTION.format(
                mark=mark(i + 1), opening=" ".join(chunks[i].text.split()[:10]))) for i in excerpt.chunk_indexes])
        else:
            groups.append([document_messages(excerpt.text, chunk_question(chunks[i].text, quote_chars))
                           for i in excerpt.chunk_indexes])
    return groups


def run(backend: LlamaCppBackend, docs, mode: str, quote_chars: int) -> dict:
    evaluated = generated = 0
    started = time.perf_counter()
    for text, chunks in docs:
        backend.forget_cache()
        for group in questions(backend, text, chunks, marks=mode == "marks+batch", quote_chars=quote_chars):
            if mode.endswith("+batch"):
                completions = backend.chat_batch(group, MAX_TOKENS, first_sentence_only=True)
            else:
                completions = []
                for messages in group:
                    if mode == "no reuse":
                        backend.forget_cache()
                    completions += backend.chat_batch([messages], MAX_TOKENS, first_sentence_only=True)
            evaluated += sum(c.evaluated_prompt_tokens for c in completions)
            generated += sum(c.completion_tokens for c in completions)
    seconds = time.perf_counter() - started
    n = sum(len(chunks) for _, chunks in docs)
    return {"chunks": n, "seconds": round(seconds, 1), "s/chunk": round(seconds / n, 2),
            "chunks/min": round(60 * n / seconds, 1), "evaluated prompt tokens": evaluated,
            "evaluated/chunk": round(evaluated / n), "generated tokens": generated,
            "generated/chunk": round(generated / n, 1)}


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def whole_set_tokens(backend: LlamaCppBackend, quote_chars: int) -> dict:
    """Prompt tokens the chunk level evaluates over every multi-chunk document of the set (single-chunk
    documents get no chunk question): each question whole (no reuse), and as reuse+batch does — an excerpt's
    shared prefix once, less what the previous excerpt left cached, then each question's own suffix."""
    llama = backend._load()
    no_reuse = batched = chunks_asked = 0
    for text, chunks in load_documents(limit=10**6, chunks_per_doc=2, every_chunk=True):
        cached: list[int] = []
        for group in questions(backend, text, chunks, marks=False, quote_chars=quote_chars):
            prompts = [backend._prompt_tokens(llama, messages) for messages in group]
            shared = min(_common_prefix(prompts[0], p) for p in prompts)
            batched += shared - _common_prefix(cached, prompts[0][:shared]) + sum(len(p) - shared for p in prompts)
            cached = prompts[0][:shared]
            no_reuse += sum(len(p) for p in prompts)
            chunks_asked += len(prompts)
    return {"chunks": chunks_asked, "no reuse": no_reuse, "reuse+batch": batched}


def prompt_rate(backend: LlamaCppBackend, text: str) -> float:
    """Prompt tokens per second, one ~1,000-token prompt evaluated from an empty cache with a 1-token answer."""
    messages = document_messages(text[:3500], "Say OK.")
    backend.forget_cache()
    started = time.perf_counter()
    completion = backend.chat_batch([messages], max_tokens=1)[0]
    return completion.evaluated_prompt_tokens / (time.perf_counter() - started)


def project(results: dict, rate: float, whole: dict) -> None:
    print(f"\nwhole set projected ({whole['chunks']} chunk questions; prompt {rate:.0f} tokens/s measured alone):")
    minutes = {}
    for mode in ("no reuse", "reuse+batch"):
        if mode not in results:
            continue
        r = results[mode]
        answer_seconds = max(0.0, r["seconds"] - r["evaluated prompt tokens"] / rate) / r["chunks"]
        minutes[mode] = (whole[mode] / rate + answer_seconds * whole["chunks"]) / 60
        print(f"  {mode:<12} {whole[mode] / whole['chunks']:>6.0f} prompt tokens/chunk, "
              f"{answer_seconds:.2f} s/chunk answering -> {minutes[mode]:.0f} min")
    if len(minutes) == 2:
        print(f"  speed-up of reuse+batch on the whole set: {minutes['no reuse'] / minutes['reuse+batch']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct-q4_k_m")
    parser.add_argument("--docs", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=6)
    parser.add_argument("--modes", default="no reuse,reuse,reuse+batch,marks+batch")
    parser.add_argument("--quote-chars", type=int, default=0,
                        help="quote only the chunk's beginning in its question (setting llm_chunk_quote_chars)")
    parser.add_argument("--engine", default="llama-cpp-python", choices=("llama-cpp-python", "xllamacpp"))
    parser.add_argument("--whole-set", action="store_true",
                        help="also project each mode's time over the whole set from its token counts")
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        backend = local_engine(args.engine)(resolve_model(args.model, Path(tmp)), n_ctx=4096)
        docs = load_documents(args.docs, args.chunks)
        backend.chat_batch([[{"role": "user", "content": "hi"}]], max_tokens=1)  # load outside the timing
        results = {mode: run(backend, docs, mode, args.quote_chars) for mode in modes}
        if args.whole_set:
            rate = prompt_rate(backend, docs[0][0])
            whole = whole_set_tokens(backend, args.quote_chars)
    print(f"{'':<26}" + "".join(f"{mode:>15}" for mode in modes))
    for key in results[modes[0]]:
        print(f"{key:<26}" + "".join(f"{results[mode][key]:>15}" for mode in modes))
    if "no reuse" in results:
        base = results["no reuse"]["seconds"]
        print("speed-up vs no reuse: " + ", ".join(f"{m} {base / results[m]['seconds']:.2f}x" for m in modes))
    quoting = f"first {args.quote_chars} characters of each chunk quoted" if args.quote_chars else "whole chunk quoted"
    print(f"(engine {args.engine}, model {args.model}, {os.cpu_count()} cores, {MAX_TOKENS}-token cap, answers stop at a sentence end, "
          f"{quoting})")
    if args.whole_set:
        project(results, rate, whole)


if __name__ == "__main__":
    main()
