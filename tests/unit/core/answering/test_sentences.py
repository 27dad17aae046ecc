"""A passage's sentences and their spans (core/answering/sentences.py)."""

from __future__ import annotations

from desktop_rag.core.answering.sentences import sentence_spans


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def test_english_sentences_end_at_their_stops_not_inside_numbers_or_abbreviations():
    text = ("The lease of the Harbour Office ends on 31 March 2027. Dr. Ito signed it for 3.5 years, e.g. until "
            "then! Was rent paid? Yes, in full.")
    assert sentences(text) == ["The lease of the Harbour Office ends on 31 March 2027.",
                               "Dr. Ito signed it for 3.5 years, e.g. until then!", "Was rent paid?", "Yes, in full."]


def test_japanese_sentences_end_without_a_space():
    assert sentences("走れメロスは太宰治の短編小説である。1940年に発表された。「友情」が主題だ。") == [
        "走れメロスは太宰治の短編小説である。", "1940年に発表された。「友情」が主題だ。"]  # the last under 12 chars: joined


def test_lines_are_sentences_and_spans_point_into_the_text():
    text = "  Invoice 2231\n- boiler service: 180.00 EUR\n- parts: 42.50 EUR\n\nPaid on 2025-03-14.  "
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["Invoice 2231", "- boiler service: 180.00 EUR", "- parts: 42.50 EUR",
                                              "Paid on 2025-03-14."]
    assert all(text[a:b] == text[a:b].strip() for a, b in spans)


def test_a_piece_too_short_to_stand_alone_is_joined_and_nothing_is_lost():
    text = "Short. Also short. A longer sentence here."
    assert sentences(text) == ["Short. Also short.", "A longer sentence here."]
    assert "".join(text[a:b] for a, b in sentence_spans(text)).replace(" ", "") == text.replace(" ", "")
