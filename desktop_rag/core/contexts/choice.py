"""The contextualizer a setting names: none, rules, llm, or auto (the LLM within a time budget, rules beyond it)."""

from __future__ import annotations

from desktop_rag.config import CONTEXT_CHOICES
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.contexts.rules import NoContextualizer, RulesContextualizer
from desktop_rag.core.dense.tokens import TokenCounter
from desktop_rag.core.llm.budget import BudgetedContextualizer
from desktop_rag.core.llm.contextualizer import LlmContextualizer
from desktop_rag.errors import BadInput


def make_contextualizer(choice: str, max_words: int = 40, max_tokens: int | None = None,
                        counter: TokenCounter | None = None, llm_backend_factory=None,
                        on_notice=None, llm_levels: str = "document", budget_seconds: tuple[float, float] = (0, 0),
                        seconds_per_chunk: float | None = None, llm_quote_chars: int = 0,
                        llm_questions: int = 0) -> Contextualizer:
    """`budget_seconds` is (per document, per run) for `auto`; `seconds_per_chunk` what the LLM cost before."""
    if choice == "none":
        return NoContextualizer()
    rules = RulesContextualizer(max_words=max_words, max_tokens=max_tokens, counter=counter)
    if choice == "rules" or (choice == "auto" and llm_backend_factory is None):
        return rules
    if choice in ("llm", "auto"):
        if llm_backend_factory is None:
            raise BadInput("LLM contexts need a model: set llm_model to a packaged model name or a GGUF file")
        llm = LlmContextualizer(llm_backend_factory, rules, on_notice, levels=llm_levels, quote_chars=llm_quote_chars,
                                questions=llm_questions)
        if choice == "llm":
            return llm
        return BudgetedContextualizer(llm, rules, *budget_seconds, seconds_per_chunk=seconds_per_chunk)
    raise BadInput(f"unknown contexts choice {choice!r}; pick one of {', '.join(CONTEXT_CHOICES)}")
