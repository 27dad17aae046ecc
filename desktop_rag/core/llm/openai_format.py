"""The OpenAI-compatible chat request and answer, as the app asks and reads them: one form for a server reached over
HTTP (openai_backend.py) and for llama.cpp's server called in a process of ours (llama_server_engine.py)."""

from __future__ import annotations

from desktop_rag.core.llm.backend import Completion


def chat_request(messages: list[dict], max_tokens: int, temperature: float, seed: int, stop: list[str] | None,
                 model: str = "", **extra) -> dict:
    """A chat completion's body. `cache_prompt`: llama.cpp's server keeps the longest common prefix with the last
    request in its slot, so the questions about one document's chunks evaluate the document once."""
    body = {"messages": messages, "max_tokens": max_tokens, "temperature": temperature, "seed": seed,
            "stream": False, "cache_prompt": True, **extra}
    if model:
        body["model"] = model
    if stop:
        body["stop"] = stop
    return body


def stops_for(first_sentence_only: bool, questions: int) -> list[str] | None:
    """A stop at ". " ends an answer after its first sentence (the server drops the stop text; the clean-up
    restores the full stop); with questions to follow, the answer ends at the end of the model's turn."""
    return [". ", ".\n"] if first_sentence_only and not questions else None


def completion_from(answer: dict, seconds: float) -> Completion:
    """A chat completion's answer (`choices`, `usage`, and llama.cpp's `timings`: how much of the prompt it
    computed) as the app keeps it."""
    choice = answer["choices"][0]
    usage = answer.get("usage") or {}
    prompt_tokens = usage.get("prompt_tokens", 0)
    timings = answer.get("timings") or {}
    return Completion(
        text=(choice.get("message") or {}).get("content") or "",
        prompt_tokens=prompt_tokens, completion_tokens=usage.get("completion_tokens", 0),
        evaluated_prompt_tokens=timings.get("prompt_n", prompt_tokens), seconds=seconds,
        finish_reason=choice.get("finish_reason") or "stop",
    )
