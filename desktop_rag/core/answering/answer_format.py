"""What the model is asked and what it may write (issue 63): the question with the passages numbered [1]…[k], and
a grammar (llama.cpp's GBNF) that lets it write only short sentences each ending with the numbers of the passages it
stands on — or the words NOT_FOUND when they do not answer. Constraining the output, not asking for it: small
models asked politely drop the markers or cite passages they were not given.

SentenceStream turns the streamed text into sentences as each one ends, so each is checked (citations.py) and shown
while the next is written."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from desktop_rag.core.answering.citations import CitedSentence, split_markers
from desktop_rag.core.answering.sentences import sentence_spans

NOT_FOUND = "NOT IN THE FILES"
MOST_SENTENCES = 4
# Of each passage given, cut around its evidence (window()), counted in the model's word pieces: the first word
# comes ~10 ms a prompt piece after the question on 2 cores (1.5B; JSQuAD prompts of 450–900 pieces, correlation 0.98
# with the first word's seconds). Counted in characters (700 a passage, chosen against 400, 600 and 1,200 on code),
# a Japanese passage came to three times an English one's pieces: JSQuAD's first word 8.8 s away at p95. At 170
# pieces the prompts stay under ~640 at p95 on both sets: the first word 5.8–5.9 s at p95, JSQuAD answered and
# right as often or more, code within a question of it (bench/answers.py, docs/benchmarks.md "Answers").
PASSAGE_PIECES = 170  # ≈ 600 characters of code, ≈ 230 of Japanese
# How a text comes to word pieces, as Qwen2.5's vocabulary cuts it (measured on the retrieval check's sets, estimate
# over true at the 5th/50th/95th percentile: code 0.77/1.20/1.44, English prose 1.06/1.18/1.29, Japanese
# 0.78/0.96/1.13 — where counting characters, 3.9 a piece, gave code 0.59 at the 5th: a symbol-dense passage ran
# 1.7 times over its budget). A Latin word is a piece and another for each 8 letters, up to 3 digits a piece, a
# sign, a line break or a run of indentation a piece each, a Japanese or Chinese character 1/1.37 of one.
WIDE_CHARS_A_PIECE = 1.37
_WIDE = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_PIECE = re.compile(r"([A-Za-z]+)|\d{1,3}|[^\w\s]|\n|[ \t]{2,}")

# Measured on the 1.5B (a lease and minutes, five questions, greedy): 5 of 5 right, each citing its passage; asked
# instead to "answer using only what they say" it cited the wrong passage once. The 0.5B says NOT_FOUND to all five
# with this prompt, and repeats itself with the other: not a model for answers.
_SYSTEM = ("Answer the question from the numbered passages below. Write one to {most} short sentences, each ending "
           "with the numbers of the passages it comes from in square brackets, like [2]. Copy names, numbers and "
           f"dates exactly. Only if no passage says anything about the question, write: {NOT_FOUND}")


def pieces(text: str) -> float:
    """The model's word pieces `text` comes to, estimated from its characters (no tokenizer at hand: the model may
    be in its child process or on a server)."""
    narrow, wide = _WIDE.subn("", text)
    return wide / WIDE_CHARS_A_PIECE + sum(1 + len(m.group(1) or "") // 8 for m in _PIECE.finditer(narrow))


def cut_to(text: str, budget: float) -> str:
    """The start of `text` within `budget` pieces."""
    if pieces(text) <= budget:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest start within the budget
        middle = (low + high + 1) // 2
        low, high = (middle, high) if pieces(text[:middle]) <= budget else (low, middle - 1)
    return text[:low]


def answer_messages(question: str, passages: Sequence[tuple[str, str]],
                    passage_pieces: float = PASSAGE_PIECES) -> list[dict]:
    """The chat for `question` over `passages` ((title, text) each, numbered from 1 in this order)."""
    numbered = "\n\n".join(f"[{n}] {title}\n{cut_to(text, passage_pieces)}".strip()
                           for n, (title, text) in enumerate(passages, 1))
    return [{"role": "system", "content": _SYSTEM.format(most=MOST_SENTENCES)},
            {"role": "user", "content": f"Passages:\n\n{numbered}\n\nQuestion: {question}"}]


def answer_grammar(passages: int, most: int = MOST_SENTENCES) -> str:
    """GBNF: NOT_FOUND, or 1–`most` sentences, each ending with markers naming passages 1…`passages` (at most 9).
    A sentence's words hold no brackets or line breaks; a stop inside a number ("3.5") or an abbreviation is
    allowed where a letter or digit follows it."""
    if not 1 <= passages <= 9:
        raise ValueError("an answer cites 1 to 9 passages")
    numbers = f"[1-{passages}]"
    sentence_rules = " ".join(['sentence'] + ['(" " sentence)?'] * (most - 1))
    return "\n".join([
        f'root ::= "{NOT_FOUND}" | {sentence_rules}',
        'sentence ::= words end marks',
        r'words ::= [^\[\]\n.!?。！？ ] ([^\[\]\n.!?。！？] | "." [0-9A-Za-z])*',
        r'end ::= [.!?。！？]',
        f'marks ::= " "? "[" {numbers} "]" ("[" {numbers} "]")?',
    ])


def window(text: str, around: Sequence[tuple[int, int]], budget: float = PASSAGE_PIECES) -> str:
    """The passage as the model is given it: whole sentences around the spans `around` (its evidence sentences,
    best first), growing outwards until `budget` word pieces, "…" where it was cut. The 1.5B reads ~100 pieces a
    second on 2 cores: five whole passages would keep the first word ~22 s away (docs/answers.md)."""
    spans = sentence_spans(text)
    if pieces(text) <= budget or not spans:
        return cut_to(text, budget)
    cost = [pieces(text[a:b]) for a, b in spans]
    chosen: set[int] = set()
    size = 0.0
    for start, end in around or spans[:1]:
        for i, (a, b) in enumerate(spans):
            if a < end and start < b and i not in chosen and size + cost[i] <= budget:
                chosen.add(i)
                size += cost[i]
    grown = True
    while grown:  # neighbours of what is chosen, nearest first, while they fit
        grown = False
        for i in sorted(chosen):
            for j in (i - 1, i + 1):
                if 0 <= j < len(spans) and j not in chosen and size + cost[j] <= budget:
                    chosen.add(j)
                    size += cost[j]
                    grown = True
    if not chosen:
        return cut_to(text, budget)
    parts, last = [], None
    for i in sorted(chosen):
        if last is not None and i != last + 1:
            parts.append("…")
        parts.append(text[spans[i][0]:spans[i][1]])
        last = i
    lead = "… " if min(chosen) > 0 else ""
    tail = " …" if max(chosen) < len(spans) - 1 else ""
    return lead + " ".join(parts) + tail


_SENTENCE_DONE = re.compile(r"^(.*?[.!?。！？]\s?(?:\[\d\])+)\s*", re.DOTALL)


class SentenceStream:
    """Pieces of the model's text in, each sentence out once its markers are written."""

    def __init__(self) -> None:
        self._text = ""
        self.not_found = False

    def feed(self, piece: str) -> Iterator[CitedSentence]:
        self._text += piece
        while (match := _SENTENCE_DONE.match(self._text)) is not None:
            next_char = self._text[match.end(1):match.end(1) + 1]
            if next_char == "[" or (match.end(1) == len(self._text)):  # more markers may follow: wait
                break
            self._text = self._text[match.end():]
            yield from self._said(split_markers(match.group(1)))

    def finish(self) -> Iterator[CitedSentence]:
        """What is left when the model stops: a last sentence (with or without its markers)."""
        rest, self._text = self._text.strip(), ""
        if rest:
            yield from self._said(split_markers(rest))

    def _said(self, sentence: CitedSentence) -> Iterator[CitedSentence]:
        """A sentence, unless it is NOT_FOUND written as one ("NOT IN THE FILES. [2]": the grammar's words allow it)."""
        if sentence.text.rstrip(".!?。 ") == NOT_FOUND:
            self.not_found = True
        else:
            yield sentence
