"""The contextualizer a setting names: none, rules, llm, or auto (rules at once; the background upgrade,
core/indexing/upgrade.py, asks the LLM later)."""

from __future__ import annotations

from desktop_rag.config import CONTEXT_CHOICES
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.contexts.rules import NoContextualizer, RulesContextualizer
from desktop_rag.core.dense.tokens import TokenCounter
from desktop_rag.core.contexts.llm_contexts import LlmContextualizer
from desktop_rag.errors import BadInput


def make_contextualizer(choice: str, max_words: int = 40, max_tokens: int | None = None,
                        counter: TokenCounter | None = None, llm_backend_factory=None,
                        on_notice=None, llm_levels: str = "document", llm_quote_chars: int = 0,
                        llm_questions: int = 0) -> Contextualizer:
    """`auto` writes rules contexts: an indexing run never waits on the model (a one-page PDF took the 1.5B
    model 210 s on a busy 2-core machine while nothing was searchable: issue 37). The upgrade asks for "llm"."""
    if choice == "none":
        return NoContextualizer()
    rules = RulesContextualizer(max_words=max_words, max_tokens=max_tokens, counter=counter)
    if choice in ("rules", "auto"):
        return rules
    if choice == "llm":
        if llm_backend_factory is None:
            raise BadInput("LLM contexts need a model: set llm_model to a packaged model name or a GGUF file")
        return LlmContextualizer(llm_backend_factory, rules, on_notice, levels=llm_levels,
                                 quote_chars=llm_quote_chars, questions=llm_questions)
    raise BadInput(f"unknown contexts choice {choice!r}; pick one of {', '.join(CONTEXT_CHOICES)}")
