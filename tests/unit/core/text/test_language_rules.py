"""Japanese needs no spaces: rules contexts are written in Japanese and query words are highlighted where the
keyword index matched them (search in every language: end2end/test_languages.py)."""

from desktop_rag.core.contexts.rules import RulesContextualizer
from desktop_rag.core.search.highlight import match_spans
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.core.text.scripts import written_in_japanese
from desktop_rag.documents import Chunk, ParsedDocument
from documents import MEETING

def test_cjk_words_are_highlighted_where_bm25_matched_them():
    text = "2025年10月の定例会議では、物流コストの削減が主な議題となった。"
    assert [text[a:b] for a, b in match_spans(text, "物流コスト 削減")] == ["物流コスト", "削減"]
    assert lexical_tokens("物流コスト") == ["物流", "流コ", "コス", "スト"]
    assert lexical_tokens("ＡＢＣ ｶﾀｶﾅ") == ["abc", "カタ", "タカ", "カナ"]  # full- and half-width folded


def test_a_japanese_rules_context_is_in_japanese():
    doc = ParsedDocument(text=MEETING, title="物流会議メモ", parser="markdown")
    chunk = Chunk(0, MEETING, 0, len(MEETING), None, ["物流会議メモ"], 60, "h")
    context = RulesContextualizer(max_words=40).contextualize(doc, [chunk, chunk])[0].text
    assert context.startswith("物流会議メモ（全2部分の1）。キーワード：")
    assert "part" not in context and "Key terms" not in context
    assert "倉庫" in context and "配送費" in context


def test_a_sentence_is_told_japanese_from_chinese_and_english():
    assert written_in_japanese("物流会議で倉庫の統合について述べている。")
    assert written_in_japanese("Pythonのasyncioでイベントループを回す方法。")  # English terms in a Japanese sentence
    assert not written_in_japanese("人类在2.5万年前开始使用工具，他们的文化逐渐发展。")  # Chinese: no kana
    assert not written_in_japanese("Meeting notes about merging warehouses.")
    assert not written_in_japanese("")


def test_a_query_of_one_kanji_matches_the_pairs_that_hold_it():
    from desktop_rag.core.search.match_strength import keyword_coverage
    from desktop_rag.core.search.query import parse_query

    text = "池のほとりで灰色の鷺が魚を待つ。鷺は動かない。"
    assert lexical_tokens("鷺") == ["鷺"] and "鷺" not in lexical_tokens(text)  # indexed as の鷺, 鷺が, 鷺は
    assert [text[a:b] for a, b in match_spans(text, "鷺")] == ["鷺", "鷺"]  # the kanji, not its neighbours
    assert [text[a:b] for a, b in match_spans(text, "灰色 鷺")] == ["灰色", "鷺", "鷺"]
    assert keyword_coverage(parse_query("鷺"), text) == 1.0
    assert keyword_coverage(parse_query("鷺 猫"), text) == 0.5


def test_a_title_that_ends_like_a_sentence_gets_no_second_full_stop():
    for text, title in (("池のほとりで灰色の鷺が魚を待つ。", "池のほとりで灰色の鷺が魚を待つ。"),
                        ("Why do herons stand still? They wait for fish.", "Why do herons stand still?")):
        doc = ParsedDocument(text=text, title=title, parser="text")
        chunk = Chunk(0, text, 0, len(text), None, [title], 20, "h")
        context = RulesContextualizer(max_words=40).contextualize(doc, [chunk])[0].text
        assert context.startswith(title) and not context.startswith((title + "。", title + ".")), context


def test_japanese_marks_stretches_of_the_query_not_its_particles():
    """Issue 60, 8: "走れメロス" hits were marked on って, する, を and 車に all over the passage — pairs of the
    query found alone. A stretch of three characters of the query, or a whole word of it, is marked; no lone pair."""
    text = "メロスは激怒した。必ず、かの邪智暴虐の王を除かなければならぬと決意した。太宰治の作品である。"
    query = "走れメロスの作者は誰ですか"
    assert [text[a:b] for a, b in match_spans(text, query)] == ["メロス"]  # not の作, は激, した…
    tokyo = "東京都の地図"
    assert [tokyo[a:b] for a, b in match_spans(tokyo, "東京 地図")] == ["東京", "地図"]  # whole words of the query
    assert [text[a:b] for a, b in match_spans(text, "邪智暴虐 heron")] == ["邪智暴虐"]
