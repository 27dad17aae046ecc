"""Reading a file into a document and its chunks: in a child process for the app and the CLI, in-process for
evaluations, the demo and tests.

Parsing and chunking meet people's files as they are, and run in C for long stretches: PyMuPDF, lxml, the
tokenizer. In a child, the app's window never waits for them, a parser that crashes on a file (a segfault in a
C library) costs that file only, and one stuck on a file is stopped after READ_TIMEOUT_S — the file gets an error
and the run goes on.
"""

from __future__ import annotations

from pathlib import Path

from desktop_rag.child_process import ChildDied, ChildObject, ChildTimedOut
from desktop_rag.core.dense.tokens import token_counter
from desktop_rag.core.files import parsers
from desktop_rag.core.files.chunking import chunk_document
from desktop_rag.documents import Chunk, ParsedDocument

# Far beyond any file within max_file_mb here (a 15 MB text reads in ~16 s on 2 cores), for a slower laptop.
READ_TIMEOUT_S = 300.0


class DocumentReader:
    """Parse, then chunk by the embedder's word pieces."""

    def __init__(self, embedding_model: str | Path):
        self.counter = token_counter(Path(embedding_model))

    def read(self, path: str | Path, data: bytes, chunk_tokens: int,
             overlap_tokens: int) -> tuple[ParsedDocument, list[Chunk]]:
        document = parsers.parse(Path(path), data)
        return document, chunk_document(document, self.counter, chunk_tokens, overlap_tokens)


class ReaderProcess:
    """DocumentReader's read() in a child; its crash or a stuck read becomes the file's ParseError."""

    def __init__(self, embedding_model: Path, timeout_s: float = READ_TIMEOUT_S, reader=DocumentReader):
        self.timeout_s = timeout_s
        # `reader` is replaced only by tests that inject a crash or a hang.
        self._child = ChildObject(reader, (str(embedding_model),), name="the document reader", error=None)

    def read(self, path: Path, data: bytes, chunk_tokens: int,
             overlap_tokens: int) -> tuple[ParsedDocument, list[Chunk]]:
        try:
            return self._child.call("read", str(path), data, chunk_tokens, overlap_tokens, timeout=self.timeout_s)
        except ChildTimedOut as exc:
            raise parsers.TransientReadError(f"reading it took longer than {self.timeout_s:g} s and was stopped; it "
                                             "is tried again next time") from exc
        except ChildDied as exc:  # on this file (the child starts again for the next); not starting is no file's fault
            raise parsers.ParseError(f"the parser crashed on this file ({exc})") from exc

    def close(self, interrupt: bool = False) -> None:
        self._child.close(interrupt)
