"""One interface over the ways a context can be generated: llama.cpp in-process, or an OpenAI-compatible server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# Greedy answers with a light penalty on repeated tokens, in every engine (a small model otherwise loops on a
# phrase). Read at each call: a test sets it to 1.0 to compare the engines' plain greedy answers.
REPEAT_PENALTY = 1.1


@dataclass
class Completion:
    text: str
    prompt_tokens: int  # the whole prompt
    completion_tokens: int
    evaluated_prompt_tokens: int  # what the model actually computed: less than prompt_tokens when a prefix was cached
    seconds: float
    finish_reason: str = "stop"


class LlmBackend(Protocol):
    name: str

    def chat(self, messages: list[dict], max_tokens: int, temperature: float = 0.0, seed: int = 0) -> Completion: ...

    def count_tokens(self, text: str) -> int: ...


def ask_together(backend: LlmBackend, conversations: list[list[dict]], max_tokens: int, temperature: float = 0.0,
                 seed: int = 0, questions: int = 0) -> list[Completion]:
    """Questions sharing a prefix, answered in one batch where the backend can (one sentence each, then
    `questions` questions where the prompt asks for them), else in turn."""
    if not conversations:
        return []  # nothing to ask: no call (a call to the app's model process is a round trip)
    batch = getattr(backend, "chat_batch", None)
    if batch is not None:
        return batch(conversations, max_tokens, first_sentence_only=True, temperature=temperature, seed=seed,
                     questions=questions)
    return [backend.chat(messages, max_tokens, temperature, seed) for messages in conversations]
