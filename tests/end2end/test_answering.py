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


LEASE_FILE = ("# Harbour Office lease\n\nThe lease of the Harbour Office runs from 1 April 2024 and ends on 31 March "
              "2027. The rent is 1,200 EUR a month, paid to Meyer & Söhne by invoice INV-2231.\n\nKeys are kept by "
              "the caretaker, Mr Albers.\n")
MINUTES_FILE = ("# Board minutes, February 2025\n\nThe board met on Tuesday 11 February 2025. Renewing the Harbour "
                "Office lease was postponed to next year; Anna will ask Meyer & Söhne for a quote.\n")


def test_a_question_asked_through_the_service_is_answered_evidence_first_with_checked_citations(make_library, docs):
    from desktop_rag.config import Settings
    from desktop_rag.service.host import LibraryHost

    (docs / "lease.md").write_text(LEASE_FILE)
    (docs / "minutes.md").write_text(MINUTES_FILE)
    library = make_library(Settings(contexts="rules"))
    library.index([docs])
    host = LibraryHost(library, "a test")
    try:
        first = host.events.last
        answer = host.handle("ask", {"question": "When does the Harbour Office lease end?"})
        told = [e for e in host.events.since(first, host.events.instance)["events"] if e["kind"] == "answer"]
        unsaid = host.handle("ask", {"question": "Which colour is the garden shed's roof?"})
    finally:
        host.stop()
    assert not answer["not_said"] and "31 March 2027" in answer["evidence"][0]["text"], answer
    sentences = answer["sentences"]
    assert sentences and all(s["supported"] for s in sentences), sentences
    cited = {answer["hits"][n - 1]["path"] for s in sentences for n in s["cites"]}
    assert cited == {str((docs / "lease.md").resolve())}
    assert told[0]["state"] == "evidence" and told[-1]["state"] == "ended"  # the evidence before any word
    assert [e["sentence"]["text"] for e in told if e["state"] == "sentence"] == [s["text"] for s in sentences]
    assert answer["seconds"]["evidence"] < answer["seconds"]["first_words"] < answer["seconds"]["whole"]
    assert unsaid["not_said"] and unsaid["said"] == "Your files don't seem to say." and unsaid["sentences"] == []


def test_desktop_rag_ask_prints_the_answer_and_its_passages(docs, data_dir):
    from cli_runner import cli

    (docs / "lease.md").write_text(LEASE_FILE)
    (docs / "minutes.md").write_text(MINUTES_FILE)
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    printed = cli(data_dir, "ask", "Who keeps the keys of the Harbour Office?").stdout
    assert "Albers" in printed.split("Answer:\n")[1].split("Passages:")[0], printed
    assert "[1]" in printed and f"[1] {(docs / 'lease.md').resolve()}" in printed, printed


def test_desktop_rag_ask_streams_the_evidence_before_the_answer_is_written(docs, data_dir):
    """Asked of a running service, the terminal shows the evidence while the model still writes (the "answer"
    events of the question's id), and each part once."""
    import os
    import subprocess
    import sys
    import time

    from cli_runner import cli
    from window_sessions import stop_the_service

    (docs / "lease.md").write_text(LEASE_FILE)
    (docs / "minutes.md").write_text(MINUTES_FILE)
    as_a_person = {k: v for k, v in os.environ.items() if k != "DESKTOP_RAG_START_SERVICE"}
    try:
        cli(data_dir, "index", str(docs), "--contexts", "rules", env=as_a_person)  # starts the service
        asking = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "ask",
                                   "Who keeps the keys of the Harbour Office, and what is the rent?"],
                                  stdout=subprocess.PIPE, text=True, env=as_a_person)
        started, lines = time.monotonic(), []
        for line in asking.stdout:
            lines.append((time.monotonic() - started, line.rstrip("\n")))
        assert asking.wait(60) == 0
    finally:
        stop_the_service(data_dir)
    printed = "\n".join(line for _, line in lines)
    when = {line: at for at, line in reversed(lines)}
    assert when["Evidence:"] < when["Passages:"] - 0.5, lines  # shown while the answer was being written
    assert printed.count("Evidence:") == 1 and printed.count("Answer:") == 1, printed
    assert "Albers" in printed.split("Answer:")[1], printed
