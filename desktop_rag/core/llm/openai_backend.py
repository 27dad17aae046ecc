"""Contexts from an OpenAI-compatible chat server: llama.cpp's server, vLLM, Ollama (its /v1), LM Studio.

For users who outgrow the laptop: the server keeps its own prompt cache (llama.cpp `cache_prompt`, vLLM prefix
caching) and batches concurrent requests, so the questions about one document are sent together and the
document prefix is shared there. Standard library HTTP only: nothing to install, nothing downloaded.

Requests run on daemon threads that the caller waits for, looking at the abort flag (core/llm/interrupt.py): a
paused or cancelled caller returns at once (the server's answer is dropped), and quitting never waits for one.
"""

from __future__ import annotations

import http.client
import json
import queue
import threading
import time
import urllib.error
import urllib.request
from functools import partial
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

from desktop_rag.core.llm.backend import Completion
from desktop_rag.core.llm.interrupt import AbortFlag, CallGuard, Interrupted
from desktop_rag.core.llm.models import ModelUnavailable
from desktop_rag.core.llm.openai_format import chat_request, completion_from, stops_for

# Tokenize endpoints, tried in order: llama.cpp server, llama-cpp-python's server, vLLM.
_TOKENIZERS = (("/tokenize", "content"), ("/extras/tokenize", "input"), ("/tokenize", "prompt"))
_CHARS_PER_TOKEN = 3.5  # when the server cannot count: between code (~3) and prose (~4)
_POLL_S = 0.05  # how often a waiting caller looks at the abort flag


class OpenAiServerBackend:
    def __init__(self, url: str, model: str = "", api_key: str = "", timeout: float = 300.0, n_parallel: int = 4):
        self.root = url.rstrip("/").removesuffix("/v1")
        self.api_key = api_key
        self.timeout = timeout
        self.n_parallel = n_parallel
        self._guard = CallGuard(AbortFlag())
        self._tokenizer: tuple[str, str] | bool | None = False  # False: not probed yet; None: none works
        try:
            served = [m["id"] for m in self._request("GET", "/v1/models", timeout=10)["data"]]
        except (OSError, ValueError, KeyError) as exc:
            raise ModelUnavailable(f"the LLM server at {self.root} did not answer: {_reason(exc)}") from exc
        if model and served and model not in served:
            raise ModelUnavailable(f"the LLM server at {self.root} has no model {model!r} (it has: "
                                   f"{', '.join(served)})")
        self.model = model or (served[0] if served else "")
        # The model's name with the server's address: the context cache must not mix two servers' models.
        self.name = f"{self.model}@{urlsplit(self.root).netloc}"

    def chat(self, messages: list[dict], max_tokens: int, temperature: float = 0.0, seed: int = 0,
             stop: list[str] | None = None) -> Completion:
        with self._guard.call():
            return self._answered([lambda: self._chat(messages, max_tokens, temperature, seed, stop)])[0]

    def _chat(self, messages: list[dict], max_tokens: int, temperature: float, seed: int,
              stop: list[str] | None) -> Completion:
        started = time.perf_counter()
        answer = self._request("POST", "/v1/chat/completions",
                               chat_request(messages, max_tokens, temperature, seed, stop, self.model))
        return completion_from(answer, time.perf_counter() - started)

    def chat_stream(self, messages: list[dict], max_tokens: int, grammar: str | None = None) -> Iterator[str]:
        """The answer's pieces as the server sends them (`stream: true`, server-sent events). `grammar` (GBNF) goes
        as llama.cpp's server takes it; a server that ignores it (vLLM, Ollama) answers unconstrained, and a
        sentence without its markers is then refused by the checks, never shown as cited. Cut short within a
        piece when the caller is paused or cancelled (the connection closed: the server stops generating)."""
        body = {**chat_request(messages, max_tokens, 0.0, 0, None, self.model), "stream": True}
        if grammar is not None:
            body["grammar"] = grammar
        with self._guard.call():
            lines: queue.Queue = queue.Queue()
            response = self._opened("POST", "/v1/chat/completions", body)

            def read() -> None:  # on its own thread: the caller keeps looking at the flag while the server computes
                try:
                    for line in response:
                        lines.put(line)
                except Exception as exc:  # noqa: BLE001 — closed under it by a cancel (http.client then raises
                    lines.put(exc)  # AttributeError), or the server went: the caller raises it, if still listening
                lines.put(None)

            threading.Thread(target=read, daemon=True, name="llm-server stream").start()
            try:
                while True:
                    try:
                        line = lines.get(timeout=_POLL_S)
                    except queue.Empty:
                        line = b""
                    if self._guard.flag.value:
                        raise Interrupted("the request to the LLM server was abandoned")
                    if line is None:
                        return
                    if isinstance(line, Exception):
                        raise line
                    if piece := _piece(line):
                        yield piece
            finally:
                response.close()

    def chat_batch(self, conversations: list[list[dict]], max_tokens: int, first_sentence_only: bool = False,
                   temperature: float = 0.0, seed: int = 0, questions: int = 0) -> list[Completion]:
        """Concurrent requests: the server batches them."""
        stop = stops_for(first_sentence_only, questions)
        with self._guard.call():
            return self._answered([partial(self._chat, m, max_tokens, temperature, seed, stop) for m in conversations])

    def _answered(self, requests: list[Callable[[], Completion]]) -> list[Completion]:
        """Each request on a daemon thread, at most n_parallel at once; the caller waits, unless the flag rises."""
        slots = threading.Semaphore(self.n_parallel)
        results: list = [None] * len(requests)
        done = [threading.Event() for _ in requests]

        def run(i: int) -> None:
            with slots:
                try:
                    results[i] = (True, requests[i]())
                except Exception as exc:  # noqa: BLE001 — raised in the caller's thread below
                    results[i] = (False, exc)
            done[i].set()

        for i in range(len(requests)):
            threading.Thread(target=run, args=(i,), daemon=True, name="llm-server request").start()
        for event in done:
            while not event.wait(_POLL_S):
                if self._guard.flag.value:
                    raise Interrupted("the request to the LLM server was abandoned")
        for ok, value in results:
            if not ok:
                raise value
        return [value for _, value in results]

    def count_tokens(self, text: str) -> int:
        if self._tokenizer is False:
            self._tokenizer = self._probe_tokenizer()
        if not isinstance(self._tokenizer, tuple):  # none of the server's tokenizer routes answered
            return int(len(text) / _CHARS_PER_TOKEN) + 1
        path, field = self._tokenizer
        return len(self._request("POST", path, {field: text, "model": self.model})["tokens"])

    def _probe_tokenizer(self) -> tuple[str, str] | None:
        for path, field in _TOKENIZERS:
            try:
                if isinstance(self._request("POST", path, {field: "a b", "model": self.model}).get("tokens"), list):
                    return path, field
            except (OSError, ValueError):
                continue
        return None

    def _request(self, method: str, path: str, body: dict | None = None, timeout: float | None = None) -> dict:
        with self._opened(method, path, body, timeout) as response:
            return json.loads(response.read().decode("utf-8"))

    def _opened(self, method: str, path: str, body: dict | None = None,
                timeout: float | None = None) -> http.client.HTTPResponse:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(self.root + path, data=data, headers=headers, method=method)
        return urllib.request.urlopen(request, timeout=timeout or self.timeout)


def _piece(line: bytes) -> str:
    """The text a server-sent event line of a streamed chat carries ("" for none: a keep-alive, [DONE])."""
    data = line.decode("utf-8", "replace").strip().removeprefix("data:").strip()
    if not data or data == "[DONE]":
        return ""
    try:
        choices = json.loads(data).get("choices") or [{}]
    except ValueError:
        return ""
    return (choices[0].get("delta") or {}).get("content") or ""


def _reason(exc: Exception) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return str(exc.reason)
    return str(exc)
