from desktop_rag.core.contexts.quality import WEIGHTS, score_context
from desktop_rag.core.llm.cleanup import clean_context

DOC = "class DiffExecutor wraps a primary executor and a secondary one for differential fuzzing. run_target runs both."
CHUNK = "impl DiffExecutor { fn run_target(&mut self) { self.primary.run_target(); self.secondary.run_target(); } }"


def test_labels_chat_tokens_and_quotes_are_stripped():
    raw = '<|im_start|>Context: "DiffExecutor runs a primary and a secondary executor on the same input."<|im_end|>'
    assert clean_context(raw) == "DiffExecutor runs a primary and a secondary executor on the same input."
    assert clean_context("Sure! Here is the context: The parser reads PDF pages.") == "The parser reads PDF pages."


def test_a_sentence_cut_by_the_token_cap_is_dropped():
    raw = "The module parses invoices. It also computes the late interest for"
    assert clean_context(raw, truncated=True) == "The module parses invoices."


def test_copied_passage_text_generic_filler_and_repeats_are_dropped():
    passage = "Replace the chain when a chain checker shows 0.5 percent wear or it wears the cassette."
    raw = ("Replace the chain when a chain checker shows 0.5 percent wear. "
           "This passage does not belong to any specific component. "
           "Chain maintenance in the bicycle handbook. Chain maintenance in the bicycle handbook.")
    assert clean_context(raw, passage) == "Chain maintenance in the bicycle handbook."


def test_quality_prefers_a_specific_faithful_context():
    good = "DiffExecutor in differential fuzzing: run_target runs the primary and secondary executors on one input."
    generic = "This passage is part of the code. This passage is part of the code."
    invented = "NumericHelper in numeric.h converts FloatBuffer values with parse_float_fast."
    good_score, good_detail = score_context(good, CHUNK, DOC)
    generic_score, generic_detail = score_context(generic, CHUNK, DOC)
    invented_score, invented_detail = score_context(invented, CHUNK, DOC)
    assert set(good_detail) == set(WEIGHTS)
    assert all(0.0 <= v <= 1.0 for v in good_detail.values())
    assert good_score > 0.8
    assert generic_score < good_score - 0.3
    assert generic_detail["specificity"] < 0.5 and generic_detail["coherence"] < 1.0
    assert invented_detail["faithfulness"] == 0.0 and invented_score < good_score
    assert score_context("", CHUNK, DOC)[0] < 0.5


def test_boilerplate_openings_are_rewritten_not_kept():
    assert clean_context("This document is a guide to brewing coffee. It covers grinders.") == (
        "A guide to brewing coffee. It covers grinders."
    )
    assert clean_context("The code defines functions for invoice totals.") == "Functions for invoice totals."


def test_japanese_boilerplate_openings_are_dropped():
    from desktop_rag.core.llm.cleanup import clean_context

    assert clean_context("このチャンクはドキュメント内の第3節にあり、物流コストの削減について述べています。") \
        == "物流コストの削減について述べています。"
    assert clean_context("このチャンクはドキュメント内の第2段目で、出席者をリストしています。") == "出席者をリストしています。"
    assert clean_context("このチャンクはドキュメント内の第3節です。") == ""  # says nothing the situation does not
    assert clean_context("倉庫の統合を決めた会議の記録です。") == "倉庫の統合を決めた会議の記録です。"
    # Where alone, as the 1.5B model wrote it for 24 of 31 parts of one jsquad article (kept before, or as "ます。").
    for where_only in ("このチャンクはドキュメントの第10節にあります。", "このチャンクはドキュメント内の第10節にあります。",
                       "このチャンクは文書の第10節にあります。", "このチャンクはドキュメント内の第13章の第2節にあります。",
                       "このチャンクはドキュメントの第15段と第16段にあります。"):
        assert clean_context(where_only) == "", where_only
    assert clean_context("このチャンクはドキュメント内の137行目にあり、藤代裕之が「ミドルメディア」と呼んだ。") \
        == "藤代裕之が「ミドルメディア」と呼んだ。"
    assert clean_context("このチャンクはドキュメントの第1節で、イスラム教の法律であるシャリーアについて説明しています。") \
        == "イスラム教の法律であるシャリーアについて説明しています。"


def test_a_sentence_that_only_announces_what_follows_is_dropped():
    from desktop_rag.core.llm.cleanup import clean_context

    # As the 1.5B model wrote it for a one-sentence note, the document-summary instruction said back.
    assert clean_context("池で魚を待つ灰色の鷺に関する文書です。重要な人名や用語・話題は以下の通りです。") \
        == "池で魚を待つ灰色の鷺に関する文書です。"
    assert clean_context("社員の出張旅費規程です。重要な人名・用語・話題を挙げて説明します。") == "社員の出張旅費規程です。"
    assert clean_context("Notes on heron feeding. The key terms are as follows:") == "Notes on heron feeding."
    assert clean_context("The rules follow the tax law.") == "The rules follow the tax law."


def test_questions_after_the_sentence_are_split_off_cleaned_and_capped():
    from desktop_rag.core.llm.cleanup import split_questions

    body, questions = split_questions("Wraps two executors.\nQ: What does DiffExecutor wrap?\nA: Two executors."
                                      "\nQ: how are observers run?\nQ: A third one?", 2)
    assert body.strip() == "Wraps two executors."
    assert questions == ["What does DiffExecutor wrap?", "How are observers run?"]
    assert split_questions("Sets it.\n1. How do I set an option?\n2. What does it retu", 2)[1] == [
        "How do I set an option?"]  # the second was cut by the token cap
    assert split_questions("会議の記録。\nQ: 倉庫はいくつか？\nQ：配送費は？", 2)[1] == ["倉庫はいくつか？", "配送費は？"]
    assert split_questions("Only a sentence. Is it?", 2) == ("Only a sentence. Is it?", [])  # no marker: no questions
    assert split_questions("A sentence.\nQ: Asked?", 0) == ("A sentence.\nQ: Asked?", [])


def test_a_batched_answer_is_complete_after_its_sentence_and_then_its_questions():
    from desktop_rag.core.llm.llama_batch import answer_complete

    assert not answer_complete("Defines the invoice")
    assert answer_complete("Defines the invoice total.")
    assert not answer_complete("Defines the invoice total.\nQ: What is added?", questions=2)
    assert answer_complete("Defines the invoice total.\nQ: What is added?\nQ: When?", questions=2)
    assert not answer_complete("Is this the invoice total? It is.", questions=2)  # the sentence's own mark
    assert answer_complete("Defines the total. Q: What is added? Q: When?", questions=2)  # all on one line


def test_the_answer_forms_placeholders_answered_back_are_not_contexts():
    # As the 1.5B model answered on a Japanese article (each had been kept with a quality of 0.68).
    for raw in ("文脈：<その1文>", "<その1文>.", "この一節で答えられる短い質問。", "Context: <that sentence>",
                "A short question this passage answers."):
        assert clean_context(raw) == "", raw
    assert clean_context("文脈：<その1文>\n和歌山県の鉄鋼業と石油産業の出荷額を比べた一節。") == "和歌山県の鉄鋼業と石油産業の出荷額を比べた一節。"
    # A type in angle brackets inside a sentence is a context's own words, not a placeholder.
    assert clean_context("Returns a List<String> of the user's names.") == "Returns a List<String> of the user's names."


def test_asked_in_japanese_only_the_sentences_written_in_japanese_are_kept():
    answer = "物流会議で倉庫の統合について述べている。会议讨论了运输公司们的报价。Meeting notes on warehouses."
    assert clean_context(answer, japanese=True) == "物流会議で倉庫の統合について述べている。"
    assert clean_context("会议讨论了运输公司们的报价。", japanese=True) == ""
    assert "会议" in clean_context(answer)  # asked in English, nothing is dropped for its language
