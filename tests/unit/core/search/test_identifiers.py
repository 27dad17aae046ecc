from desktop_rag.core.search.identifiers import identifiers_in, lift_exact_identifiers
from desktop_rag.core.search.tuning import EXACT_IDENTIFIER_WEIGHT


def test_words_copied_from_code_are_told_from_plain_words():
    query = "How does DiffExecutor call run_target, issue92() and log4cxx::helpers at 0x1F? Plain Words 12"
    assert identifiers_in(query) == ["DiffExecutor", "run_target", "issue92", "log4cxx::helpers", "0x1F"]
    assert identifiers_in("What license is this code released under?") == []
    assert identifiers_in("Which invoice of 2024, number 12?") == ["2024"]  # numbers too, from three digits
    assert identifiers_in("") == []


def test_a_passage_holding_the_identifiers_verbatim_moves_up_by_their_share():
    texts = {1: "a diff executor runs executors", 2: "struct DiffExecutor { run_target }", 3: "DiffExecutor only"}
    ranked = [(1, 0.90), (2, 0.85), (3, 0.86)]
    lifted = lift_exact_identifiers(ranked, ["DiffExecutor", "run_target"], lambda ids: texts)
    assert [i for i, _ in lifted] == [2, 3, 1]
    scores = dict(lifted)
    assert scores[1] == 0.90 and scores[2] == 0.85 + EXACT_IDENTIFIER_WEIGHT
    assert abs(scores[3] - (0.86 + EXACT_IDENTIFIER_WEIGHT / 2)) < 1e-12


def test_without_identifiers_the_ranking_is_left_alone_and_texts_are_not_read():
    def no_reading(ids):
        raise AssertionError("texts read for a query without identifiers")

    assert lift_exact_identifiers([(4, 0.5), (2, 0.4)], [], no_reading) == [(4, 0.5), (2, 0.4)]
