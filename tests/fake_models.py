"""A fake language model for tests that time how the app and `watch` make way for a person: its calls can be made
as slow as a real step on 2 cores, and they stop, as the real model's do, when the caller's control raises the
abort flag (core/llm/interrupt.py). Its answers are built from the prompt so that they score as usable contexts.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass

from desktop_rag.core.llm.backend import Completion
from desktop_rag.core.llm.interrupt import AbortFlag, CallGuard, Interrupted

_WORD = re.compile(r"[A-Za-z][a-z]{4,}")

# Settings under which the machine's conditions allow the background upgrade (no idle wait, no battery rule, no
# LLM time in an indexing run): what decides is the rest (`contexts`, pause, cancel).
ANY_TIME = dict(llm_only_when_idle=False, llm_only_on_mains=False)


class FakeClock:
    """A clock the test moves by hand (`clock.now += 3`)."""

    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


class SlowFakeModel:
    """`fast_calls` answer at once; every later call works for `seconds` unless interrupted."""

    name = "slow-fake-model"

    def __init__(self, seconds: float = 120.0, fast_calls: int = 0):
        self.seconds = seconds
        self.fast_calls = fast_calls
        self.calls = 0  # calls begun
        self.interrupted = 0  # calls cut short
        self.working = threading.Event()  # set while a slow call is in progress
        self.interrupted_at: list[float] = []  # when each cut-short call noticed the flag (time.monotonic())
        self._guard = CallGuard(AbortFlag())

    def load(self) -> None:
        pass

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat(self, messages, max_tokens, temperature=0.0, seed=0) -> Completion:
        return self.chat_batch([messages], max_tokens)[0]

    def chat_batch(self, conversations, max_tokens, first_sentence_only=False, temperature=0.0,
                   seed=0, questions=0) -> list[Completion]:
        with self._guard.call():
            self.calls += 1
            if self.calls > self.fast_calls:
                self._work()
            return [Completion(_answer(c[-1]["content"]), 50, 12, 50, 0.01) for c in conversations]

    def _work(self) -> None:
        self.working.set()
        try:
            deadline = time.monotonic() + self.seconds
            while time.monotonic() < deadline:
                if self._guard.flag.value:
                    self.interrupted += 1
                    self.interrupted_at.append(time.monotonic())
                    raise Interrupted("the fake model's call was cut short")
                time.sleep(0.01)
        finally:
            self.working.clear()


def _answer(prompt: str) -> str:
    """One sentence naming words of the document that its passage lacks: what a useful context does."""
    document, _, question = prompt.partition("</document>")
    passage = question.split("<passage>")[-1].split("</passage>")[0]
    known = {w.lower() for w in _WORD.findall(passage)}
    extra = list(dict.fromkeys(w.lower() for w in _WORD.findall(document) if w.lower() not in known))[:4]
    return f"Within the notes about {', '.join(extra) or 'this topic'}, it explains {passage.split('.')[0][:60]}."


@dataclass
class HitFake:
    """A search hit's fields an answer reads (core/search/searcher.py Hit)."""
    chunk_id: int
    path: str
    title: str | None
    text: str

    def to_dict(self) -> dict:
        return {"chunk_id": self.chunk_id, "path": self.path, "title": self.title, "text": self.text}
