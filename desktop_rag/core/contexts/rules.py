"""The cheap contextualizers: `none`, and `rules` (title, heading path, position, key terms), written in no time
and always available; the LLM's contexts upgrade them later (core/llm)."""

from __future__ import annotations

import email.utils
import re
from collections.abc import Sequence

from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.dense.tokens import TokenCounter
from desktop_rag.core.text.keyterms import cjk_key_terms, key_terms
from desktop_rag.core.text.scripts import ended_as_sentence, mostly_cjk
from desktop_rag.documents import Chunk, ContextResult, ParsedDocument

# rules-2: contexts of Japanese, Chinese and Korean documents in their language; rules-3: no summary sentences;
# rules-4: no second full stop after a title that ends like a sentence; rules-5: key terms without the function
# words of German, French and eight more languages, and accented words whole (core/text/keyterms.py).
RULES_VERSION = "rules-5"

# Licence headers open most source files and say nothing about them; a paragraph mentioning these is skipped.
_LEGAL = re.compile(r"\b(?:copyright|licen[cs]ed?|spdx|warrant(?:y|ies)|all rights reserved)\b|\(c\)", re.I)
_BLANK_LINES = re.compile(r"\n[ \t]*\n")


class NoContextualizer(Contextualizer):
    name = "none"

    def contextualize(self, document: ParsedDocument, chunks: Sequence[Chunk],
                      only: Sequence[int] | None = None) -> list[ContextResult]:
        return [ContextResult(text="", source="none") for _ in chunks]


class RulesContextualizer(Contextualizer):
    """Title, heading path, position and the document's key terms, in the document's language.

    The document's first informative sentences were part of it until they measured worse with the multilingual
    embedder (docs/benchmarks.md, "Rules contexts"): the same sentences on every chunk of a document pull its chunks'
    vectors together, so the one paragraph a question needs is harder to tell from its neighbours (prose set:
    dense R@5 65.4 with them, 80.4 without; jsquad 91.8 / 94.5; codebase 77.4 / 78.5).
    """

    name = "rules"

    def __init__(self, max_words: int = 40, key_term_count: int = 8, max_tokens: int | None = None,
                 counter: TokenCounter | None = None):
        self.max_words = max_words
        self.key_term_count = key_term_count
        self.max_tokens = max_tokens
        self.counter = counter

    def contextualize(self, document: ParsedDocument, chunks: Sequence[Chunk],
                      only: Sequence[int] | None = None) -> list[ContextResult]:
        body = without_legal_notices(_body(document))
        japanese = mostly_cjk(body)  # no English words inside a Japanese (or Chinese, Korean) context
        terms = (cjk_key_terms if japanese else key_terms)(body, self.key_term_count, exclude=document.title)
        texts = [_limit_words(self._compose(document, chunk, len(chunks), terms, japanese), self.max_words)
                 for chunk in chunks]
        return [ContextResult(text=text, source="rules", prompt_version=RULES_VERSION)
                for text in self._within_tokens(texts)]

    @staticmethod
    def _compose(doc: ParsedDocument, chunk: Chunk, total: int, terms: list[str], japanese: bool) -> str:
        situation = RulesContextualizer.situation(doc, chunk, total, japanese=japanese) + _mail_note(doc, japanese)
        if not terms:
            return situation
        if japanese:
            return situation + "キーワード：" + "、".join(terms) + "。"
        return f"{situation} Key terms: {', '.join(terms)}."

    @staticmethod
    def situation(doc: ParsedDocument, chunk: Chunk, total: int, japanese: bool = False) -> str:
        """Where the chunk sits: "Title — Section > Subsection (page 3, part 2 of 7)." (in Japanese for a
        Japanese document: "題名 — 節（3ページ、全7部分の2）。")"""
        where = [doc.title]
        path = [h for h in chunk.heading_path if h != doc.title]
        if path:
            where.append(" > ".join(path))
        position = []
        if chunk.page:
            position.append(f"{chunk.page}ページ" if japanese else f"page {chunk.page}")
        if total > 1:
            position.append(f"全{total}部分の{chunk.index + 1}" if japanese else f"part {chunk.index + 1} of {total}")
        if position:
            where[-1] += f"（{'、'.join(position)}）" if japanese else f" ({', '.join(position)})"
        return ended_as_sentence(" — ".join(where), japanese)  # a title may be a sentence: "…を待つ。"

    def fit(self, text: str) -> str:
        """Bound a context by words and by the embedder's word pieces, cutting between words."""
        return self._within_tokens([_limit_words(text, self.max_words)])[0]

    def _within_tokens(self, texts: list[str]) -> list[str]:
        """Each text cut to max_tokens word pieces where it is longer; the pieces counted in one call for all (the
        counter may be the reader's child, a pipe away: issue 37)."""
        if not (self.max_tokens and self.counter) or not texts:
            return texts
        counts = self.counter.count(texts)
        # Within max_tokens - 1 pieces (one kept for the ellipsis), _limit_tokens leaves a text as it is.
        return [text if n <= self.max_tokens - 1 else _limit_tokens(text, self.max_tokens, self.counter)
                for text, n in zip(texts, counts)]


def _body(document: ParsedDocument) -> str:
    """The text key terms come from: a mail's body, not its header lines ("From", "Subject" are no key terms)."""
    if document.parser in ("email", "outlook"):
        return document.text.partition("\n\n")[2] or document.text
    return document.text


def _mail_note(doc: ParsedDocument, japanese: bool) -> str:
    """" Mail from Anna Berg, 2025-03-14." for a mail and its attachments: who wrote it is what people remember."""
    sender = doc.metadata.get("from")
    if not sender:
        return ""
    name, address = email.utils.parseaddr(sender)
    who, day = name or address or sender, doc.metadata.get("date", "")[:10]
    if japanese:
        return f"{who}からのメール" + (f"（{day}）" if day else "") + "。"
    return f" Mail from {who}" + (f", {day}" if day else "") + "."


def without_legal_notices(text: str) -> str:
    return "\n\n".join(p for p in _BLANK_LINES.split(text) if not _LEGAL.search(p))


def _limit_words(text: str, max_words: int) -> str:
    words = text.split()
    if len(words) <= max_words:
        return text
    return " ".join(words[:max_words]).rstrip(",;:") + "…"


def _limit_tokens(text: str, max_tokens: int, counter: TokenCounter) -> str:
    """Identifiers cost many word pieces each: keep the whole words that fit in max_tokens pieces."""
    windows = counter.windows(text, max_tokens - 1)  # one piece is kept for the ellipsis
    if len(windows) <= 1:
        return text
    return text[: windows[0][1]].rstrip().rstrip(",;:") + "…"
