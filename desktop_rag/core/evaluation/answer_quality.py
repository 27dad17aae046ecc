"""Answers measured like retrieval (issue 63): a pre-chunked set indexed as `desktop-rag eval` indexes it, each of
its questions asked as a person asks (core/answering/asking.py: the search, the evidence, the model under the answer
grammar, every sentence checked), and questions the set does not hold asked too.

What is counted, per question:
- relevant given: a passage holding the answer (as citations are judged) was among those the model was given — what
  the search left the model to work with;
- answered: the model wrote a sentence shown as found in the files (a supported one);
- right (answerable questions): JSQuAD-like sets, whose reference is a short span: the span, NFKC and without
  spaces (a part in brackets may be left out), is in the supported sentences; code sets, whose reference is a
  paragraph: a supported sentence cites a passage the set marks relevant (qrels) — a judgement, since a
  paraphrase of a long answer cannot be matched by its words;
- citation precision: of the supported sentences' citations, the share naming a passage that holds the support —
  a relevant passage (qrels), or for a span set any passage holding the span (a strict lower bound on code sets:
  the same function quoted in another file counts wrong);
- sentences not found in the files: the share of the model's sentences the checks refused;
- abstention: unanswerable questions answered "Your files don't seem to say" (right), answerable ones (wrong);
- seconds to the evidence, to the first word, to the whole answer.

The baseline (`baseline=True`): the same model given the same top passages whole, asked plainly — no numbered
format, no grammar, no checks, no evidence step — to show what the design adds; only what can be judged without
citations is counted there (the span in the answer, abstention by its words, the times)."""

from __future__ import annotations

import json
import re
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from desktop_rag.config import Settings
from desktop_rag.core.answering.answer_format import PASSAGE_PIECES
from desktop_rag.core.answering.asking import PASSAGES, Asker, library_asker
from desktop_rag.core.answering.citations import stands
from desktop_rag.core.evaluation.evaluation import Dataset, IndexedDataset

BASELINE_TOKENS = 200
BASELINE_PROMPT = ("Answer the question using the passages below. If they do not answer it, say you don't know.\n\n"
                   "{passages}\n\nQuestion: {question}")
# How a plain answer says it does not know (the baseline has no NOT IN THE FILES to write).
_DOES_NOT_KNOW = re.compile(r"don'?t know|do not know|not (?:mentioned|provided|stated|specified|contain)"
                            r"|no information|わかりません|分かりません|不明|記載されていません|含まれていません",
                            re.IGNORECASE)


@dataclass(frozen=True)
class WeighedSentence:
    """A sentence whose verdict the thresholds decide (citations.Verdict.weighed), kept to judge it again at others."""
    text: str
    words_held: float
    similarity: float | None
    citations: int
    citations_right: int


@dataclass
class AnswerRow:
    query_id: str
    answerable: bool
    answered: bool
    right: bool | None  # None: unanswerable
    citations: int  # citations of supported sentences
    citations_right: int
    sentences: int
    sentences_refused: int
    seconds: dict[str, float] = field(default_factory=dict)
    said: str = ""
    refused: list[str] = field(default_factory=list)  # "sentence — why", for reading what the checks refused
    weighed: list[WeighedSentence] = field(default_factory=list)
    gold: str = ""
    relevant_given: bool = False  # a passage holding the answer was among those the model was given

    def at(self, supporting_words: float, similar_enough: float) -> AnswerRow:
        """This question as its answer would be judged at these thresholds (the sentences refused for a missing
        fact or as the question repeated stay refused: no threshold lets them through)."""
        standing = [s for s in self.weighed if stands(s.words_held, s.similarity, supporting_words, similar_enough)]
        said = " ".join(s.text for s in standing)
        citations_right = sum(s.citations_right for s in standing)
        right = _right(self.gold, said, citations_right, bool(standing)) if self.answerable else None
        return AnswerRow(self.query_id, self.answerable, bool(standing), right, sum(s.citations for s in standing),
                         citations_right, self.sentences, self.sentences - len(standing), self.seconds, said,
                         gold=self.gold, relevant_given=self.relevant_given)


@dataclass
class AnswersReport:
    dataset: str
    model: str
    baseline: bool
    rows: list[AnswerRow]

    def at(self, supporting_words: float, similar_enough: float) -> AnswersReport:
        return AnswersReport(self.dataset, self.model, self.baseline,
                             [r.at(supporting_words, similar_enough) for r in self.rows])

    def figures(self) -> dict[str, float | int | None]:
        answerable = [r for r in self.rows if r.answerable]
        answered = [r for r in answerable if r.answered]
        unanswerable = [r for r in self.rows if not r.answerable]
        citations = sum(r.citations for r in answered)
        judged = any(r.right is not None for r in answerable)  # a plain answer to a code question: not judged
        sentences = sum(r.sentences for r in self.rows)

        def share(part: int, whole: int) -> float | None:
            return round(100 * part / whole, 1) if whole else None

        def p(name: str, q: float) -> float | None:
            values = sorted(r.seconds[name] for r in self.rows if name in r.seconds)
            if not values:
                return None
            return round(values[min(len(values) - 1, int(q * len(values)))], 2)

        return {
            "questions": len(answerable), "unanswerable": len(unanswerable),
            "relevant given %": None if self.baseline else share(sum(r.relevant_given for r in answerable),
                                                                 len(answerable)),
            "answered %": share(len(answered), len(answerable)),
            "right of answered %": share(sum(bool(r.right) for r in answered), len(answered)) if judged else None,
            "right of all %": share(sum(bool(r.right) for r in answerable), len(answerable)) if judged else None,
            "citation precision %": share(sum(r.citations_right for r in answered), citations),
            "sentences refused %": share(sum(r.sentences_refused for r in self.rows), sentences),
            "abstained right %": share(sum(not r.answered for r in unanswerable), len(unanswerable)),
            "abstained wrong %": share(len(answerable) - len(answered), len(answerable)),
            "evidence p95 s": p("evidence", 0.95), "first words p50 s": p("first_words", 0.5),
            "first words p95 s": p("first_words", 0.95), "whole p50 s": p("whole", 0.5),
            "whole p95 s": p("whole", 0.95),
        }


def flat(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def holds_span(said: str, gold: str) -> bool:
    """The reference span in the answer (NFKC, case and spaces aside); a span's part in brackets may be left out
    (JSQuAD: "パラメトリック（Parametric）" is answered by "パラメトリック")."""
    bare = re.sub(r"[（(][^）)]*[）)]", "", gold).strip()
    return flat(gold) in flat(said) or (bool(bare) and flat(bare) in flat(said))


def load_unanswerable(path: Path) -> list[str]:
    return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluate_answers(dataset: Dataset, unanswerable: list[str], settings: Settings, baseline: bool = False,
                     log: TextIO | None = None, passages: int = PASSAGES,
                     passage_pieces: float = PASSAGE_PIECES) -> AnswersReport:
    indexed = IndexedDataset(dataset, "rules", settings, log)
    try:
        library = indexed.library
        asker = library_asker(library, passage_pieces)
        model = library.llm_backend() if baseline else None
        names = indexed.chunk_names
        asked = [(q, True) for q in dataset.queries] + [({"_id": f"u{n}", "text": text}, False)
                                                           for n, text in enumerate(unanswerable)]
        rows = []
        for number, (query, answerable) in enumerate(asked, 1):
            if baseline:
                row = _baseline_row(library, model, query, answerable, passages)
            else:
                row = _asked_row(asker, query, answerable, dataset, names, passages)
            rows.append(row)
            if log:
                seconds = {name: round(row.seconds.get(name, 0), 1) for name in ("first_words", "whole")}
                log.write(f"  {number}/{len(asked)} {query['_id']}: {'right' if row.right else row.right} "
                          f"{seconds} {row.said[:80]!r}\n")
                log.writelines(f"    refused: {why}\n" for why in row.refused)
                log.flush()
        return AnswersReport(dataset.name, settings.llm_model, baseline, rows)
    finally:
        indexed.close()


def _relevant(dataset: Dataset, query: dict[str, Any], name: str, text: str) -> bool:
    if name in dataset.qrels.get(query["_id"], ()):
        return True
    gold = query.get("answer") or ""
    return _is_span(gold) and holds_span(text, gold)  # judged as the answer is, so both count the same passages


def _is_span(gold: str) -> bool:
    """A short reference (JSQuAD's spans), not a paragraph (the code set's answers)."""
    return 0 < len(gold) <= 40


def _asked_row(asker: Asker, query: dict[str, Any], answerable: bool, dataset: Dataset,
               names: dict[int, str], passages: int = PASSAGES) -> AnswerRow:
    answer = asker.ask(query["text"], passages=passages)
    relevant = [_relevant(dataset, query, names.get(hit.chunk_id, ""), hit.text) for hit in answer.hits]
    supported = [s for s in answer.sentences if s.verdict.supported]
    citations = sum(len(s.cites) for s in supported)
    citations_right = sum(relevant[n - 1] for s in supported for n in s.cites)
    said = " ".join(s.text for s in supported)
    gold = query.get("answer") or ""
    right = _right(gold, said, citations_right, bool(supported)) if answerable else None
    weighed = [WeighedSentence(s.text, s.verdict.words_held, s.verdict.similarity, len(s.cites),
                               sum(relevant[n - 1] for n in s.cites))
               for s in answer.sentences if s.verdict.weighed]
    refused = [f"{s.text} {s.cites} — {s.verdict.reason} (words held {s.verdict.words_held:.2f}, meaning "
               f"{'—' if s.verdict.similarity is None else round(s.verdict.similarity, 2)})"
               for s in answer.sentences if not s.verdict.supported]
    return AnswerRow(query["_id"], answerable, bool(supported), right, citations, citations_right,
                     len(answer.sentences), len(answer.sentences) - len(supported), dict(answer.seconds), said,
                     refused, weighed, gold, any(relevant))


def _right(gold: str, said: str, citations_right: int, answered: bool) -> bool:
    """An answerable question answered rightly: its span said (span sets), a relevant passage cited (code sets)."""
    if not answered:
        return False
    return holds_span(said, gold) if _is_span(gold) else citations_right > 0


def _baseline_row(library: Any, model: Any, query: dict[str, Any], answerable: bool, passages: int) -> AnswerRow:
    started = time.monotonic()
    hits = library.search(query["text"], k=passages).hits
    given = "\n\n".join(f"{hit.title or hit.path}:\n{hit.text}" for hit in hits)
    messages = [{"role": "user", "content": BASELINE_PROMPT.format(passages=given, question=query["text"])}]
    seconds: dict[str, float] = {}
    pieces = []
    for piece in model.chat_stream(messages, BASELINE_TOKENS):
        seconds.setdefault("first_words", time.monotonic() - started)
        pieces.append(piece)
    seconds["whole"] = time.monotonic() - started
    said = "".join(pieces).strip()
    answered = bool(said) and not _DOES_NOT_KNOW.search(said)
    gold = query.get("answer") or ""
    right = (holds_span(said, gold) if _is_span(gold) else None) if answerable else None
    return AnswerRow(query["_id"], answerable, answered, right, 0, 0, 0, 0, seconds, said)


def print_answers_table(reports: list[AnswersReport], out: TextIO) -> None:
    columns = list(reports[0].figures())
    out.write("| set | asked | " + " | ".join(columns) + " |\n")
    out.write("|---|---|" + "---:|" * len(columns) + "\n")
    for report in reports:
        figures = report.figures()
        shown = ["—" if figures[c] is None else str(figures[c]) for c in columns]
        how = "plain baseline" if report.baseline else "answer format, checks"
        out.write(f"| {report.dataset} | {how} | " + " | ".join(shown) + " |\n")
