"""A sentence of an answer checked against the passages it cites (core/answering/citations.py)."""

from __future__ import annotations

from desktop_rag.core.answering.citations import check, facts_in, split_markers, stands

LEASE = ("Harbour Office lease. The lease of the Harbour Office runs from 1 April 2024 and ends on 31 March 2027. "
         "The rent is 1,200 EUR a month, paid to Meyer & Söhne by invoice INV-2231.")


def test_markers_are_taken_out_and_named_once():
    cited = split_markers("The lease ends on 31 March 2027 [1][3] [1].")
    assert (cited.text, cited.cites) == ("The lease ends on 31 March 2027.", [1, 3])


def test_the_facts_a_sentence_states_are_found():
    assert facts_in("The rent of 1,200 EUR is paid to Meyer by invoice INV-2231 on 2025-03-14.") == [
        "1,200", "INV-2231", "2025-03-14", "Meyer"]


def test_a_sentence_the_passage_says_is_supported():
    verdict = check("The lease of the Harbour Office ends on 31 March 2027.", [LEASE])
    assert verdict.supported and verdict.missing == ()


def test_a_number_the_passage_lacks_is_caught():
    verdict = check("The lease of the Harbour Office ends on 31 March 2028.", [LEASE])
    assert not verdict.supported and verdict.missing == ("2028",)
    assert "2028" in verdict.reason


def test_an_amount_written_another_way_is_the_same_amount():
    assert check("The rent is 1200 EUR a month.", [LEASE]).supported


def test_a_name_the_passages_lack_is_caught():
    verdict = check("The rent is paid to Schmidt every month.", [LEASE])
    assert not verdict.supported and verdict.missing == ("Schmidt",)


def test_words_the_passages_do_not_hold_are_not_supported_unless_close_in_meaning():
    sentence = "Tenants may keep a dog in the office."
    assert not check(sentence, [LEASE]).supported
    assert check(sentence, [LEASE], similarity=0.95, similar_enough=0.9).supported  # a paraphrase, measured


def test_a_sentence_citing_nothing_given_is_not_supported():
    assert not check("The lease ends in 2027.", []).supported


def test_japanese_facts_are_checked_too():
    passage = "走れメロスは太宰治の短編小説で、1940年に発表された。"
    assert check("走れメロスは1940年に発表された。", [passage]).supported
    assert check("走れメロスは1941年に発表された。", [passage]).missing == ("1941",)


def test_the_words_a_passage_holds_are_named_for_marking_them_there():
    from desktop_rag.core.search.highlight import QueryMatch

    sentence = "The lease of the Harbour Office ends on 31 March 2027."
    verdict = check(sentence, [LEASE])
    marked = [LEASE[a:b] for a, b in QueryMatch.of_words(sentence, verdict.held).spans(LEASE)]
    assert {"lease", "Harbour", "Office", "ends", "31", "March", "2027"} <= set(marked), marked
    assert "rent" not in marked and "invoice" not in marked  # the passage's other words stay unmarked


def test_a_thousands_separator_before_a_japanese_unit_is_the_same_number():
    passage = "太平洋側気候に属し、年間日照時間が2,200時間を超え、全国1位2位を争う。"
    assert check("年間日照時間は2200時間を超える。", [passage]).supported


def test_a_japanese_date_stands_or_falls_whole():
    passage = "試合は2020年6月11日に行われ、観客は9,230人、延長は23分だった。"
    wrong = check("試合は2020年9月23日に行われた。", [passage])
    assert not wrong.supported and wrong.missing == ("2020年9月23日",)
    assert check("試合は2020年6月11日に行われた。", [passage]).supported


def test_a_two_kanji_word_put_otherwise_is_not_a_missing_name():
    passage = "県庁、市役所、および町村役場に企画員という和歌山県独自の職階を置いている。"
    verdict = check("町村役場には企画員という和歌山県独自の役職がある。", [passage])
    assert "役職" not in verdict.missing and "和歌山県" not in verdict.missing


def test_a_sentence_that_only_repeats_a_wh_question_answers_nothing():
    question = "エジプトから東のアフリカ大陸北部地域を征服したイスラムは住民を何人に売りさばいたか。"
    passage = "イスラムはエジプトから東のアフリカ大陸北部地域を征服し、住民をヨーロッパ人に売りさばいた。"
    echo = check("イスラムはエジプトから東のアフリカ大陸北部地域を征服した。", [passage], question=question)
    assert not echo.supported and echo.reason == "it only repeats the question"
    yes = check("The rent is paid by invoice.", ["The rent is paid by invoice INV-2231."],
                question="Is the rent paid by invoice?")
    assert yes.supported  # a yes/no question's answer may say it again


def test_a_verdict_says_whether_the_thresholds_decided_it():
    """Refused for a missing fact: no threshold changes it; refused or standing by its words: the thresholds'."""
    assert not check("The lease of the Harbour Office ends on 31 March 2028.", [LEASE]).weighed
    assert check("The lease of the Harbour Office ends on 31 March 2027.", [LEASE], similarity=0.7).weighed
    assert check("Tenants may keep a dog in the office.", [LEASE], similarity=0.7).similarity == 0.7
    assert stands(0.5, 0.9, supporting_words=0.6, similar_enough=0.85)
    assert not stands(0.5, None, supporting_words=0.6, similar_enough=0.85)


def test_a_name_the_question_names_is_its_subject_not_a_claim_the_passage_must_hold():
    paragraph = "The raise statement raises an exception; without an expression it re-raises the active one."
    question = "What is the purpose of the raise statement in Python?"
    assert check("In Python, the raise statement raises an exception. ", [paragraph], question=question).supported
    assert check("Python's raise statement raises an exception.", [paragraph], question=question).supported
    assert check("In Python, the raise statement raises an exception.", [paragraph]).missing == ("Python",)
    # A number or a code the question names is still a fact the passage must hold.
    assert check("Version 3 raises an exception.", [paragraph], question="What does version 3 raise?").missing
