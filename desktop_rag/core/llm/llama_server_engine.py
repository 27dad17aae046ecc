"""llama.cpp's own server engine, from the `xllamacpp` wheel: the local model where llama-cpp-python does not
install (it ships source only, and needs Visual Studio's or Xcode's build tools; xllamacpp has wheels for Linux,
Windows and macOS). The same interface as LlamaCppBackend, run in the same child process (llama_process.py).

Called in this process, not over HTTP: the server is llama.cpp's C++ server loaded as a library, and its
`handle_chat_completions` takes and answers the OpenAI-compatible request the app sends any server
(openai_format.py). Called so, a streamed request can be stopped from its callback, and with `return_progress`
the callback is also asked between the prompt's batches: a raised abort flag stops the work within one batch
(BATCH_TOKENS), where an abandoned HTTP request runs on until the server polls its connection. The prefix of the
last request stays in the one slot (`cache_prompt`), so a document's chunks evaluate the document once.

The wheel's server also listens on 127.0.0.1 (a port the system picks), which would let another user of the
computer read what is being asked (its /slots route shows the prompt): every route but /health asks for a key of
32 random bytes that only this process knows, and /slots, /props and /metrics are off.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
import urllib.request
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from desktop_rag.core.llm import backend
from desktop_rag.core.llm.backend import Completion
from desktop_rag.core.llm.interrupt import AbortFlag, CallGuard, Interrupted
from desktop_rag.core.llm.openai_format import chat_request
from desktop_rag.use_clock import UseClock

# Tokens per prompt batch: the callback that sees the abort flag is asked between two (128 tokens ≈ 1 s for the
# 0.5B model on 2 cores; larger batches were no faster there).
BATCH_TOKENS = 128


class LlamaServerEngine:
    def __init__(self, model_path: Path, n_ctx: int = 8192, n_threads: int | None = None, n_parallel: int = 1,
                 abort_flag=None):
        """`abort_flag`: the shared flag when the engine runs in a child process (its parent guards the calls);
        None in-process, where this object guards its own calls. `n_parallel` is accepted for LlamaCppBackend's
        signature: one slot, whose cache carries a document's prefix from one chunk's question to the next."""
        self.model_path = Path(model_path)
        self.name = self.model_path.stem  # as LlamaCppBackend names it: contexts of either engine are one model's
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, (os.cpu_count() or 2))
        self._server: Any = None  # xllamacpp.Server, loaded at the first call
        self._key = secrets.token_urlsafe(32)
        self._lock = threading.Lock()  # one slot: calls must not interleave
        self._guard = CallGuard(AbortFlag()) if abort_flag is None else None
        self._flag = abort_flag if abort_flag is not None else self._guard.flag  # type: ignore[union-attr]
        self.use = UseClock()

    def _load(self):
        if self._server is None:
            import xllamacpp

            params = xllamacpp.CommonParams()
            params.model.path = str(self.model_path)
            params.n_ctx, params.n_parallel = self.n_ctx, 1
            params.n_batch = params.n_ubatch = BATCH_TOKENS
            params.cpuparams.n_threads = params.cpuparams_batch.n_threads = self.n_threads
            params.warmup, params.offline = False, True
            params.api_keys = [self._key]
            params.endpoint_slots = params.endpoint_props = params.endpoint_metrics = False
            params.n_threads_http = 1
            params.verbosity = -1
            try:
                self._server = xllamacpp.Server(params)
            except RuntimeError as exc:  # "Failed to init server": a missing, damaged or unknown GGUF file
                raise ValueError(f"llama.cpp could not load the model {self.model_path} ({exc})") from None
        return self._server

    @contextmanager
    def _one_call(self):
        with self.use.call(), self._guard.call() if self._guard else nullcontext(), self._lock:
            yield

    def load(self) -> None:
        with self.use.call(), self._lock:
            self._load()

    def count_tokens(self, text: str) -> int:
        """The server's own tokenizer (its /tokenize route: the Python API has none), with this process's key."""
        with self.use.call(), self._lock:
            server = self._load()
            request = urllib.request.Request(
                server.listening_address + "/tokenize", data=json.dumps({"content": text}).encode("utf-8"),
                headers={"Content-Type": "application/json", "Authorization": f"Bearer {self._key}"}, method="POST")
            direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
            with direct.open(request, timeout=60) as response:
                return len(json.loads(response.read().decode("utf-8"))["tokens"])

    def chat(self, messages: list[dict], max_tokens: int, temperature: float = 0.0, seed: int = 0) -> Completion:
        with self._one_call():
            return self._streamed(messages, max_tokens, temperature, seed)

    def chat_batch(self, conversations: list[list[dict]], max_tokens: int, first_sentence_only: bool = False,
                   temperature: float = 0.0, seed: int = 0, questions: int = 0) -> list[Completion]:
        """One after another in the one slot: the shared prefix (the document) is computed by the first only. An
        answer ends as the batched decoder ends it (llama_batch.answer_complete: its first sentence, in any script,
        and then `questions` questions)."""
        with self._one_call():
            return [self._streamed(messages, max_tokens, temperature, seed, (first_sentence_only, questions))
                    for messages in conversations]

    def _streamed(self, messages: list[dict], max_tokens: int, temperature: float, seed: int,
                  ends: tuple[bool, int] = (False, 0)) -> Completion:
        """One chat completion, streamed so that the abort flag is looked at between tokens and prompt batches.
        Sampled as LlamaCppBackend samples (greedy at temperature 0, the same repeat penalty)."""
        from desktop_rag.core.llm.llama_batch import answer_complete

        server = self._load()
        body = chat_request(messages, max_tokens, temperature, seed, None, top_k=40 if temperature else 1,
                            repeat_penalty=backend.REPEAT_PENALTY)
        body.update(stream=True, return_progress=True)
        pieces: list[str] = []
        finish = ["length"]
        prompt = {"total": 0, "cache": 0}  # from the progress the server reports while it reads the prompt
        flag = self._flag

        failed: list[Exception] = []

        def heard(chunk) -> bool:
            try:
                return read(chunk)
            except Exception as exc:  # noqa: BLE001 — the server would take it for "stop" and say nothing
                failed.append(exc)
                return True

        def read(chunk) -> bool:
            if isinstance(chunk, (str, bytes)):
                chunk = json.loads(chunk)
            prompt.update({k: chunk["prompt_progress"][k] for k in prompt if k in chunk.get("prompt_progress", {})})
            for choice in chunk.get("choices") or ():
                if piece := (choice.get("delta") or {}).get("content"):
                    pieces.append(piece)  # one token each
                if choice.get("finish_reason"):
                    finish[0] = choice["finish_reason"]
            if ends[0] and answer_complete("".join(pieces), ends[1]):
                finish[0] = "stop"
                return True  # enough said: the rest is not generated
            return bool(flag.value)  # True: the server cancels the request

        started = time.perf_counter()
        server.handle_chat_completions(body, heard)
        if failed:
            raise failed[0]
        if flag.value:
            raise Interrupted("the model call was cut short")
        return Completion(text="".join(pieces), prompt_tokens=prompt["total"], completion_tokens=len(pieces),
                          evaluated_prompt_tokens=prompt["total"] - prompt["cache"],
                          seconds=time.perf_counter() - started, finish_reason=finish[0])

    def forget_cache(self) -> None:
        """Drop the cached prefix (benchmarks): the server is made anew, which is what empties its slot."""
        with self._lock:
            self._server = None

    def close(self, interrupt: bool = False) -> None:
        if interrupt:
            self._flag.value = 1
        with self._lock:
            self._server = None  # the wheel's server ends its loop and frees the model as it is released
