"""Query words are found in a hit's text the way the keyword index matches them."""

def test_query_words_are_found_in_hit_text_the_way_the_keyword_index_matches_them():
    from desktop_rag.core.search.highlight import match_spans

    text = "Late payments accrue late_payment_interest daily; the payment desk is closed."
    spans = match_spans(text, "payment interest")
    assert [text[a:b] for a, b in spans] == ["payments", "late_payment_interest", "payment"]
    assert match_spans(text, "the and of") == []  # stop words alone highlight nothing


def test_a_query_s_match_crosses_the_endpoint_whole_so_a_client_never_parses_the_query_again():
    from desktop_rag.core.search.highlight import QueryMatch
    from desktop_rag.core.search.query import parse_query

    match = QueryMatch.of(parse_query('pumps "prime the" seal* 東京都の物流'))
    assert QueryMatch.from_dict(match.to_dict()) == match and match.prefixes and match.cjk_runs
    text = "Prime the pump's seals in 東京都."
    assert QueryMatch.from_dict(match.to_dict()).spans(text) == match.spans(text) != []
