"""`desktop-rag ask "QUESTION"`: a question answered from the files (issue 63), as the service (or, with --local,
this process) answers it: the evidence sentences as soon as they are found, then the answer sentence by sentence as
the model writes it, each with its passages' numbers and, where the passages it cites do not hold what it says, why
it is not shown as found in the files; then the passages by number. Streamed from the service's event stream
("answer" events of this question's id); answered in this process, it prints when the answer ends. --json: the
whole answer as the service gives it (service/answers.py AskAnswer), at its end."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from pathlib import Path
from collections.abc import Callable
from typing import Any, TextIO

from desktop_rag.cli.terminal import shown
from desktop_rag.core.search.filters import make_filters
from desktop_rag.service import wire
from desktop_rag.service.answers import AskAnswer
from desktop_rag.service.answer_events import AnswerSteps


def cmd_ask(args: argparse.Namespace, data_dir: Path) -> int:
    from desktop_rag.service.client import LibraryClient

    folders = [str(Path(f).expanduser().resolve()) if Path(f).expanduser().is_dir() else f for f in args.folders]
    types = [t for value in args.types for t in value.split(",")]
    make_filters(folders=folders, types=types, after=args.after, before=args.before, sender=args.sender)  # checked
    question = args.question.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    ask_id = f"cli-{os.getpid()}-{threading.get_ident()}"
    printer = AnswerPrinter(sys.stdout)
    follower = None if args.json or args.local else AnswerSteps.of_service(data_dir, ask_id, _printing(printer))
    client = LibraryClient(data_dir, local_only=args.local, served_by="ask")
    try:
        answer = client.run(wire.Ask(question=question, folders=folders, types=types, after=args.after,
                                     before=args.before, sender=args.sender, ask_id=ask_id))
    finally:
        client.close()
        if follower is not None:
            follower.stop()
    if args.json:
        print(json.dumps(answer, indent=2, ensure_ascii=False))
    else:
        printer.rest(answer)
    return 0


class AnswerPrinter:
    """Prints an answer's parts once each, as they come (the stream) or all at its end (`rest`)."""

    def __init__(self, out: TextIO):
        self.out = out
        self._evidence_printed = False
        self._sentences_printed = 0
        self._lock = threading.Lock()  # the follower's thread and the asking one

    def evidence(self, not_said: bool, said: str, evidence: list[dict[str, Any]]) -> None:
        with self._lock:
            if self._evidence_printed:
                return
            self._evidence_printed = True
            if not_said:
                self.out.write(f"{said}\n")
            if evidence:
                # Said nothing: the best sentences found are the nearest, not evidence of an answer.
                self.out.write("Evidence:\n" if not not_said else "The nearest sentences:\n")
                for sentence in evidence:  # a table's row breaks read as spaces (a sentence may hold some)
                    self.out.write(f"  [{sentence['passage']}] {shown(' '.join(sentence['text'].split()))}\n")
            self.out.flush()

    def sentence(self, sentence: dict[str, Any], number: int) -> None:
        """The answer's `number`th sentence (from 0): printed once, in order."""
        with self._lock:
            if number != self._sentences_printed:
                return
            if number == 0:
                self.out.write("Answer:\n")
            self._sentences_printed += 1
            marks = "".join(f"[{n}]" for n in sentence["cites"])
            if sentence["supported"]:
                self.out.write(f"  {shown(sentence['text'])} {marks}\n")
            else:
                self.out.write(f"  (not found in your files: {sentence['reason']}) {shown(sentence['text'])} {marks}\n")
            self.out.flush()

    def rest(self, answer: AskAnswer) -> None:
        """What the stream did not print, then the passages."""
        self.evidence(answer["not_said"], answer["said"], answer["evidence"])
        for number, sentence in enumerate(answer["sentences"]):
            self.sentence(sentence, number)
        out = self.out
        if answer["cancelled"]:
            out.write("(Stopped before the answer was written.)\n")
        elif not answer["sentences"] and answer["without_model"] and not answer["not_said"]:
            out.write(f"(No answer written: {answer['without_model']}. The evidence above is from your files.)\n")
        if answer["hits"]:
            out.write("Passages:\n" if not answer["not_said"] else "The nearest passages:\n")
            for number, hit in enumerate(answer["hits"], 1):
                title = f" — {shown(hit['title'])}" if hit.get("title") else ""
                out.write(f"  [{number}] {shown(hit['path'])}{title}\n")
        out.flush()


def print_answer(answer: AskAnswer, out: TextIO) -> None:
    AnswerPrinter(out).rest(answer)


def _printing(printer: AnswerPrinter) -> Callable[[dict[str, Any]], None]:
    """The steps printed as they come: the evidence, then each sentence in order."""
    sentences = 0

    def step(event: dict[str, Any]) -> None:
        nonlocal sentences
        if event["state"] == "evidence":
            printer.evidence(event["not_said"], event["said"], event["evidence"])
        elif event["state"] == "sentence":
            printer.sentence(event["sentence"], sentences)
            sentences += 1

    return step
