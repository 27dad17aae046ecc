"""`auto` contexts, on a clock moved by hand: a document goes to the LLM while its measured rate fits the
per-document and per-run budgets, the rest gets rules contexts now (end2end/test_llm_budget.py: with a library)."""

from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.contexts.rules import RulesContextualizer
from desktop_rag.core.dense.tokens import token_counter
from desktop_rag.core.llm.budget import BudgetedContextualizer
from desktop_rag.documents import Chunk, ContextResult, ParsedDocument
from fake_models import FakeClock


class SlowFakeLlm(Contextualizer):
    """Takes `seconds_per_chunk` of fake time per chunk and answers with an llm context."""

    unavailable = None

    def __init__(self, clock, seconds_per_chunk):
        self.clock, self.seconds_per_chunk, self.documents = clock, seconds_per_chunk, []

    def cache_key(self):
        return ("fake", "v")

    def contextualize(self, document, chunks, only=None):
        self.documents.append(document.title)
        wanted = range(len(chunks)) if only is None else only
        self.clock.now += self.seconds_per_chunk * len(wanted)
        return [ContextResult(text=f"llm {c.index}", source="llm" if c.index in wanted else "rules") for c in chunks]


def document(title, n):
    chunks = [Chunk(i, f"text {i} of {title}", 0, 1, None, [], 3, f"{title}{i}") for i in range(n)]
    return ParsedDocument(text=" ".join(c.text for c in chunks), title=title, parser="text"), chunks


def test_documents_go_to_the_llm_while_the_measured_rate_fits_the_budgets():
    clock = FakeClock()
    llm = SlowFakeLlm(clock, seconds_per_chunk=3.0)
    rules = RulesContextualizer(max_words=40, max_tokens=64, counter=token_counter())
    auto = BudgetedContextualizer(llm, rules, document_budget_s=20, run_budget_s=40, seconds_per_chunk=1.0,
                                  clock=clock)
    sources = []
    for title, n in [("a", 4), ("b", 10), ("c", 3), ("d", 4), ("e", 2)]:
        sources.append({c.source for c in auto.contextualize(*document(title, n))})
    # a: 4 chunks at the prior 1 s/chunk → LLM, which measures 3 s/chunk. b: 30 s > 20 s per document → rules.
    # c: 9 s (12 + 9 ≤ 40) → LLM. d: 12 s (21 + 12 ≤ 40) → LLM. e: 6 s (33 + 6 ≤ 40) → LLM.
    assert sources == [{"llm"}, {"rules"}, {"llm"}, {"llm"}, {"llm"}]
    assert llm.documents == ["a", "c", "d", "e"] and auto.deferred_documents == 1
    assert auto.seconds_per_chunk == 3.0 and auto.spent_s == 39.0
    assert {c.source for c in auto.contextualize(*document("f", 1))} == {"rules"}  # 39 + 3 > 40
