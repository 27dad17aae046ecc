"""How answers are counted (core/evaluation/answer_quality.py): right by the reference span or by a relevant citation,
citation precision over supported sentences only, abstention, and the figures' shares. The answers come from a
fake asker (named so): asking the real model is tests/end2end/test_answer_check.py's."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_rag.core.answering.asking import Answer, CheckedSentence
from desktop_rag.core.answering.citations import Verdict
from desktop_rag.core.evaluation.answer_quality import AnswerRow, AnswersReport, _asked_row, _DOES_NOT_KNOW
from desktop_rag.core.evaluation.evaluation import Dataset


@dataclass
class HitFake:
    chunk_id: int
    text: str


@dataclass
class AskerFake:
    sentences: list[tuple[str, list[int], bool]]
    hits: list[HitFake] = field(default_factory=lambda: [HitFake(1, "東京は日本の首都である。"),
                                                         HitFake(2, "大阪は西日本の中心である。")])

    def ask(self, question, passages=5):
        answer = Answer(question, self.hits)
        answer.sentences = [CheckedSentence(text, cites, Verdict(ok)) for text, cites, ok in self.sentences]
        answer.seconds = {"evidence": 0.1, "first_words": 2.0, "whole": 4.0}
        return answer


SET = Dataset("set", [], [], [], {"q1": {"d:0"}})
NAMES = {1: "d:0", 2: "d:1"}


def test_a_span_in_a_supported_sentence_is_right_and_its_citation_precise():
    row = _asked_row(AskerFake([("首都は東京です。", [1], True), ("大阪です。", [2], False)]),
                     {"_id": "q1", "text": "日本の首都は？", "answer": "東京"}, True, SET, NAMES)
    assert row.answered and row.right and (row.citations, row.citations_right) == (1, 1) and row.relevant_given
    assert (row.sentences, row.sentences_refused) == (2, 1)  # the refused one counts neither way in precision


def test_a_cited_passage_holding_the_span_without_its_bracketed_part_is_a_right_citation():
    """Another passage than the reference one, holding "パラメトリック" where the span is "パラメトリック（Parametric）":
    right for the answer, so right for the citation too."""
    asker = AskerFake([("パラメトリックです。", [2], True)],
                      hits=[HitFake(1, "無関係。"), HitFake(2, "これはパラメトリック設計の例である。")])
    row = _asked_row(asker, {"_id": "q1", "text": "?", "answer": "パラメトリック（Parametric）"}, True, SET, NAMES)
    assert row.right and (row.citations, row.citations_right) == (1, 1)


def test_a_span_only_in_a_refused_sentence_is_not_right():
    row = _asked_row(AskerFake([("首都は東京です。", [2], False)]), {"_id": "q1", "text": "?", "answer": "東京"},
                     True, SET, NAMES)
    assert not row.answered and row.right is False


def test_a_long_reference_is_judged_by_a_relevant_citation():
    long_answer = "The struct wraps two executors and runs the secondary one after the primary, for differential fuzzing."
    cites_other = _asked_row(AskerFake([("It wraps two executors.", [2], True)]),
                             {"_id": "q1", "text": "?", "answer": long_answer}, True, SET, NAMES)
    cites_relevant = _asked_row(AskerFake([("It wraps two executors.", [1], True)]),
                                {"_id": "q1", "text": "?", "answer": long_answer}, True, SET, NAMES)
    assert cites_other.right is False and cites_other.citations_right == 0 and cites_other.relevant_given
    given_other = _asked_row(AskerFake([("It wraps two executors.", [1], True)], hits=[HitFake(2, "Osaka.")]),
                             {"_id": "q1", "text": "?", "answer": long_answer}, True, SET, NAMES)
    assert not given_other.relevant_given
    assert cites_relevant.right is True


def test_the_figures_count_answered_abstention_and_times():
    rows = [AnswerRow("q1", True, True, True, 2, 2, 2, 0, {"first_words": 2.0, "whole": 5.0}),
            AnswerRow("q2", True, True, False, 1, 0, 1, 0, {"first_words": 3.0, "whole": 9.0}),
            AnswerRow("q3", True, False, False, 0, 0, 0, 0, {"evidence": 0.2}),
            AnswerRow("u1", False, False, None, 0, 0, 0, 0, {"evidence": 0.1}),
            AnswerRow("u2", False, True, None, 1, 0, 1, 1, {"whole": 4.0})]
    figures = AnswersReport("set", "m", False, rows).figures()
    assert figures["answered %"] == 66.7 and figures["right of answered %"] == 50.0
    assert figures["citation precision %"] == 66.7 and figures["abstained right %"] == 50.0
    assert figures["relevant given %"] == 0.0 and figures["abstained wrong %"] == 33.3 and figures["whole p95 s"] == 9.0 and figures["sentences refused %"] == 25.0


def test_a_plain_answer_that_does_not_know_is_an_abstention():
    assert _DOES_NOT_KNOW.search("The passages do not contain information about the boiler.")
    assert _DOES_NOT_KNOW.search("申し訳ありませんが、わかりません。")
    assert not _DOES_NOT_KNOW.search("The lease ends on 31 March 2027.")


def test_an_answer_is_judged_again_at_other_thresholds_as_the_check_would_judge_it():
    """A sentence held by its words at 0.5 and close in meaning at 0.9: refused at 0.6 of its words with the meaning
    off, standing at 0.5 or by a meaning threshold of 0.85; a sentence refused for a missing fact stays refused."""
    asker = AskerFake([])
    answer = asker.ask("?")
    answer.sentences = [CheckedSentence("首都は東京です。", [1], Verdict(False, words_held=0.5, similarity=0.9,
                                                                    weighed=True)),
                        CheckedSentence("大阪は1999年です。", [2], Verdict(False, ("1999",)))]
    asker.ask = lambda question, passages=5: answer  # type: ignore[method-assign]
    row = _asked_row(asker, {"_id": "q1", "text": "?", "answer": "東京"}, True, SET, NAMES)
    assert not row.answered and len(row.weighed) == 1
    assert not row.at(0.6, 1.01).answered
    assert row.at(0.5, 1.01).right and row.at(0.6, 0.85).right
    assert row.at(0.5, 1.01).citations_right == 1 and row.at(0.5, 1.01).sentences_refused == 1
    report = AnswersReport("set", "m", False, [row]).at(0.5, 1.01)
    assert report.figures()["answered %"] == 100.0
