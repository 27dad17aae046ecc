"""Answers written by the real local model under the answer grammar (core/answering/answer_format.py) and checked
against the passages they cite (core/answering/citations.py): the shipped 1.5B answers a question its passages
answer, citing the right one, and says NOT_FOUND to one they do not; its sentence with a year or a passage changed
is caught. Greedy: the same on one machine every time."""

from __future__ import annotations

import pytest

from desktop_rag.core.answering.answer_format import SentenceStream, answer_grammar, answer_messages
from desktop_rag.core.answering.citations import check

LEASE = ("Harbour Office lease", "Harbour Office lease. The lease of the Harbour Office runs from 1 April 2024 and "
         "ends on 31 March 2027. The rent is 1,200 EUR a month, paid to Meyer & Söhne by invoice INV-2231. Keys are "
         "kept by the caretaker, Mr Albers.")
MINUTES = ("Board minutes 2025-02", "The board met on Tuesday 11 February 2025. Renewing the Harbour Office lease "
           "was postponed to next year; Anna will ask Meyer & Söhne for a quote.")
PASSAGES = [LEASE, MINUTES]


def answered(backend, question: str):
    stream = SentenceStream()
    sentences = [s for piece in backend.chat_stream(answer_messages(question, PASSAGES), 160,
                                                    answer_grammar(len(PASSAGES)))
                 for s in stream.feed(piece)]
    sentences += list(stream.finish())
    verdicts = [check(s.text, [PASSAGES[c - 1][1] for c in s.cites]) for s in sentences]
    return stream.not_found, sentences, verdicts


def backend_of(model: str, tmp_path_factory):
    from desktop_rag.core.llm.llama_backend import LlamaCppBackend
    from desktop_rag.core.llm.models import resolve_model

    return LlamaCppBackend(resolve_model(model, tmp_path_factory.mktemp("models")), n_ctx=4096, n_threads=2)


@pytest.fixture(scope="module")
def good_model(tmp_path_factory):
    backend = backend_of("qwen2.5-coder-1.5b-instruct-q4_k_m", tmp_path_factory)
    yield backend
    backend.close()


def test_the_shipped_model_answers_citing_the_passage_that_says_it(good_model):
    not_found, sentences, verdicts = answered(good_model, "When does the Harbour Office lease end?")
    assert not not_found and sentences, sentences
    assert all(s.cites == [1] for s in sentences) and all(v.supported for v in verdicts), (sentences, verdicts)
    assert "31 March 2027" in sentences[0].text


def test_the_shipped_model_says_when_the_passages_do_not_say(good_model):
    not_found, sentences, _ = answered(good_model, "What colour is the boiler?")
    assert not_found and sentences == []


def test_a_sentence_with_a_number_or_a_citation_its_passage_lacks_is_caught(good_model):
    _, sentences, _ = answered(good_model, "When does the Harbour Office lease end?")
    written = sentences[0].text
    assert "2027" in written
    wrong_year = check(written.replace("2027", "2028"), [LEASE[1]])
    wrong_passage = check(written, [MINUTES[1]])  # the tests' 135M model cites the minutes for it
    assert not wrong_year.supported and wrong_year.missing == ("2028",)
    assert not wrong_passage.supported and "2027" in wrong_passage.missing


def test_an_answer_streams_out_of_the_model_s_child_process_as_it_is_written(tmp_path_factory):
    """The service runs the model in a child (core/llm/llama_process.py): the answer's pieces come while it is
    written, read on the child's second lane, and add up to the whole answer."""
    import time

    from desktop_rag.core.llm.llama_process import LlamaInChild
    from desktop_rag.core.llm.models import resolve_model

    model = LlamaInChild(resolve_model("qwen2.5-coder-1.5b-instruct-q4_k_m", tmp_path_factory.mktemp("models")),
                         n_ctx=4096, n_threads=2)
    try:
        model.load()
        started, arrivals = time.monotonic(), []
        messages = answer_messages("Who keeps the keys, and how much is the rent?", PASSAGES)
        for piece in model.chat_stream(messages, 160, answer_grammar(len(PASSAGES))):
            arrivals.append((time.monotonic() - started, piece))
    finally:
        model.close()
    text = "".join(piece for _, piece in arrivals)
    assert "Albers" in text and "[1]" in text, text
    assert len(arrivals) > 3 and arrivals[0][0] < arrivals[-1][0] - 0.5, arrivals  # pieces, not one answer at the end
