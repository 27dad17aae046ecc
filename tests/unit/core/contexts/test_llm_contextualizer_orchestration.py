"""How the LLM contextualizer composes, scores and falls back, with a fake backend standing in for the model
(the real model's behaviour is covered in test_llm_contexts.py)."""

from dataclasses import replace

from desktop_rag.core.contexts.rules import RulesContextualizer
from desktop_rag.core.dense.tokens import token_counter
from desktop_rag.core.llm.backend import Completion
from desktop_rag.core.contexts.llm_contexts import LlmContextualizer
from desktop_rag.documents import Chunk, ParsedDocument

DOC = ParsedDocument(
    text="Invoice tools compute invoice_total with VAT and late_payment_interest for overdue invoices.\n\nMore.",
    title="invoice_tools", parser="code",
)
CHUNKS = [Chunk(0, "def invoice_total(lines): ...", 0, 10, None, ["def invoice_total"], 8, "a"),
          Chunk(1, "def late_payment_interest(amount, days): ...", 11, 20, None, ["def late_payment_interest"], 9, "b")]


class FakeBackend:
    name = "fake-model"

    def __init__(self, answer: str = "", error: Exception | None = None):
        self.answer, self.error, self.calls = answer, error, 0

    def chat(self, messages, max_tokens, temperature=0.0, seed=0):
        self.calls += 1
        if self.error:
            raise self.error
        return Completion(self.answer, prompt_tokens=100, completion_tokens=20, evaluated_prompt_tokens=100,
                          seconds=0.1)

    def count_tokens(self, text):
        return len(text) // 4


def contextualizer(backend, notices, max_words=40):
    rules = RulesContextualizer(max_words=max_words, max_tokens=64, counter=token_counter())
    return LlmContextualizer(lambda: backend, rules, notices.append)


def test_one_call_per_document_whole_sentences_only_and_tokens_counted_once():
    backend = FakeBackend("Invoice helpers that compute invoice_total with VAT. They also charge late_payment_interest "
                          "on overdue invoices. A third sentence that will not fit in the word budget at all here.")
    notices = []
    contexts = contextualizer(backend, notices, max_words=24).contextualize(DOC, CHUNKS)
    assert backend.calls == 1 and notices == []
    assert [c.source for c in contexts] == ["llm", "llm"]
    for c in contexts:
        assert "…" not in c.text and c.text.endswith(".")
        assert "third sentence" not in c.text
        assert c.model == "fake-model" and c.prompt_version and 0.45 <= c.quality <= 1
    assert contexts[0].text.startswith("invoice_tools — def invoice_total (part 1 of 2). Invoice helpers")
    assert [c.prompt_tokens for c in contexts] == [100, 0]  # the document's one call is not counted twice


def test_a_failing_model_gives_rules_contexts_and_a_notice():
    notices = []
    contexts = contextualizer(FakeBackend(error=RuntimeError("decode failed")), notices).contextualize(DOC, CHUNKS)
    assert [c.source for c in contexts] == ["rules", "rules"]
    assert "decode failed" in notices[0]


def test_a_poor_answer_is_retried_once_then_replaced_by_rules_that_record_the_attempt():
    notices = []
    generic = FakeBackend("This passage does not belong to any specific component. I cannot tell.")
    contexts = contextualizer(generic, notices).contextualize(DOC, CHUNKS)
    assert generic.calls == 2  # the answer, then one sampled retry
    assert [c.source for c in contexts] == ["rules", "rules"]
    # What the model was asked and by whom is kept, so stats count it and the upgrade does not ask again.
    assert contexts[0].model == "fake-model" and contexts[0].prompt_version == "ctx-3/document"
    assert contexts[0].prompt_tokens == 200 and contexts[0].completion_tokens == 40


class PoorThenGoodFakeBackend(FakeBackend):
    """Answers with filler at temperature 0 and with a real sentence when sampled (a retry)."""

    def chat(self, messages, max_tokens, temperature=0.0, seed=0):
        self.answer = ("Computes invoice_total with VAT and late_payment_interest for overdue invoices."
                       if temperature > 0 else "I cannot tell.")
        return super().chat(messages, max_tokens, temperature, seed)


def test_a_retry_that_scores_better_is_kept():
    backend = PoorThenGoodFakeBackend()
    contexts = contextualizer(backend, []).contextualize(DOC, CHUNKS)
    assert backend.calls == 2 and [c.source for c in contexts] == ["llm", "llm"]
    assert "late_payment_interest" in contexts[0].text
    assert contexts[0].prompt_tokens == 200  # both attempts are counted


class RecordingFakeBackend(FakeBackend):
    """Answers by question: a summary for the document question, a sentence naming the passage otherwise."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def chat(self, messages, max_tokens, temperature=0.0, seed=0):
        self.messages.append(messages)
        question = messages[-1]["content"].split("</document>")[1]
        if "<passage>" in question:
            passage = question.split("<passage>\n", 1)[1].split("\n</passage>", 1)[0]
            name = passage.split("(")[0].replace("def ", "").strip()
            self.answer = f"Defines {name} of the invoice tools."
        else:
            self.answer = "Invoice helpers computing invoice_total and late_payment_interest."
        return super().chat(messages, max_tokens, temperature, seed)


def test_chunk_level_asks_once_per_chunk_in_order_with_the_same_document_prefix():
    backend, notices = RecordingFakeBackend(), []
    rules = RulesContextualizer(max_words=40, max_tokens=64, counter=token_counter())
    llm = LlmContextualizer(lambda: backend, rules, notices.append, levels="document+chunk")
    contexts = llm.contextualize(DOC, CHUNKS)
    assert backend.calls == 3  # one summary + one per chunk
    prefixes = {m[-1]["content"].split("</document>")[0] for m in backend.messages}
    assert len(prefixes) == 1  # identical document prefix: the KV cache serves every call after the first
    assert prefixes.pop() == f"<document>\n{DOC.text}\n"  # the document as it is, unmarked
    assert "Defines invoice_total of the invoice tools." in contexts[0].text
    assert "Defines late_payment_interest of the invoice tools." in contexts[1].text
    assert all("Invoice helpers" in c.text for c in contexts)
    assert contexts[0].prompt_version == "ctx-3/document+chunk"
    assert [c.prompt_tokens for c in contexts] == [200, 100]  # the summary is counted on the first chunk


def test_a_single_chunk_document_gets_one_call_even_at_chunk_level():
    backend, notices = RecordingFakeBackend(), []
    rules = RulesContextualizer(max_words=40, max_tokens=64, counter=token_counter())
    contexts = LlmContextualizer(lambda: backend, rules, notices.append, levels="chunk").contextualize(DOC, CHUNKS[:1])
    assert backend.calls == 1 and "<passage>" not in backend.messages[0][-1]["content"]
    assert contexts[0].source == "llm"


def long_ledger() -> tuple[str, Chunk, Chunk]:
    """A document far past the prompt budget; a chunk near its head and one deep inside it."""
    filler = "".join(f"Line {i} of the ledger notes.\n" for i in range(2000))
    text = "Ledger tools header.\n" + filler + "def settle_account(x): pass\n" + filler
    start = text.index("def settle_account")
    near = Chunk(0, "Line 5 of the ledger notes.", 21, 48, None, [], 8, "t")
    far = Chunk(1, "def settle_account(x): pass", start, start + 27, None, [], 8, "s")
    return text, near, far


def test_long_documents_show_the_head_and_the_section_around_each_chunk():
    text, other, chunk = long_ledger()
    chunk, other = replace(chunk, index=0), replace(other, index=1)
    backend, notices = RecordingFakeBackend(), []
    rules = RulesContextualizer(max_words=40, max_tokens=64, counter=token_counter())
    LlmContextualizer(lambda: backend, rules, notices.append, levels="chunk").contextualize(
        ParsedDocument(text=text, title="ledger", parser="code"), [other, chunk])
    first, second = (m[-1]["content"].split("</document>")[0] for m in backend.messages)
    assert len(second) < 8000 < len(text)  # bounded, not the whole document
    assert first.startswith("<document>\nLedger tools header.") and second.startswith(first[:2000])
    assert "def settle_account" in second


def test_a_chunk_question_can_quote_only_the_chunk_s_beginning():
    from desktop_rag.core.llm.prompts import chunk_question, quoted

    text = "def late_payment_interest(amount, days_late):\n    rate = LATE_INTEREST_PER_DAY\n    return amount * rate"
    assert quoted(text, 0) == text and quoted(text, 500) == text
    short = quoted(text, 40)
    assert short == "def late_payment_interest(amount, …" and len(short) <= 42  # cut between words
    question = chunk_question(text, 40)
    assert "late_payment_interest(amount," in question and "LATE_INTEREST_PER_DAY" not in question
    rules = RulesContextualizer(max_words=40, max_tokens=64, counter=token_counter())
    quoting = LlmContextualizer(lambda: FakeBackend(), rules, levels="chunk", quote_chars=300)
    assert quoting.prompt_version == "ctx-3q300/chunk"  # a different question: cached contexts are not mixed up
    assert LlmContextualizer(lambda: FakeBackend(), rules, levels="chunk").prompt_version == "ctx-3/chunk"


class SectionAwareFakeBackend(RecordingFakeBackend):
    """Summarises the ledger; names the section it was shown (the text after the gap) when asked about one."""

    def chat(self, messages, max_tokens, temperature=0.0, seed=0):
        self.messages.append(messages)
        document, question = messages[-1]["content"].split("</document>")
        if "later section" in question:
            section = document.split("\n[…]\n", 1)[1]
            name = next(w for w in section.split() if w.startswith("settle_"))
            self.answer = f"Settles accounts with {name.split('(')[0]} in the ledger."
        else:
            self.answer = "Ledger tools header and notes of the ledger, with settle_account for ledger accounts."
        return FakeBackend.chat(self, messages, max_tokens, temperature, seed)


def test_long_documents_get_a_sentence_per_section_besides_the_summary():
    text, near, far = long_ledger()
    backend = SectionAwareFakeBackend()
    rules = RulesContextualizer(max_words=40, max_tokens=64, counter=token_counter())
    llm = LlmContextualizer(lambda: backend, rules, levels="document+section")
    assert llm.prompt_version == "ctx-3/document+section"
    near_context, far_context = llm.contextualize(ParsedDocument(text=text, title="ledger", parser="code"),
                                                  [near, far])
    questions = [m[-1]["content"].split("</document>")[1] for m in backend.messages]
    # One summary, one section question (for the far chunk's section; the head is what the summary read).
    assert len(questions) == 2 and "later section" in questions[1] and "<passage>" not in questions[1]
    assert "Settles accounts with settle_account in the ledger." in far_context.text
    summary = "Ledger tools header and notes of the ledger"
    assert summary in far_context.text and summary in near_context.text
    assert "Settles accounts" not in near_context.text
    summary_prompt, section_prompt = (m[-1]["content"].split("</document>")[0] for m in backend.messages)
    assert section_prompt.startswith(summary_prompt[:2000])  # the head is the shared, cached prefix
    assert far_context.prompt_tokens == 100 and near_context.prompt_tokens == 100  # each call counted once


JAPANESE_DOC = ParsedDocument(
    text="# 物流会議メモ\n\n2025年10月の定例会議では、物流コストの削減が主な議題となった。倉庫の統合により、配送費を年間で"
         "一割減らす計画である。来月までに運送会社三社から見積もりを集める。\n\n次回の会議は十一月に開く。",
    title="物流会議メモ", parser="markdown",
)
JAPANESE_CHUNKS = [Chunk(0, JAPANESE_DOC.text[:70], 0, 70, None, ["物流会議メモ"], 40, "a"),
                   Chunk(1, JAPANESE_DOC.text[70:], 70, len(JAPANESE_DOC.text), None, ["物流会議メモ"], 30, "b")]


class FakeBackendRecordingPrompts(FakeBackend):
    def __init__(self, answer: str):
        super().__init__(answer)
        self.prompts: list[str] = []

    def chat(self, messages, max_tokens, temperature=0.0, seed=0):
        self.prompts.append(" ".join(m["content"] for m in messages))
        return super().chat(messages, max_tokens, temperature, seed)


def test_a_japanese_document_is_asked_in_japanese_and_an_english_answer_is_not_kept():
    backend = FakeBackendRecordingPrompts("物流会議で倉庫の統合と配送費の削減計画、運送会社の見積もりについて述べている。")
    contexts = contextualizer(backend, []).contextualize(JAPANESE_DOC, JAPANESE_CHUNKS)
    assert backend.prompts and all("日本語で答えてください" in p for p in backend.prompts)
    assert [c.source for c in contexts] == ["llm", "llm"]
    assert contexts[0].text.startswith("物流会議メモ（全2部分の1）。物流会議で倉庫の統合")

    english = FakeBackendRecordingPrompts("Meeting notes about cutting logistics costs by merging warehouses.")
    contexts = contextualizer(english, []).contextualize(JAPANESE_DOC, JAPANESE_CHUNKS)
    assert [c.source for c in contexts] == ["rules", "rules"]  # not in the document's language
    assert all("Meeting notes" not in c.text for c in contexts)


def test_a_chinese_answer_to_a_japanese_document_is_not_kept_but_its_japanese_sentences_are():
    # The Chinese sentence is of the kind the 1.5B model wrote for a Japanese article (scored 0.74 and kept before).
    chinese = FakeBackendRecordingPrompts("会议讨论了仓库整合和配送费用的削减计划，以及运输公司们的报价。")
    contexts = contextualizer(chinese, []).contextualize(JAPANESE_DOC, JAPANESE_CHUNKS)
    assert [c.source for c in contexts] == ["rules", "rules"]
    assert all("会议" not in c.text for c in contexts)
    assert chinese.calls == 2  # a second, sampled attempt was asked for before the rules context was kept

    mixed = FakeBackendRecordingPrompts("物流会議で倉庫の統合と配送費の削減計画について述べている。"
                                        "会议讨论了运输公司们的报价。")
    contexts = contextualizer(mixed, []).contextualize(JAPANESE_DOC, JAPANESE_CHUNKS)
    assert [c.source for c in contexts] == ["llm", "llm"]
    assert all("物流会議で倉庫の統合" in c.text and "会议" not in c.text for c in contexts)


def test_a_japanese_note_of_one_sentence_is_asked_in_japanese_too():
    # Six kana: too few for a count alone to tell it from a Chinese text quoting a Japanese name.
    note = "灰色の鷺が池で魚を待つ。"
    backend = FakeBackendRecordingPrompts("池で魚を待つ灰色の鷺について述べている。")
    contexts = contextualizer(backend, []).contextualize(
        ParsedDocument(text=note, title=note, parser="text"), [Chunk(0, note, 0, len(note), None, [note], 12, "n")])
    assert backend.prompts and all("日本語で答えてください" in p for p in backend.prompts)
    assert contexts[0].source == "llm" and contexts[0].text.startswith("灰色の鷺が池で魚を待つ。池で魚を待つ")


def test_an_english_document_is_still_asked_in_english():
    backend = FakeBackendRecordingPrompts("Invoice helpers that compute invoice_total with VAT and late fees.")
    contextualizer(backend, []).contextualize(DOC, CHUNKS)
    assert backend.prompts and not any("日本語" in p for p in backend.prompts)


class QuestioningFakeBackend(RecordingFakeBackend):
    """Answers a chunk question with its sentence, then the questions the prompt asked for (and an answer to the
    first, which small models add although told not to)."""

    def chat(self, messages, max_tokens, temperature=0.0, seed=0):
        completion = super().chat(messages, max_tokens, temperature, seed)
        if "Context: <that sentence>" in messages[-1]["content"]:
            name = completion.text.split()[1]
            completion.text += f"\n\nQ: What does {name} compute?\nA: A number.\nQ: When is {name} used?"
        return completion


def test_chunk_level_can_ask_for_the_questions_each_chunk_answers():
    backend, notices = QuestioningFakeBackend(), []
    rules = RulesContextualizer(max_words=40, max_tokens=64, counter=token_counter())
    llm = LlmContextualizer(lambda: backend, rules, notices.append, levels="chunk", questions=2)
    contexts = llm.contextualize(DOC, CHUNKS)
    assert [c.source for c in contexts] == ["llm", "llm"]
    assert contexts[0].questions == "What does invoice_total compute?\nWhen is invoice_total used?"
    assert "Q:" not in contexts[0].text and "compute?" not in contexts[0].text  # the context is the sentence alone
    assert "Defines invoice_total of the invoice tools." in contexts[0].text
    assert contexts[0].prompt_version == "ctx-3/chunk+2questions"
    plain = LlmContextualizer(lambda: QuestioningFakeBackend(), rules, notices.append, levels="chunk")
    assert [c.questions for c in plain.contextualize(DOC, CHUNKS)] == ["", ""]  # not asked for: none
    summaries = LlmContextualizer(lambda: QuestioningFakeBackend(), rules, notices.append, questions=2)
    assert summaries.questions == 0 and summaries.prompt_version == "ctx-3/document"  # chunk level only


def test_questions_without_a_sentence_are_kept_on_the_rules_context_that_replaces_it():
    backend, notices = FakeBackend("Q: What does invoice_total compute?\nQ: Which VAT rate applies?"), []
    rules = RulesContextualizer(max_words=40, max_tokens=64, counter=token_counter())
    contexts = LlmContextualizer(lambda: backend, rules, notices.append, levels="chunk", questions=2).contextualize(
        DOC, CHUNKS)
    assert [c.source for c in contexts] == ["rules", "rules"]
    assert contexts[0].questions == "What does invoice_total compute?\nWhich VAT rate applies?"
    assert contexts[0].prompt_version == "ctx-3/chunk+2questions"  # tried: not asked again by the upgrade


class RecordingBatchFakeBackend(SectionAwareFakeBackend):
    """Answers batches as the product's backends do, recording each batch's questions count and size."""

    def __init__(self):
        super().__init__()
        self.batches = []

    def chat(self, messages, max_tokens, temperature=0.0, seed=0):
        completion = super().chat(messages, max_tokens, temperature, seed)
        if "<passage>" in messages[-1]["content"]:
            completion.text = "Defines part of the ledger.\nQ: What does it settle?"
        return completion

    def chat_batch(self, conversations, max_tokens, first_sentence_only=False, temperature=0.0, seed=0,
                   questions=0):
        self.batches.append((len(conversations), questions, max_tokens))
        return [self.chat(c, max_tokens, temperature, seed) for c in conversations]


def test_with_questions_a_section_question_is_asked_apart_from_the_chunks_that_wait_for_theirs():
    text, near, far = long_ledger()
    backend = RecordingBatchFakeBackend()
    rules = RulesContextualizer(max_words=40, max_tokens=64, counter=token_counter())
    llm = LlmContextualizer(lambda: backend, rules, levels="document+section+chunk", questions=1)
    contexts = llm.contextualize(ParsedDocument(text=text, title="ledger", parser="code"), [near, far])
    # The far chunk's section alone: a sentence, nothing to wait for; the chunks with room for their question.
    assert [batch for batch in backend.batches if batch[1] == 0] == [(1, 0, 60)]
    assert [batch for batch in backend.batches if batch[1] != 0] == [(1, 1, 90), (1, 1, 90)]
    assert all(size > 0 for size, _, _ in backend.batches)  # an empty batch is never sent
    assert [c.questions for c in contexts] == ["What does it settle?", "What does it settle?"]


def test_a_model_sentence_that_does_not_fit_beside_where_the_chunk_is_is_never_cut_mid_phrase():
    """Issue 37: a context cut mid-phrase ('…') was shown with quality 0.83."""
    sentence = ("Invoice helpers that compute invoice_total with VAT and charge late_payment_interest on every "
                "overdue invoice.")  # 15 words: with the 9 of where the chunk is, over 20
    contexts = contextualizer(FakeBackend(sentence), [], max_words=20).contextualize(DOC, CHUNKS)
    assert [c.text for c in contexts] == [sentence, sentence]  # whole, without the situation it had no room for
    assert [c.source for c in contexts] == ["llm", "llm"]
    too_long = contextualizer(FakeBackend(sentence), [], max_words=12).contextualize(DOC, CHUNKS)
    assert all(not c.text.endswith("…") and "invoice_total with VAT" not in c.text for c in too_long)


def test_a_context_cut_by_the_word_limit_is_not_coherent():
    from desktop_rag.core.contexts.quality import score_context

    whole = "Invoice helpers that compute invoice_total with VAT for overdue invoices."
    cut = "Invoice helpers that compute invoice_total with VAT for overdue…"
    assert score_context(whole, CHUNKS[0].text, DOC.text)[1]["coherence"] == 1.0
    assert score_context(cut, CHUNKS[0].text, DOC.text)[1]["coherence"] == 0.0
