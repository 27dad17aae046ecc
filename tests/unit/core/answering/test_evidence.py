"""The evidence sentences, before the model (core/answering/evidence.py)."""

from __future__ import annotations

from dataclasses import dataclass

from desktop_rag.core.answering.evidence import evidence


@dataclass
class PassageStub:  # a hit's fields evidence reads
    chunk_id: int
    path: str
    title: str | None
    text: str


LEASE = PassageStub(7, "/home/ann/lease.pdf", "Harbour Office lease",
                    "The Harbour Office is on the second floor. The lease of the Harbour Office ends on 31 March "
                    "2027. Keys are kept by the caretaker.")
MINUTES = PassageStub(9, "/home/ann/minutes.md", "Board minutes",
                      "The board met on Tuesday. Renewing the Harbour Office lease was postponed to next year.")


def test_the_sentence_that_answers_comes_first_with_its_passage_and_span():
    found = evidence("When does the Harbour Office lease end?", [LEASE, MINUTES])
    best = found[0]
    assert best.text == "The lease of the Harbour Office ends on 31 March 2027."
    assert (best.passage, best.chunk_id, best.path) == (1, 7, "/home/ann/lease.pdf")
    assert LEASE.text[best.start:best.end] == best.text
    assert [s.score for s in found] == sorted((s.score for s in found), reverse=True)


def test_one_passage_gives_at_most_two_sentences():
    long = PassageStub(1, "/a.txt", None, " ".join(f"The lease clause {n} mentions the lease." for n in range(9)))
    found = evidence("lease clause", [long, MINUTES], shown=3)
    assert [s.passage for s in found].count(1) == 2 and found[-1].passage == 2


def test_meaning_given_by_the_caller_weighs_in():
    def meaning_fake(question, sentences):  # a fake embedder: the caretaker sentence is the closest in meaning
        return [1.0 if "caretaker" in s else 0.0 for s in sentences]

    found = evidence("who lets people in", [LEASE], meaning=meaning_fake)  # no word in common
    assert found[0].text == "Keys are kept by the caretaker."


def test_no_passages_no_evidence():
    assert evidence("anything", []) == []
