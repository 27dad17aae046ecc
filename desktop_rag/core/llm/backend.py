"""One interface over the ways a context can be generated: llama.cpp in-process, or an OpenAI-compatible server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


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
