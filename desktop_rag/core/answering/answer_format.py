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
# Of each passage given, cut around its evidence (window()). Measured with PASSAGES (bench/answers.py, 16 questions
# of each set, 2 cores, docs/benchmarks.md "Answers"): 5 passages of 1,200 characters kept the first word 14 s away
# on code (p50); 5 of 400 brought it to 3.6 s but cut functions out (answered 50 % → 38 %); 3 of 700 answered as
# many as 5 of 1,200, as rightly, with the first word 3.7 s away — and on JSQuAD better on every count.
PASSAGE_CHARS = 700

# Measured on the 1.5B (a lease and minutes, five questions, greedy): 5 of 5 right, each citing its passage; asked
# instead to "answer using only what they say" it cited the wrong passage once. The 0.5B says NOT_FOUND to all five
# with this prompt, and repeats itself with the other: not a model for answers.
_SYSTEM = ("Answer the question from the numbered passages below. Write one to {most} short sentences, each ending "
           "with the numbers of the passages it comes from in square brackets, like [2]. Copy names, numbers and "
           f"dates exactly. Only if no passage says anything about the question, write: {NOT_FOUND}")


def answer_messages(question: str, passages: Sequence[tuple[str, str]],
                    passage_chars: int = PASSAGE_CHARS) -> list[dict]:
    """The chat for `question` over `passages` ((title, text) each, numbered from 1 in this order)."""
    numbered = "\n\n".join(f"[{n}] {title}\n{text[:passage_chars]}".strip()
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


def window(text: str, around: Sequence[tuple[int, int]], budget: int = PASSAGE_CHARS) -> str:
    """The passage as the model is given it: whole sentences around the spans `around` (its evidence sentences,
    best first), growing outwards until `budget` characters, "…" where it was cut. The 1.5B computes ~68 word
    pieces a second on 2 cores: five whole passages would keep the first word ~22 s away (docs/answers.md)."""
    spans = sentence_spans(text)
    if len(text) <= budget or not spans:
        return text[:budget]
    chosen: set[int] = set()
    size = 0
    for start, end in around or spans[:1]:
        for i, (a, b) in enumerate(spans):
            if a < end and start < b and i not in chosen and size + (b - a) <= budget:
                chosen.add(i)
                size += b - a + 1
    grown = True
    while grown:  # neighbours of what is chosen, nearest first, while they fit
        grown = False
        for i in sorted(chosen):
            for j in (i - 1, i + 1):
                if 0 <= j < len(spans) and j not in chosen and size + spans[j][1] - spans[j][0] <= budget:
                    chosen.add(j)
                    size += spans[j][1] - spans[j][0] + 1
                    grown = True
    if not chosen:
        return text[:budget]
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
