import pytest

from desktop_rag.core.contexts.choice import make_contextualizer
from desktop_rag.core.contexts.rules import RulesContextualizer, without_legal_notices
from desktop_rag.core.text.keyterms import key_terms
from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.documents import Chunk, ParsedDocument


def chunk(index, heading_path=(), page=None):
    return Chunk(index, "x", 0, 1, page, list(heading_path), 1, "h")


def test_rules_context_names_title_section_position_and_key_terms():
    text = ("Executor for differential fuzzing.\nIt wraps two executors run one after the other.\n\n"
            "pub struct DiffExecutor { primary: A }\nimpl DiffExecutor { fn run_target() {} }\n"
            "DiffExecutor run_target DiffExecutor\n")
    doc = ParsedDocument(text=text, title="diff.rs", parser="code")
    contexts = RulesContextualizer().contextualize(doc, [chunk(0), chunk(1, ["impl DiffExecutor"], page=2)])
    second = contexts[1].text
    assert contexts[1].source == "rules"
    assert second.startswith("diff.rs — impl DiffExecutor (page 2, part 2 of 2). Key terms: ")
    assert "Executor for differential fuzzing." not in second  # no summary sentences (they measured worse)
    assert "DiffExecutor" in second.split("Key terms:")[1]
    assert "part 1 of 2" in contexts[0].text


def test_rules_context_is_bounded_in_words():
    doc = ParsedDocument(text=" ".join(f"Word{i} appears here." for i in range(300)), title="t", parser="text")
    (context,) = RulesContextualizer(max_words=20).contextualize(doc, [chunk(0)])
    assert len(context.text.split()) <= 20


def test_licence_headers_give_no_key_terms():
    text = ("/*\n * Copyright 2020 Google LLC\n * Licensed under the Apache License, Version 2.0\n */\n\n"
            "/** Prints progress bars to the console for long running builds. */\nclass ConsoleOutput {}\n")
    body = without_legal_notices(text)
    assert "Copyright" not in body
    terms = key_terms(body)
    assert "ConsoleOutput" in terms and not {"Google", "Apache", "LLC"} & set(terms)


def test_key_terms_prefer_identifiers_and_names_over_common_words():
    text = "the value of the value is high. ParseError raised by parse_file in Amsterdam. ParseError again."
    terms = key_terms(text, 3)
    assert terms[0] == "ParseError"
    assert "parse_file" in terms and "value" not in terms[:2]


def test_none_contexts_are_empty_and_llm_without_a_model_is_refused_plainly():
    doc = ParsedDocument(text="hello world", title="t", parser="text")
    assert [c.text for c in make_contextualizer("none").contextualize(doc, [chunk(0)])] == [""]
    with pytest.raises(ValueError, match="LLM contexts need a model"):
        make_contextualizer("llm")
    with pytest.raises(ValueError, match="unknown contexts choice"):
        make_contextualizer("magic")


def test_lexical_tokens_split_identifiers_and_stem():
    tokens = lexical_tokens("DiffExecutor run_target HTTPServer the Executors")
    assert {"diffexecutor", "diff", "executor", "run_target", "run", "target", "httpserver", "http", "server"} <= set(tokens)
    assert "the" not in tokens
    assert lexical_tokens("executors") == lexical_tokens("executor")


def test_key_terms_leave_out_the_title_already_in_the_context():
    text = "Travel Policy. The Travel Policy sets hotel limits in euros, and euros per diem."
    terms = key_terms(text, 4, exclude="Travel and Expense Policy")
    assert "Travel" not in terms and "Policy" not in terms
    assert "euros" in terms


def test_key_terms_of_a_german_text_are_no_function_words_and_keep_umlauts_whole():
    text = ("Die Menge der offenen Mengen ist eine Topologie, und mit der Hausdorff-Eigenschaft ist der Raum von "
            "besonderer Art. Ein kompakter Raum ist ein Raum, in dem jede offene Überdeckung eine endliche "
            "Teilüberdeckung hat. Die Müller-Abbildung ist stetig. Müller und Tychonoff sagen, dass Produkte "
            "kompakter Räume kompakt sind.")
    terms = key_terms(text)
    assert not {"die", "der", "ist", "eine", "ein", "und", "mit", "von", "dem"} & {t.lower() for t in terms}
    assert "Müller" in terms and "Raum" in terms and "ller" not in terms


def test_an_english_text_keeps_words_that_are_function_words_elsewhere():
    text = "Die casting and fast presses: the die casting line runs fast. Die casting costs fall."
    assert {"Die", "fast"} <= set(key_terms(text))  # German's "die", Dutch's "fast"... not English's


def test_a_context_s_words_are_read_whole_in_accented_and_cyrillic_text():
    from desktop_rag.core.contexts.quality import content_words

    assert {"müller", "größe", "éléphant", "москва"} <= content_words("Müller misst die Größe; éléphant à Москва.")
    assert "ller" not in content_words("Müller")


def test_a_ligature_set_by_a_pdf_does_not_split_a_key_term():
    text = "Deﬁnition 1.2. Eine Deﬁnition der Stetigkeit. Die Deﬁnition gilt für jeden Raum."
    terms = key_terms(text)
    assert "Definition" in terms and "nition" not in terms
