"""`desktop-rag ask "QUESTION"`: a question answered from the files (issue 63), as the service (or, with --local,
this process) answers it: the evidence sentences, then the answer, each sentence with its passages' numbers and,
where the passages it cites do not hold what it says, why it is not shown as found in the files; then the passages
by number. --json: the whole answer as the service gives it (service/answers.py AskAnswer)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from desktop_rag.cli.terminal import shown
from desktop_rag.core.search.filters import make_filters
from desktop_rag.service import wire
from desktop_rag.service.answers import AskAnswer


def cmd_ask(args: argparse.Namespace, data_dir: Path) -> int:
    from desktop_rag.service.client import LibraryClient

    folders = [str(Path(f).expanduser().resolve()) if Path(f).expanduser().is_dir() else f for f in args.folders]
    types = [t for value in args.types for t in value.split(",")]
    make_filters(folders=folders, types=types, after=args.after, before=args.before, sender=args.sender)  # checked
    question = args.question.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    client = LibraryClient(data_dir, local_only=args.local, served_by="ask")
    try:
        answer = client.run(wire.Ask(question=question, folders=folders, types=types, after=args.after,
                                     before=args.before, sender=args.sender))
    finally:
        client.close()
    if args.json:
        print(json.dumps(answer, indent=2, ensure_ascii=False))
    else:
        print_answer(answer, sys.stdout)
    return 0


def print_answer(answer: AskAnswer, out: TextIO) -> None:
    if answer["not_said"]:
        out.write(f"{answer['said']}\n")
    if answer["evidence"]:
        # Said nothing: the best sentences found are the nearest, not evidence of an answer.
        out.write("Evidence:\n" if not answer["not_said"] else "The nearest sentences:\n")
        for sentence in answer["evidence"]:  # a table's row breaks read as spaces (a sentence may hold some)
            out.write(f"  [{sentence['passage']}] {shown(' '.join(sentence['text'].split()))}\n")
    if answer["sentences"]:
        out.write("Answer:\n")
        for sentence in answer["sentences"]:
            marks = "".join(f"[{n}]" for n in sentence["cites"])
            if sentence["supported"]:
                out.write(f"  {shown(sentence['text'])} {marks}\n")
            else:
                out.write(f"  (not found in your files: {sentence['reason']}) {shown(sentence['text'])} {marks}\n")
    elif answer["without_model"] and not answer["not_said"]:
        out.write(f"(No answer written: {answer['without_model']}. The evidence above is from your files.)\n")
    if answer["hits"]:
        out.write("Passages:\n" if not answer["not_said"] else "The nearest passages:\n")
        for number, hit in enumerate(answer["hits"], 1):
            title = f" — {shown(hit['title'])}" if hit.get("title") else ""
            out.write(f"  [{number}] {shown(hit['path'])}{title}\n")
