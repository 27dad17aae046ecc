"""llama.cpp in-process through llama-cpp-python, with the document prefix kept in the KV cache.

llama-cpp-python keeps the longest common token prefix with the previous call, so asking about the chunks of one
document in order, with the document first in every prompt, evaluates the document once (measured: 1,607 → 86
tokens for the second chunk). This is the local form of prompt caching; `evaluated_prompt_tokens` shows it.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from collections.abc import Iterator
from typing import Any

from desktop_rag.core.llm import backend
from desktop_rag.core.llm.backend import Completion
from desktop_rag.core.llm.interrupt import AbortFlag, CallGuard, Interrupted
from desktop_rag.use_clock import UseClock


_log_callback: Any = None  # kept referenced: llama.cpp holds only its C pointer
_loaded_flag = [None]  # the abort flag of the model loaded last (one per process): while raised, errors are ours


def _quiet_llama_logs(abort_flag) -> None:
    """llama.cpp's own messages: errors only, and none while a decode is being cut short on purpose (Pause, a
    saved file: `watch` would print four lines at every save)."""
    global _log_callback  # noqa: PLW0603 — llama.cpp keeps one log callback per process
    _loaded_flag[0] = abort_flag
    if _log_callback is not None:
        return
    import ctypes
    import sys

    import llama_cpp

    def forward(level, text, user_data):
        flag = _loaded_flag[0]
        if level == _GGML_LOG_ERROR and not (flag is not None and flag.value):
            sys.stderr.write(text.decode("utf-8", "replace"))

    _log_callback = llama_cpp.llama_log_callback(forward)
    llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))


# ggml.h: NONE 0, DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5 (llama-cpp-python's own table is one level off).
_GGML_LOG_ERROR = 4


def load_cpu_variants() -> str | None:
    """A portable build (packaging/make-offline-bundle.sh) carries ggml's CPU code compiled for several instruction
    sets, one library each (libggml-cpu-haswell.so, libggml-cpu-icelake.so, …), and ggml picks the best one this
    CPU runs when it loads them. It looks for them only beside the python executable and in the working folder, so
    they are loaded here from the package's own folder, before the first model. Returns the folder, or None for a
    build compiled for this machine (the CPU code linked in; nothing to load)."""
    import ctypes

    import llama_cpp

    lib = Path(llama_cpp.__file__).parent / "lib"
    if not any(lib.glob("libggml-cpu-*.so")):
        return None
    # The very file libllama loaded: a wheel holds libggml.so, .so.0 and .so.0.25.3 as three copies (zip keeps no
    # links), and backends registered in another copy's registry are not seen by llama.cpp.
    ggml = ctypes.CDLL(_mapped_library("libggml.so") or str(lib / "libggml.so.0"))
    if ggml.ggml_backend_reg_count() == 0:
        ggml.ggml_backend_load_all_from_path(str(lib).encode())
    return str(lib)


def _mapped_library(name: str) -> str | None:
    """The path of a shared library this process has loaded (libggml.so.0 …), from the kernel's map of it."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.rstrip("\n").split(maxsplit=5)[-1]
                if Path(path).name.startswith(name) and path.startswith("/"):
                    return path
    except OSError:
        return None
    return None


def _counting_llama_class():
    from llama_cpp import Llama

    class CountingLlama(Llama):
        """Records how many tokens each eval() call computes; the first call of a generation is the prompt."""

        eval_sizes: list[int]

        def eval(self, tokens):
            self.eval_sizes.append(len(tokens))
            return super().eval(tokens)

    return CountingLlama


class LlamaCppBackend:
    def __init__(self, model_path: Path, n_ctx: int = 8192, n_threads: int | None = None, n_parallel: int = 8,
                 abort_flag=None):
        """`abort_flag`: given when the model runs in a child process (core/llm/llama_process.py), whose parent
        guards the calls and raises the flag; None in-process, where this object guards its own calls."""
        self.model_path = Path(model_path)
        self.name = self.model_path.stem
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, (os.cpu_count() or 2))
        self.n_parallel = n_parallel
        self._llama: Any = None  # llama_cpp.Llama (with our counting), loaded at the first call
        self._decoder: Any = None  # llama_batch.BatchedDecoder, made at the first batched call
        self._formatter: Any = None  # llama-cpp's Jinja2ChatFormatter, made at the first prompt
        self._lock = threading.Lock()  # one llama context is one sequence: calls must not interleave
        self._guard = CallGuard(AbortFlag()) if abort_flag is None else None
        self._flag = abort_flag if abort_flag is not None else self._guard.flag  # type: ignore[union-attr]
        self._abort_callback: Any = None  # kept referenced: llama.cpp holds only its C pointer
        self.use = UseClock()  # in-process (`watch`, `serve`): the model is freed when unused for a while
        self._streamed: list[str] = []  # the pieces of chat_streamed's answer so far
        self._streamed_lock = threading.Lock()

    def _load(self):
        if self._llama is None:
            _quiet_llama_logs(self._flag)
            load_cpu_variants()
            cls = _counting_llama_class()
            self._llama = cls(
                model_path=str(self.model_path), n_ctx=self.n_ctx, n_threads=self.n_threads, n_batch=512,
                verbose=False,
            )
            self._llama.eval_sizes = []
            self._watch_abort_flag(self._llama._ctx.ctx)
        return self._llama

    def _watch_abort_flag(self, ctx) -> None:
        """llama.cpp asks between the operations of a decode whether to stop: a raised flag ends the decode within
        milliseconds (a prompt batch of 512 tokens alone takes ~5 s on 2 cores)."""
        import llama_cpp

        if self._abort_callback is None:
            flag = self._flag
            self._abort_callback = llama_cpp.ggml_abort_callback(lambda _data: bool(flag.value))
        llama_cpp.llama_set_abort_callback(ctx, self._abort_callback, None)

    @contextmanager
    def _one_call(self):
        """One call at a time; an abort of the decode (llama.cpp's error 2) comes out as Interrupted."""
        with self.use.call(), self._guard.call() if self._guard else nullcontext(), self._lock:
            try:
                yield
            except RuntimeError:  # a finished call is returned even if the flag rose at its very end
                if self._flag.value:
                    raise Interrupted("the model call was cut short") from None
                raise

    def load(self) -> None:
        with self.use.call(), self._lock:
            self._load()

    def count_tokens(self, text: str) -> int:
        with self.use.call(), self._lock:  # not guarded: milliseconds, and asked between steps too
            return len(self._load().tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def chat(self, messages: list[dict], max_tokens: int, temperature: float = 0.0, seed: int = 0) -> Completion:
        with self._one_call():
            llama = self._load()
            llama.eval_sizes = []
            started = time.perf_counter()
            response = llama.create_chat_completion(
                messages=messages, max_tokens=max_tokens, temperature=temperature, seed=seed,
                top_k=40 if temperature else 1, repeat_penalty=backend.REPEAT_PENALTY,
            )
            seconds = time.perf_counter() - started
            usage = response["usage"]
            choice = response["choices"][0]
            return Completion(
                text=choice["message"]["content"] or "",
                prompt_tokens=usage["prompt_tokens"],
                completion_tokens=usage["completion_tokens"],
                evaluated_prompt_tokens=llama.eval_sizes[0] if llama.eval_sizes else 0,
                seconds=seconds,
                finish_reason=choice.get("finish_reason") or "stop",
            )

    def chat_stream(self, messages: list[dict], max_tokens: int, grammar: str | None = None) -> Iterator[str]:
        """The answer's text piece by piece as the model writes it, greedy; `grammar` (GBNF) constrains what it may
        write (core/answering/answer_format.py). The call holds the model until the last piece is taken."""
        from llama_cpp import LlamaGrammar

        with self._one_call():
            llama = self._load()
            constraint = LlamaGrammar.from_string(grammar, verbose=False) if grammar is not None else None
            for chunk in llama.create_chat_completion(messages=messages, max_tokens=max_tokens, temperature=0.0,
                                                      top_k=1, repeat_penalty=backend.REPEAT_PENALTY,
                                                      grammar=constraint, stream=True):
                piece = chunk["choices"][0]["delta"].get("content")
                if piece:
                    yield piece

    def chat_streamed(self, messages: list[dict], max_tokens: int, grammar: str | None = None) -> str:
        """chat_stream's whole text, its pieces readable meanwhile by `streamed_since` (a child's other lane: a
        stream crosses the pipe as the parent's reads, core/llm/llama_process.py)."""
        with self._streamed_lock:
            self._streamed = []
        for piece in self.chat_stream(messages, max_tokens, grammar):
            with self._streamed_lock:
                self._streamed.append(piece)
        with self._streamed_lock:
            return "".join(self._streamed)

    def streamed_since(self, count: int) -> list[str]:
        """The pieces of the answer being streamed after the first `count` (never waits for the model)."""
        with self._streamed_lock:
            return self._streamed[count:]

    def chat_batch(self, conversations: list[list[dict]], max_tokens: int, first_sentence_only: bool = False,
                   temperature: float = 0.0, seed: int = 0, questions: int = 0) -> list[Completion]:
        """Answer several conversations that share a prefix (one document, several questions) together.

        Greedy at temperature 0, like `chat`. Conversations go in groups of up to `n_parallel` that fit the
        batch context; the shared prefix stays cached between groups and calls."""
        with self._one_call():
            llama = self._load()
            decoder = self._batched_decoder(llama)
            prompts = [self._prompt_tokens(llama, messages) for messages in conversations]
            completions: list[Completion] = []
            for group in decoder.groups(prompts, max_tokens):
                started = time.perf_counter()
                answers = decoder.generate(group, max_tokens, first_sentence_only, temperature, seed, questions)
                share = (time.perf_counter() - started) / len(group)
                for prompt, answer in zip(group, answers):
                    completions.append(Completion(
                        text=llama.detokenize(answer.tokens).decode("utf-8", errors="ignore"),
                        prompt_tokens=len(prompt), completion_tokens=len(answer.tokens),
                        evaluated_prompt_tokens=answer.evaluated_prompt_tokens, seconds=share,
                        finish_reason=answer.finish_reason,
                    ))
            return completions

    def _batched_decoder(self, llama):
        if self._decoder is None:
            from desktop_rag.core.llm.llama_batch import BatchedDecoder

            # Room for the shared document prefix plus every sequence's question and answer.
            self._decoder = BatchedDecoder(llama, self.n_parallel, self.n_ctx + self.n_parallel * 512,
                                           self.n_threads, abort_flag=self._flag)
            self._watch_abort_flag(self._decoder.context)
        return self._decoder

    def _prompt_tokens(self, llama, messages: list[dict]) -> list[int]:
        """The same prompt `create_chat_completion` builds: the model's own chat template, rendered."""
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            template = llama.metadata.get("tokenizer.chat_template") or _CHATML
            model = llama._model
            eos, bos = llama.token_eos(), llama.token_bos()
            self._formatter = Jinja2ChatFormatter(
                template=template, eos_token=model.token_get_text(eos) if eos != -1 else "",
                bos_token=model.token_get_text(bos) if bos != -1 else "",
            )
        rendered = self._formatter(messages=messages)
        return llama.tokenize(rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True)

    def close(self, interrupt: bool = False) -> None:
        """Free the model's memory (in-process: `watch` when nothing is left to upgrade); it loads again on next
        use. `interrupt`: a call in progress is cut short first."""
        if interrupt:
            self._flag.value = 1
        with self._lock:
            if self._decoder is not None:
                self._decoder.close()
                self._decoder = None
            if self._llama is not None:
                self._llama.close()
                self._llama = None

    def forget_cache(self) -> None:
        """Drop the cached prefix (used by benchmarks to measure the cost without reuse)."""
        with self._lock:
            if self._llama is not None:
                self._llama.reset()
            if self._decoder is not None:
                self._decoder.forget_cache()


# For a GGUF file without a template of its own.
_CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
