"""The local GGUF model in a child process of the service.

llama.cpp keeps every core busy while it writes contexts; in the app's process its threads took the CPU from the
window's thread: during a background upgrade the window stalled past 50 ms ~56 times in 150 s and searches took
~200 ms instead of ~30 (bench/ui_responsiveness.py --upgrade-seconds). In a child running at a lower priority
(desktop_rag/child_process.py) the model gets all the CPU the window does not want. The KV cache lives in the child, so
a document's prefix is still reused across its chunks.

A call is cut short by a one-byte flag in shared memory (core/llm/interrupt.py): the parent raises it, llama.cpp
in the child sees it within milliseconds. No message is needed, so it works while the child's only lane is busy.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator
from pathlib import Path

from desktop_rag.child_process import CallAbandoned, ChildObject
from desktop_rag.core.llm.backend import Completion
from desktop_rag.core.llm.interrupt import CallGuard, Interrupted, calls_controlled_by, current_control
from desktop_rag.core.llm.llama_backend import LlamaCppBackend

CUT_SHORT = "the model call was cut short"  # Interrupted's message, whichever wait it cut
STREAM_READ_S = 0.1  # how often an answer's new pieces are read from the child: a word is ~0.1 s of the 1.5B


class LlamaInChild:
    """LlamaCppBackend's interface; the model is loaded by the child on first use."""

    def __init__(self, model_path: Path, n_ctx: int = 8192, n_threads: int | None = None,
                 engine: type = LlamaCppBackend):
        """`engine`: what runs the model in the child (core/llm/engines.py), LlamaCppBackend or
        LlamaServerEngine."""
        self.model_path = Path(model_path)
        self.name = self.model_path.stem  # as LlamaCppBackend names it: stored with every context
        self._guard = CallGuard(multiprocessing.get_context("spawn").RawValue("b", 0))
        # Failures come back as the child's own exceptions (ImportError, ValueError for a file llama.cpp cannot
        # load, Interrupted), which the contextualizer handles as it does in-process.
        # Two lanes: the model's calls, and reading an answer's pieces while it is written ("peek").
        self._child = ChildObject(engine, (str(self.model_path), n_ctx, n_threads, 8, self._guard.flag),
                                  name="the language model", error=None, lanes=("main", "peek"))
        self.use = self._child.use  # every call's: the child ends when unused for a while (Library.release_unused)

    @property
    def loaded(self) -> bool:
        """The child runs (it holds the model's memory once a call has loaded it)."""
        return self._child.running

    def load(self) -> None:
        """Start the child and load the model in it; a caller who stops meanwhile does not wait for the load."""
        self._guarded("load")

    def count_tokens(self, text: str) -> int:
        return self._child.call("count_tokens", text)

    def chat(self, messages: list[dict], max_tokens: int, temperature: float = 0.0, seed: int = 0) -> Completion:
        return self._guarded("chat", messages, max_tokens, temperature, seed)

    def chat_batch(self, conversations: list[list[dict]], max_tokens: int, first_sentence_only: bool = False,
                   temperature: float = 0.0, seed: int = 0, questions: int = 0) -> list[Completion]:
        return self._guarded("chat_batch", conversations, max_tokens, first_sentence_only, temperature, seed,
                             questions)

    def chat_stream(self, messages: list[dict], max_tokens: int, grammar: str | None = None) -> Iterator[str]:
        """The answer's pieces as the child's model writes them: the call runs on a thread of its own while its
        pieces are read every STREAM_READ_S on the other lane; cut short as any call is."""
        outcome: dict = {}
        control = current_control()  # the caller's Cancel cuts the call short on the thread making it

        def call() -> None:
            try:
                with calls_controlled_by(control):
                    outcome["text"] = self._guarded("chat_streamed", messages, max_tokens, grammar)
            except Exception as exc:  # noqa: BLE001 — raised below, in the caller's thread, whatever it is
                outcome["error"] = exc

        def stopped() -> bool:
            return control is not None and control.stopping

        caller = threading.Thread(target=call, name="desktop-rag model stream", daemon=True)
        caller.start()
        given: list[str] = []
        while caller.is_alive():
            caller.join(STREAM_READ_S)
            if caller.is_alive():
                # Not waited for once the caller stops: at low priority beside two busy processes the child took
                # 27-30 s to answer a read, and Esc waited for it (tests/end2end/test_answer_view.py, loaded).
                try:
                    pieces = self._child.call("streamed_since", len(given), lane="peek", abandon=stopped)
                except CallAbandoned:
                    raise Interrupted(CUT_SHORT) from None
                given += pieces
                yield from pieces
        if "error" in outcome:
            raise outcome["error"]
        rest = outcome["text"][len("".join(given)):]  # written between the last read and the end
        if rest:
            yield rest

    def _guarded(self, method: str, *args):
        """A call its caller's control can cut short. The caller does not wait for the child to notice the flag
        (at low priority on a busy machine that took seconds): the answer is dropped when it comes."""
        return self._guard.call_in_child(self._child, method, *args, cut_short=CUT_SHORT)

    def forget_cache(self) -> None:
        self._child.call("forget_cache")

    def close(self, interrupt: bool = False) -> None:
        self._child.close(interrupt)
