"""What the model is asked and may write, and its sentences as they end (core/answering/answer_format.py). The
grammar's use by llama.cpp is tests/end2end/test_answering.py's."""

from __future__ import annotations

import pytest

from desktop_rag.core.answering.answer_format import (NOT_FOUND, SentenceStream, answer_grammar, answer_messages,
                                                      cut_to, pieces, window)


def test_the_passages_are_numbered_in_the_order_given():
    messages = answer_messages("When does the lease end?", [("Lease", "It ends in 2027."), ("Minutes", "Postponed.")])
    assert "[1] Lease\nIt ends in 2027.\n\n[2] Minutes\nPostponed." in messages[1]["content"]
    assert messages[1]["content"].endswith("Question: When does the lease end?")
    assert NOT_FOUND in messages[0]["content"]


def test_the_grammar_names_only_the_passages_given():
    grammar = answer_grammar(3)
    assert '"[" [1-3] "]"' in grammar and grammar.startswith(f'root ::= "{NOT_FOUND}" | sentence')
    with pytest.raises(ValueError):
        answer_grammar(10)


def test_sentences_come_out_as_each_ends_with_its_markers():
    stream = SentenceStream()
    pieces = ["The lease", " ends on 31 March 2027.", " [1]", "[3]", " The rent is 1,200", " EUR. [2]"]
    out = [s for piece in pieces for s in stream.feed(piece)]
    assert [(s.text, s.cites) for s in out] == [("The lease ends on 31 March 2027.", [1, 3])]
    out = list(stream.finish())
    assert [(s.text, s.cites) for s in out] == [("The rent is 1,200 EUR.", [2])]


def test_a_number_with_a_stop_inside_does_not_end_a_sentence():
    stream = SentenceStream()
    out = [s.text for piece in ["It took 3.5 years.", " [1] Done", ". [2]"] for s in stream.feed(piece)]
    assert out == ["It took 3.5 years."]
    assert [s.text for s in stream.finish()] == ["Done."]


def test_not_found_is_said_as_such():
    stream = SentenceStream()
    assert list(stream.feed(NOT_FOUND)) == [] and list(stream.finish()) == [] and stream.not_found


def test_not_found_written_as_a_sentence_is_not_found_too():  # the 0.5B wrote "NOT IN THE FILES. [2]"
    stream = SentenceStream()
    assert list(stream.feed(f"{NOT_FOUND}. [2] ")) == [] and stream.not_found


LONG = " ".join(f"Clause {n} of the lease says nothing of note about the building." for n in range(1, 30))
LONG = LONG.replace("Clause 17 of the lease says nothing of note about the building.",
                    "Clause 17 of the lease ends it on 31 March 2027.")


def test_a_long_passage_is_given_as_the_sentences_around_its_evidence():
    at = LONG.index("Clause 17")
    given = window(LONG, [(at, LONG.index(".", at) + 1)], budget=50)
    assert "Clause 17 of the lease ends it on 31 March 2027." in given
    assert "Clause 16" in given and "Clause 18" in given  # its neighbours, while they fit
    assert given.startswith("… ") and given.endswith(" …") and pieces(given) <= 50 + 2


def test_a_budget_counts_the_word_pieces_a_japanese_character_costs():
    """A Japanese character is ~1.4 characters a piece for the model, English ~4: the same budget gives a
    Japanese passage a third of the characters."""
    japanese = "メイン州は1820年に23番目の州として連邦に加盟した。" * 20
    english = "Maine joined the Union as the 23rd state in 1820. " * 20
    assert pieces(japanese[:100]) > 2 * pieces(english[:100])
    assert len(window(japanese, [(0, 10)], budget=60)) < len(window(english, [(0, 10)], budget=60)) / 2
    assert pieces(cut_to(english, 30)) <= 30 < pieces(cut_to(english, 31) + "Maine")


def test_a_short_passage_is_given_whole():
    assert window("The lease ends in 2027.", [(0, 5)]) == "The lease ends in 2027."
