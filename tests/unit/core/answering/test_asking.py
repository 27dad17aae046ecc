"""A question answered in the order a person sees it (core/answering/asking.py), its parts given as fakes: the
orchestration alone (the real model and search: tests/end2end/test_answering.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_rag.core.answering.asking import Asker, meaning_of
from fake_models import HitFake


@dataclass
class SearchResultFake:
    hits: list
    weak: bool = False
    asked: list = field(default_factory=list)


LEASE = HitFake(7, "/lease.pdf", "Lease", "The lease of the Harbour Office ends on 31 March 2027. Keys: Mr Albers.")
MINUTES = HitFake(9, "/minutes.md", "Minutes", "The board met on 11 February 2025 and postponed the renewal.")


def search_fake(result):
    def search(question, k, filters):
        result.asked.append((question, k, filters))
        return result
    return search


class ModelFake:
    """Streams a fixed answer in pieces, and notes what it was asked."""

    def __init__(self, pieces):
        self.pieces, self.asked = pieces, []

    def chat_stream(self, messages, max_tokens, grammar=None):
        self.asked.append((messages, grammar))
        yield from self.pieces


def test_no_good_match_says_so_without_asking_the_model():
    model = ModelFake(["never"])
    answer = Asker(search_fake(SearchResultFake([LEASE], weak=True)), None, lambda: model).ask("boiler colour?")
    assert answer.not_said and answer.sentences == [] and model.asked == []


def test_evidence_comes_first_then_each_sentence_checked_as_it_ends():
    seen = []
    model = ModelFake(["The lease ends on 31 March 2027.", " [1]", " It was renewed in 2026.", " [2]"])
    asker = Asker(search_fake(SearchResultFake([LEASE, MINUTES])), None, lambda: model)
    answer = asker.ask("When does the Harbour Office lease end?",
                       on_evidence=lambda a: seen.append(("evidence", a.evidence[0].text)),
                       on_sentence=lambda s: seen.append(("sentence", s.text, s.verdict.supported)))
    assert seen == [("evidence", "The lease of the Harbour Office ends on 31 March 2027."),
                    ("sentence", "The lease ends on 31 March 2027.", True),
                    ("sentence", "It was renewed in 2026.", False)]  # 2026: not in the minutes
    messages, grammar = model.asked[0]
    assert "[2] Minutes" in messages[1]["content"] and "[1-2]" in grammar
    assert set(answer.seconds) == {"evidence", "first_words", "whole"}


def test_a_marker_naming_no_passage_given_is_taken_out():
    model = ModelFake(["The board sold the building in 2019. [3]"])  # a model without the grammar might write it
    answer = Asker(search_fake(SearchResultFake([LEASE, MINUTES])), None, lambda: model).ask("lease end?")
    assert answer.sentences[0].cites == [] and not answer.sentences[0].verdict.supported


def test_a_sentence_citing_the_wrong_passage_cites_the_one_given_that_holds_it():
    model = ModelFake(["The lease of the Harbour Office ends on 31 March 2027. [2]",
                       " The board met on 11 February 2025. [3]", " The rent is 900 EUR. [1]"])
    answer = Asker(search_fake(SearchResultFake([LEASE, MINUTES])), None, lambda: model).ask("lease end?")
    moved, unmarked, unheld = answer.sentences
    assert (moved.cites, moved.written, moved.verdict.supported) == ([1], [2], True)
    assert (unmarked.cites, unmarked.written, unmarked.verdict.supported) == ([2], [3], True)
    assert (unheld.cites, unheld.written, unheld.verdict.supported) == ([1], None, False)  # no passage holds 900
    assert moved.to_dict()["written"] == [2]


def test_without_a_model_the_evidence_answers():
    def no_model():
        raise FileNotFoundError("no model file at /models/x.gguf")

    answer = Asker(search_fake(SearchResultFake([LEASE])), None, no_model).ask("When does the lease end?")
    assert answer.evidence and answer.sentences == [] and "no model file" in answer.without_model
    assert not answer.not_said


def test_a_sentence_is_checked_against_its_passage_with_the_title_it_was_given_under():
    tools = HitFake(3, "/src/invoice_tools.py", "invoice_tools.py",
                    "def late_payment_interest(amount, days):\n    return amount * 0.0005 * days  # 0.05% a day")
    model = ModelFake(["Interest is 0.05% a day, as late_payment_interest in invoice_tools says. [1]"])
    answer = Asker(search_fake(SearchResultFake([tools])), None, lambda: model).ask("What is the late interest?")
    assert answer.sentences[0].verdict.supported, answer.sentences[0].verdict.reason


def test_each_sentence_is_weighed_by_its_meaning_against_the_sentences_of_the_passages_it_cites():
    asked = []

    def meaning_fake(sentence, sentences):
        asked.append((sentence, sentences))
        return [0.3 if "Keys" in s else 0.8 for s in sentences]

    model = ModelFake(["The Harbour Office lease ends on 31 March 2027. [1]"])
    answer = Asker(search_fake(SearchResultFake([LEASE, MINUTES])), meaning_fake, lambda: model).ask("Lease end?")
    assert answer.sentences[0].verdict.similarity == 0.8
    assert asked[-1] == ("The Harbour Office lease ends on 31 March 2027.",
                         ["The lease of the Harbour Office ends on 31 March 2027.", "Keys: Mr Albers."])


class EmbedderFake:
    """Unit vectors by a sentence's first letter; notes what it was asked to embed."""

    def __init__(self):
        self.embedded, self.queried = [], []

    def _vector(self, text):
        import numpy as np

        vector = np.zeros(26)
        vector[(ord(text[0].lower()) - ord("a")) % 26] = 1.0
        return vector

    def embed(self, texts):
        import numpy as np

        self.embedded += texts
        return np.array([self._vector(t) for t in texts])

    def embed_query(self, text):
        self.queried.append(text)
        return self._vector(text)


def test_the_passages_sentences_are_embedded_once_for_the_evidence_and_every_check():
    embedder = EmbedderFake()
    meaning = meaning_of(embedder)
    assert list(meaning("keys?", ["Keys: Mr Albers.", "The lease ends."])) == [1.0, 0.0]
    assert list(meaning("The rent.", ["The lease ends.", "Keys: Mr Albers."])) == [1.0, 0.0]
    assert embedder.embedded == ["Keys: Mr Albers.", "The lease ends."]
    assert list(meaning("The rent.", ["Keys: Mr Albers."])) == [0.0]  # the same sentence against another passage
    assert embedder.queried == ["keys?", "The rent."]
