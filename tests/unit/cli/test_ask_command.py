"""How `desktop-rag ask` prints an answer (cli/ask_command.py); asking through the service with the real model is
tests/end2end/test_answering.py's."""

from __future__ import annotations

import io

from desktop_rag.cli.ask_command import print_answer


def answer(**given):
    base = {"ask_id": "ask-1", "question": "When does the lease end?", "not_said": False, "said": "",
            "cancelled": False, "without_model": "", "seconds": {}, "served_by": "test",
            "evidence": [{"passage": 1, "text": "The lease ends on 31 March 2027."}],
            "sentences": [{"text": "The lease ends on 31 March 2027.", "cites": [1], "supported": True, "missing": [],
                           "reason": ""},
                          {"text": "It was renewed in 2026.", "cites": [2], "supported": False, "missing": ["2026"],
                           "reason": "the passages it cites do not hold 2026"}],
            "hits": [{"path": "/home/ann/lease.pdf", "title": "Lease"}, {"path": "/home/ann/minutes.md", "title": None}]}
    return {**base, **given}


def printed(given) -> str:
    out = io.StringIO()
    print_answer(given, out)
    return out.getvalue()


def test_each_sentence_with_its_passages_and_a_failed_one_said_so():
    text = printed(answer())
    assert "  The lease ends on 31 March 2027. [1]\n" in text
    assert "(not found in your files: the passages it cites do not hold 2026) It was renewed in 2026. [2]" in text
    assert text.endswith("Passages:\n  [1] /home/ann/lease.pdf — Lease\n  [2] /home/ann/minutes.md\n")


def test_when_the_files_do_not_say_the_nearest_passages_are_listed():
    text = printed(answer(not_said=True, said="Your files don't seem to say.", evidence=[], sentences=[]))
    assert text.startswith("Your files don't seem to say.\n") and "The nearest passages:" in text


def test_without_a_model_the_evidence_is_the_answer():
    text = printed(answer(sentences=[], without_model="no model file at /m.gguf"))
    assert "Evidence:\n  [1] The lease ends on 31 March 2027." in text and "No answer written: no model file" in text


def test_the_nearest_sentences_are_not_called_evidence_when_the_files_do_not_say():
    nearest = [{"passage": 1, "text": "Symantec Corporation\nMountain View\n60"}]
    text = printed(answer(not_said=True, said="Your files don't seem to say.", evidence=nearest, sentences=[]))
    assert "Evidence:" not in text and "The nearest sentences:\n  [1] Symantec Corporation Mountain View 60\n" in text


def test_parts_printed_as_they_came_are_not_printed_again_at_the_end():
    from desktop_rag.cli.ask_command import AnswerPrinter

    out = io.StringIO()
    printer = AnswerPrinter(out)
    given = answer()
    printer.evidence(False, "", given["evidence"])  # the stream: the evidence, then the first sentence
    printer.sentence(given["sentences"][0], 0)
    printer.sentence(given["sentences"][0], 0)  # heard twice: printed once
    streamed = out.getvalue()
    printer.rest(given)
    text = out.getvalue()
    assert streamed.endswith("Answer:\n  The lease ends on 31 March 2027. [1]\n")
    assert text.count("Evidence:") == 1 and text.count("The lease ends on 31 March 2027. [1]") == 1
    assert text.count("Answer:") == 1 and "It was renewed in 2026." in text[len(streamed):]


def test_a_cancelled_answer_says_it_was_stopped():
    text = printed(answer(cancelled=True, sentences=[]))
    assert "(Stopped before the answer was written.)" in text
