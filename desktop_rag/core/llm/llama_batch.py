"""Several answers decoded together from one shared, cached prompt prefix (llama.cpp sequences).

On a 2-core CPU one sequence at a time leaves the cores waiting on memory: each generated token streams all the
weights once. Decoding N sequences in one batch streams them once for N tokens. The document prefix is evaluated
once into sequence 0 and kept there between calls; each question gets its own sequence, copied from that prefix
(with a unified KV cache the copy shares cells, it does not duplicate them).

Greedy decoding with a light repetition penalty, like `LlamaCppBackend.chat` at temperature 0, so a batched answer
matches a sequential one closely (not bit for bit: batch shapes change float rounding); top-k sampling for retries.

A raised abort flag (core/llm/interrupt.py) ends a call between tokens, or inside a decode through llama.cpp's
abort callback; the cached prefix keeps what was fully evaluated, so asking again costs only the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from desktop_rag.core.llm import backend
from desktop_rag.core.llm.interrupt import AbortFlag, Interrupted

_SENTENCE_END = re.compile(r"\w.*?[.!?][\"')\]]?\s")  # the first one
_QUESTION_MARK = re.compile("[?？]")
_TOP_K = 40


@dataclass
class BatchAnswer:
    tokens: list[int]
    finish_reason: str  # "stop" (end of turn or of the first sentence) or "length"
    evaluated_prompt_tokens: int  # this answer's own suffix plus its share of a newly evaluated prefix


class BatchedDecoder:
    def __init__(self, llama, n_parallel: int, n_ctx: int, n_threads: int, n_batch: int = 512, abort_flag=None):
        import llama_cpp
        from llama_cpp import _internals

        self._lib = llama_cpp
        self._llama = llama
        self.n_parallel = n_parallel
        self.n_ctx = n_ctx
        self.n_batch = n_batch
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = params.n_ubatch = n_batch
        params.n_seq_max = n_parallel + 1
        params.kv_unified = True  # copied prefixes share cells; every sequence may use the whole context
        params.n_threads = params.n_threads_batch = n_threads
        self._ctx = _internals.LlamaContext(model=llama._model, params=params, verbose=False)
        self._batch = _internals.LlamaBatch(n_tokens=n_batch, embd=0, n_seq_max=1, verbose=False)
        self._vocab = llama._model.vocab
        self._n_vocab = llama.n_vocab()
        self._cached: list[int] = []  # the tokens held by sequence 0
        self._rng = np.random.default_rng(0)
        self._temperature = 0.0
        self._abort = abort_flag or AbortFlag()

    @property
    def context(self):
        """The llama.cpp context pointer (for its abort callback)."""
        return self._ctx.ctx

    def groups(self, prompts: list[list[int]], max_tokens: int):
        """Consecutive groups of prompts that `generate` takes at once: at most n_parallel, and their shared
        prefix plus their own parts and answers fit the context."""
        group: list[list[int]] = []
        for prompt in prompts:
            candidate = group + [prompt]
            if group and (len(candidate) > self.n_parallel or _cells_needed(candidate, max_tokens) > self.n_ctx):
                yield group
                candidate = [prompt]
            group = candidate
        if group:
            yield group

    def close(self) -> None:
        self._ctx.close()
        self._batch.close()
        self._cached = []

    def forget_cache(self) -> None:
        self._ctx.kv_cache_clear()
        self._cached = []

    def generate(self, prompts: list[list[int]], max_tokens: int, first_sentence_only: bool = False,
                 temperature: float = 0.0, seed: int = 0, questions: int = 0) -> list[BatchAnswer]:
        """`first_sentence_only`: an answer ends with its first sentence, or with the `questions` questions that
        follow it (core/llm/prompts.py, "questions the chunk answers")."""
        if not prompts:
            return []
        if len(prompts) > self.n_parallel:
            raise ValueError(f"{len(prompts)} prompts for {self.n_parallel} parallel sequences")
        shared = _shared_length(prompts)
        needed = _cells_needed(prompts, max_tokens)
        if needed > self.n_ctx:
            raise ValueError(f"batch needs {needed} KV cells, context has {self.n_ctx}")
        try:
            return self._generate(prompts, shared, max_tokens, first_sentence_only, temperature, seed, questions)
        except RuntimeError:  # llama_decode returned 2: aborted through the flag
            if self._abort.value:
                raise Interrupted("the model call was cut short") from None
            raise
        finally:
            for seq in range(1, len(prompts) + 1):
                self._ctx.kv_cache_seq_rm(seq, -1, -1)

    def _generate(self, prompts, shared, max_tokens, first_sentence_only, temperature, seed,
                  questions) -> list[BatchAnswer]:
        prefix_cost = self._load_prefix(prompts[0][:shared])
        for seq in range(1, len(prompts) + 1):
            self._ctx.kv_cache_seq_rm(seq, -1, -1)
            self._ctx.kv_cache_seq_cp(0, seq, 0, shared)

        self._rng = np.random.default_rng(seed)
        self._temperature = temperature
        answers = [BatchAnswer([], "length", len(p) - shared + prefix_cost // len(prompts)) for p in prompts]
        positions = [len(p) for p in prompts]
        next_tokens = self._evaluate_suffixes([p[shared:] for p in prompts], shared)
        active = list(range(len(prompts)))
        for _ in range(max_tokens):
            still = []
            for i in active:
                token = next_tokens[i]
                if self._lib.llama_vocab_is_eog(self._vocab, token):
                    answers[i].finish_reason = "stop"
                    continue
                answers[i].tokens.append(token)
                if first_sentence_only and answer_complete(self._text(answers[i].tokens), questions):
                    # The token closing the sentence is kept; the space test catches "e.g." only mid-word.
                    answers[i].finish_reason = "stop"
                    continue
                if len(answers[i].tokens) < max_tokens:
                    still.append(i)
            active = still
            if not active:
                break
            if self._abort.value:
                raise Interrupted("the model call was cut short")
            self._batch.reset()
            for i in active:
                self._add(answers[i].tokens[-1], positions[i], i + 1, logits=True)
                positions[i] += 1
            self._ctx.decode(self._batch)
            for row, i in enumerate(active):
                next_tokens[i] = self._pick(row, answers[i].tokens)
        return answers

    def _load_prefix(self, prefix: list[int]) -> int:
        """Make sequence 0 hold exactly `prefix`, evaluating only what is not cached; returns tokens evaluated."""
        keep = _common_prefix([self._cached, prefix])
        self._ctx.kv_cache_seq_rm(0, keep, -1)
        self._cached = self._cached[:keep]
        todo = prefix[keep:]
        for start in range(0, len(todo), self.n_batch):
            self._batch.reset()
            for offset, token in enumerate(todo[start : start + self.n_batch]):
                self._add(token, keep + start + offset, 0, logits=False)
            self._ctx.decode(self._batch)
            # Batch by batch: a call cut short keeps the part of a long document that was evaluated.
            self._cached = list(prefix[: keep + start + self.n_batch])
        self._cached = list(prefix)
        return len(todo)

    def _evaluate_suffixes(self, suffixes: list[list[int]], start: int) -> dict[int, int]:
        """Evaluate each question in its own sequence, packing them into as few decode calls as fit."""
        pending = [(i, offset, token) for i, suffix in enumerate(suffixes) for offset, token in enumerate(suffix)]
        first_tokens: dict[int, int] = {}
        for begin in range(0, len(pending), self.n_batch):
            self._batch.reset()
            rows = []
            for i, offset, token in pending[begin : begin + self.n_batch]:
                last = offset == len(suffixes[i]) - 1
                self._add(token, start + offset, i + 1, logits=last)
                if last:
                    rows.append((self._batch.batch.n_tokens - 1, i))
            self._ctx.decode(self._batch)
            for row, i in rows:
                first_tokens[i] = self._pick(row, [])
        return first_tokens

    def _add(self, token: int, position: int, seq: int, logits: bool) -> None:
        b = self._batch.batch
        j = b.n_tokens
        b.token[j] = token
        b.pos[j] = position
        b.seq_id[j][0] = seq
        b.n_seq_id[j] = 1
        b.logits[j] = logits
        b.n_tokens = j + 1

    def _pick(self, row: int, generated: list[int]) -> int:
        logits = np.ctypeslib.as_array(self._ctx.get_logits_ith(row), shape=(self._n_vocab,)).copy()
        if generated:
            seen = np.fromiter(set(generated), dtype=np.int64)
            values = logits[seen]
            logits[seen] = np.where(values > 0, values / backend.REPEAT_PENALTY, values * backend.REPEAT_PENALTY)
        if self._temperature <= 0:
            return int(np.argmax(logits))
        # A retry or a regeneration: sample among the 40 likeliest tokens, as llama.cpp's top-k would.
        top = np.argpartition(-logits, _TOP_K)[:_TOP_K]
        weights = np.exp((logits[top] - logits[top].max()) / self._temperature)
        return int(self._rng.choice(top, p=weights / weights.sum()))

    def _text(self, tokens: list[int]) -> str:
        return self._llama.detokenize(tokens).decode("utf-8", errors="ignore")


def _shared_length(prompts: list[list[int]]) -> int:
    """The prefix evaluated once for all: it stops one token short of the shortest prompt, because every
    sequence needs a token of its own to produce logits from."""
    return min(_common_prefix(prompts), min(len(p) for p in prompts) - 1)


def _cells_needed(prompts: list[list[int]], max_tokens: int) -> int:
    shared = _shared_length(prompts)
    return shared + sum(len(p) - shared + max_tokens for p in prompts)


def _common_prefix(sequences: list[list[int]]) -> int:
    shortest = min(len(s) for s in sequences)
    for n in range(shortest):
        token = sequences[0][n]
        if any(s[n] != token for s in sequences[1:]):
            return n
    return shortest


def answer_complete(text: str, questions: int = 0) -> bool:
    """The first sentence has ended, and after it `questions` questions have (each ends with its question mark)."""
    first = _SENTENCE_END.search(text + " ")
    return first is not None and len(_QUESTION_MARK.findall(text[first.end() - 1:])) >= questions
