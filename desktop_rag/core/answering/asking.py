"""A question answered from the files (issue 63), in the order a person sees it: the passages found (the search,
with its filters), the evidence sentences at once, then the model's answer sentence by sentence, each checked
against the passages it cites as it ends. When no passage is a good match ("No good match") the files don't seem to
say, and no model is asked; without a model (none installed, none loadable) the evidence is the answer.

It asks its parts through the callables it is given (the library's search and model, the embedder's meaning), so
the service decides where it runs and who goes first (service/ask_tools.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from desktop_rag.core.answering.answer_format import (PASSAGE_PIECES, SentenceStream, answer_grammar, answer_messages,
                                                      window)
from desktop_rag.core.answering.citations import REPEATS, Verdict, check
from desktop_rag.core.answering.evidence import PER_PASSAGE, SHOWN, EvidenceSentence, Meaning, evidence
from desktop_rag.core.answering.sentences import sentence_spans
from desktop_rag.core.search.highlight import QueryMatch

PASSAGES = 3  # given to the model: fewer distract a 1.5B less, and cost less time (answer_format.PASSAGE_PIECES)
ANSWER_TOKENS = 200  # MOST_SENTENCES short sentences with their markers, and room to end them
NOT_SAID = "Your files don't seem to say."
KNOWN_SENTENCES = 2000  # passage sentences' vectors kept (384 floats each: ~3 MB)


class StreamingModel(Protocol):
    def chat_stream(self, messages: list[dict], max_tokens: int, grammar: str | None = None) -> Iterator[str]: ...


@dataclass
class CheckedSentence:
    text: str
    cites: list[int]  # the passages' numbers (1-based: the hits' order)
    verdict: Verdict
    # The markers the model wrote, where the passages they name do not hold the sentence and another given passage
    # does: `cites` names that one (Asker._check).
    written: list[int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """`match`: its words that the passages it cites hold, for marking them there (core/search/highlight.py)."""
        return {"text": self.text, "cites": self.cites, "supported": self.verdict.supported,
                "missing": list(self.verdict.missing), "reason": self.verdict.reason,
                "match": QueryMatch.of_words(self.text, self.verdict.held).to_dict(), "written": self.written}


@dataclass
class Answer:
    question: str
    hits: list[Any]  # the passages found (core/search/searcher.py Hit), numbered from 1 in this order
    evidence: list[EvidenceSentence] = field(default_factory=list)
    sentences: list[CheckedSentence] = field(default_factory=list)
    not_said: bool = False  # the files don't seem to say (no good match, or the model found nothing)
    without_model: str = ""  # why the evidence alone answers ("" when the model wrote)
    seconds: dict[str, float] = field(default_factory=dict)  # evidence, first_words, whole
    match: QueryMatch | None = None  # the question's words as the search parsed them (marked in the passages)


class Asker:
    def __init__(self, search: Callable[..., Any], meaning: Meaning | None,
                 model: Callable[[], StreamingModel] | None, passage_pieces: float = PASSAGE_PIECES):
        """`search(question, k=…, filters=…)` -> SearchResult; `meaning(question, sentences)`; `model()`: the
        language model, loaded on first use (None, or raising: the evidence alone answers); `passage_pieces`:
        of each passage given to the model, in its word pieces (answer_format.window)."""
        self._search, self._meaning, self._model = search, meaning, model
        self.passage_pieces = passage_pieces

    def ask(self, question: str, filters: Any = None, passages: int = PASSAGES,
            on_evidence: Callable[[Answer], None] = lambda answer: None,
            on_sentence: Callable[[CheckedSentence], None] = lambda sentence: None) -> Answer:
        started = time.monotonic()
        result = self._search(question, k=passages, filters=filters)
        answer = Answer(question, list(result.hits[:passages]), match=getattr(result, "match", None))
        if not answer.hits or result.weak:
            answer.not_said = True
            answer.seconds["evidence"] = time.monotonic() - started
            on_evidence(answer)
            return answer
        scored = evidence(question, answer.hits, self._meaning, shown=passages * PER_PASSAGE)
        answer.evidence = scored[:SHOWN]
        answer.seconds["evidence"] = time.monotonic() - started
        on_evidence(answer)
        model = self._loaded_model(answer)
        if model is None:
            return answer
        given = [(_heading(hit), window(hit.text, [(s.start, s.end) for s in scored if s.passage == n],
                                                self.passage_pieces))
                 for n, hit in enumerate(answer.hits, 1)]
        stream = SentenceStream()
        pieces = model.chat_stream(answer_messages(question, given, self.passage_pieces), ANSWER_TOKENS,
                                   answer_grammar(len(given)))
        for piece in _timed(pieces, answer.seconds, started):
            for sentence in stream.feed(piece):
                self._check(answer, sentence, on_sentence)
        for sentence in stream.finish():
            self._check(answer, sentence, on_sentence)
        answer.not_said = stream.not_found and not answer.sentences
        answer.seconds["whole"] = time.monotonic() - started
        return answer

    def _loaded_model(self, answer: Answer) -> StreamingModel | None:
        if self._model is None:
            answer.without_model = "no language model is set up"
            return None
        try:
            return self._model()
        except Exception as exc:  # noqa: BLE001 — no model file, a model that does not load: the evidence answers
            answer.without_model = str(exc) or type(exc).__name__
            return None

    def _check(self, answer: Answer, sentence: Any, on_sentence: Callable[[CheckedSentence], None]) -> None:
        cites = [n for n in sentence.cites if 1 <= n <= len(answer.hits)]  # a marker naming no passage given: gone
        checked = CheckedSentence(sentence.text, cites, self._verdict(answer, sentence.text, cites))
        if not checked.verdict.supported and checked.verdict.reason != REPEATS:
            # The 1.5B often writes [2] for what [1] says: the passage that holds the sentence is cited instead,
            # checked as any citation, and the marker it wrote kept to show.
            for n in range(1, len(answer.hits) + 1):
                verdict = self._verdict(answer, sentence.text, [n]) if n not in cites else None
                if verdict is not None and verdict.supported:
                    checked = CheckedSentence(sentence.text, [n], verdict, written=list(sentence.cites))
                    break
        answer.sentences.append(checked)
        on_sentence(checked)

    def _verdict(self, answer: Answer, sentence: str, cites: list[int]) -> Verdict:
        cited = [answer.hits[n - 1] for n in cites]
        # As the model was given each passage: under its title (a sentence naming the module the passage is from
        # was refused, "the passages it cites do not hold invoice_tools", the name being in the title alone).
        passages = [f"{_heading(hit)}\n{hit.text}" for hit in cited]
        return check(sentence, passages, self._similarity(sentence, cited), question=answer.question)

    def _similarity(self, sentence: str, cited: list[Any]) -> float | None:
        """The meaning's closeness of `sentence` to the nearest sentence of the passages it cites."""
        if self._meaning is None:
            return None
        theirs = [hit.text[a:b] for hit in cited for a, b in sentence_spans(hit.text)]
        return max(self._meaning(sentence, theirs), default=None) if theirs else None


def _heading(hit: Any) -> str:
    """What a passage is given and checked under: its document's title, else its path."""
    return hit.title or hit.path


def _timed(pieces: Iterator[str], seconds: dict[str, float], started: float) -> Iterator[str]:
    for piece in pieces:
        seconds.setdefault("first_words", time.monotonic() - started)
        yield piece


def meaning_of(embedder: Any) -> Meaning:
    """The embedder's cosine of a question to sentences (its vectors are unit length: a dot product). The passages'
    sentences are embedded once an answer: the evidence step embeds them, each sentence's check reads them again;
    a sentence checked against each passage in turn (a marker moved) is embedded once."""
    known: dict[str, Any] = {}
    asked: dict[str, Any] = {}  # the last question's vector

    def meaning(question: str, sentences: list[str]) -> Sequence[float]:
        new = [s for s in dict.fromkeys(sentences) if s not in known]
        if len(known) + len(new) > KNOWN_SENTENCES:
            known.clear()
            new = list(dict.fromkeys(sentences))
        if new:
            known.update(zip(new, embedder.embed(new)))
        if question not in asked:
            asked.clear()
            asked[question] = embedder.embed_query(question)
        return [float(known[s] @ asked[question]) for s in sentences]

    return meaning


def library_asker(library: Any, passage_pieces: float = PASSAGE_PIECES) -> Asker:
    """An Asker over a library's own parts: its search, its embedder's meaning, its language model."""
    return Asker(lambda question, k, filters: library.search(question, k=k, filters=filters),
                 meaning_of(library.embedder), library.llm_backend, passage_pieces)
