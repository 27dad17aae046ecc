"""Query words are found in a hit's text the way the keyword index matches them."""

def test_query_words_are_found_in_hit_text_the_way_the_keyword_index_matches_them():
    from desktop_rag.core.search.highlight import match_spans

    text = "Late payments accrue late_payment_interest daily; the payment desk is closed."
    spans = match_spans(text, "payment interest")
    assert [text[a:b] for a, b in spans] == ["payments", "late_payment_interest", "payment"]
    assert match_spans(text, "the and of") == []  # stop words alone highlight nothing
