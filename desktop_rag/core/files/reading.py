"""Reading a file into a document and its chunks: in a child process for the app and the CLI, in-process for
evaluations, the demo and tests.

Parsing and chunking meet people's files as they are, and run in C for long stretches: PyMuPDF, lxml, the
tokenizer. In a child, the app's window never waits for them, a parser that crashes on a file (a segfault in a
C library) costs that file only, and one stuck on a file is stopped after READ_TIMEOUT_S — the file gets an error
and the run goes on. OCR (core/files/ocr.py) runs there too, one page per call: a run pauses between pages, and
the pages recognised before a crash, a hang or a kill are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast
from collections.abc import Callable, Mapping

from desktop_rag.child_process import ChildDied, ChildObject, ChildTimedOut
from desktop_rag.core.dense.tokens import token_counter
from desktop_rag.core.files import containers, parsers
from desktop_rag.core.files.chunking import chunk_document
from desktop_rag.core.files.ocr import OcrPage, Recognizer, page_recognizer
from desktop_rag.core.files.parsers import images, mail, office_pictures, outlook, paged
from desktop_rag.documents import Chunk, ParsedDocument

# Far beyond any file within max_file_mb here (a 15 MB text reads in ~16 s on 2 cores), for a slower laptop.
READ_TIMEOUT_S = 300.0
# One page's OCR: ~2 s for a full A4 page at 200 dpi on 2 cores (bench/ocr_indexing.py); the largest image read
# (16 million pixels) several times that.
OCR_PAGE_TIMEOUT_S = 120.0


class ScanNotOpen(Exception):
    """The reader does not hold the file whose page is asked (its child started anew): send the file's bytes."""


class ContainerNotOpen(Exception):
    """The reader does not hold the archive or mailbox whose member is asked (its child started anew)."""


@dataclass(frozen=True)
class MemberInfo:
    """A document inside a file, as the indexer sees it before reading it (core/files/containers.Member)."""

    chain: tuple[str, ...]
    content_hash: str
    size: int
    problem: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)


class DocumentReader:
    """Parse, then chunk by the embedder's word pieces."""

    def __init__(self, embedding_model: str | Path):
        self.counter = token_counter(Path(embedding_model))
        self._recognizers: dict[str, Recognizer] = {}
        self._scan: tuple[str, Any] | None = None  # (content hash, the opened PDF or image) being recognised
        # (content hash, its members, the file's name) being read
        self._container: tuple[str, list[containers.Member], str] | None = None

    def read(self, path: str | Path, data: bytes, chunk_tokens: int, overlap_tokens: int,
             ocr: Mapping[int, OcrPage] | None = None,
             abandon: Callable[[], bool] | None = None) -> tuple[ParsedDocument, list[Chunk]]:
        """(`abandon`: ReaderProcess's; a read in this process is not cut short.)"""
        self._close_scan()  # the file whose pages were recognised is read now, with their text
        self._container = None  # an archive or mailbox read before: its members' bytes are let go
        document = parsers.parse(Path(path), data, ocr)
        return document, chunk_document(document, self.counter, chunk_tokens, overlap_tokens)

    # The counter's own calls, for a library whose reader is in a child (CountingInReader).
    def count(self, texts: list[str]) -> list[int]:
        return self.counter.count(texts)

    def windows(self, text: str, max_tokens: int) -> list[tuple[int, int]]:
        return self.counter.windows(text, max_tokens)

    def text_limit(self) -> int:
        return self.counter.text_limit

    def recognize(self, content_hash: str, suffix: str, page: int, languages: str, data: bytes | None = None,
                  abandon: Callable[[], bool] | None = None) -> OcrPage:
        """OCR of one page of a file: given by its bytes the first time, then held (by content hash) for the next
        pages, so a 200-page scan is not sent 200 times. (`abandon` is the child's; in-process a page runs out.)"""
        if self._scan is None or self._scan[0] != content_hash:
            if data is None:
                raise ScanNotOpen(content_hash)
            self._close_scan()
            if suffix == ".pdf":
                import pymupdf

                self._scan = (content_hash, pymupdf.open(stream=data, filetype="pdf"))
            elif suffix in office_pictures.SUFFIXES:  # its pictures, one opened for each "page"
                self._scan = (content_hash, data)
            else:
                self._scan = (content_hash, images.open_image(data))
        opened = self._scan[1]
        if suffix == ".pdf":
            pixels = paged.page_pixels(opened, page)
        elif suffix in office_pictures.SUFFIXES:
            pixels = images.frame_pixels(images.open_image(office_pictures.picture_bytes(cast(bytes, opened), page)), 1)
        else:
            pixels = images.frame_pixels(opened, page)
        if languages not in self._recognizers:
            self._recognizers[languages] = page_recognizer(languages)
        return self._recognizers[languages].recognize(*pixels)

    def open_container(self, name: str, content_hash: str, data: bytes, kind: str | None = None) -> list[MemberInfo]:
        """The documents inside an archive, a mailbox or a message (kept here for read_member); ParseError when
        the file as a whole cannot be read. `kind`: containers.members'."""
        self._container = None
        found = containers.members(name, data, kind)
        self._container = (content_hash, found, name)
        return [MemberInfo(m.chain, m.content_hash, len(m.data), m.problem, m.metadata) for m in found]

    def member_bytes(self, content_hash: str, position: int, reopen: Callable[[], None] | None = None) -> bytes:
        """The bytes of the document at `position` of the container opened last: a picture or a scan inside it,
        for OCR (recognize)."""
        if self._container is None or self._container[0] != content_hash:
            raise ContainerNotOpen(content_hash)
        return self._container[1][position].data

    def read_member(self, content_hash: str, position: int, chunk_tokens: int, overlap_tokens: int,
                    reopen: Callable[[], None] | None = None, ocr: Mapping[int, OcrPage] | None = None,
                    ) -> tuple[ParsedDocument, list[Chunk]]:
        """The document at `position` of the container opened last, with the OCR text of its scanned pages in
        `ocr`. (`reopen` is ReaderProcess's: in-process the container is never lost.)"""
        if self._container is None or self._container[0] != content_hash:
            raise ContainerNotOpen(content_hash)
        member = self._container[1][position]
        name = member.chain[-1] if member.chain else self._container[2]  # the file's own document: its name
        if member.document is not None:  # a message, read when its container was opened
            document = member.document
        elif member.message == containers.OUTLOOK:
            document = outlook.parse_msg(member.data, name)
        elif member.message in (containers.MESSAGE, containers.MAILBOX_MESSAGE):
            document = mail.parse_message(member.data, name)
        else:
            document = parsers.parse(Path(name), member.data, ocr)
        if member.title:  # an attachment: "mail subject › file name", with its mail's sender and date
            document = replace(document, title=member.title, metadata={**member.metadata, **document.metadata})
        return document, chunk_document(document, self.counter, chunk_tokens, overlap_tokens)

    def _close_scan(self) -> None:
        if self._scan is not None:
            if hasattr(self._scan[1], "close"):  # (an Office file's bytes: nothing held open)
                self._scan[1].close()
            self._scan = None


_READING, _COUNTING = "reading", "counting"


class CountingInReader:
    """The TokenCounter's interface, counted by the reader's child: the caller holds no tokenizer of its own
    (multilingual-e5's takes 280 MB once loaded; the app, the reader and the embedder each held one: issue 37)."""

    def __init__(self, child: ChildObject):
        self._child = child
        self._text_limit: int | None = None

    @property
    def text_limit(self) -> int:
        if self._text_limit is None:
            self._text_limit = self._ask("text_limit")
        return self._text_limit

    def count(self, texts: list[str]) -> list[int]:
        return self._ask("count", list(texts)) if texts else []

    def windows(self, text: str, max_tokens: int) -> list[tuple[int, int]]:
        return self._ask("windows", text, max_tokens)

    def _ask(self, method: str, *args):
        try:
            return self._child.call(method, *args, lane=_COUNTING)
        except ChildDied:  # ended under this call (a read on the other lane timed out): a new one answers
            return self._child.call(method, *args, lane=_COUNTING)


class ReaderProcess:
    """DocumentReader's read() in a child; its crash or a stuck read becomes the file's ParseError."""

    def __init__(self, embedding_model: Path, timeout_s: float = READ_TIMEOUT_S, reader=DocumentReader):
        self.timeout_s = timeout_s
        # `reader` is replaced only by tests that inject a crash or a hang. Counting has a lane of its own: an edit
        # counting its context's word pieces does not wait behind a long read.
        self._child = ChildObject(reader, (str(embedding_model),), name="the document reader", error=None,
                                  lanes=(_READING, _COUNTING))
        self.counter = CountingInReader(self._child)

    def read(self, path: Path, data: bytes, chunk_tokens: int, overlap_tokens: int,
             ocr: Mapping[int, OcrPage] | None = None,
             abandon: Callable[[], bool] | None = None) -> tuple[ParsedDocument, list[Chunk]]:
        """`abandon()`: checked while the child starts and reads (a pause, a cancel): CallAbandoned at once."""
        return self._call("read", str(path), data, chunk_tokens, overlap_tokens, ocr,
                          crashed="the parser crashed on this file", abandon=abandon)

    def _call(self, method: str, *args, doing: str = "reading", crashed: str,
              abandon: Callable[[], bool] | None = None):
        """The child's answer; its timeout or its death as the file's ParseError."""
        try:
            return self._child.call(method, *args, timeout=self.timeout_s, abandon=abandon)
        except ChildTimedOut as exc:
            raise parsers.TransientReadError(f"{doing} it took longer than {self.timeout_s:g} s and was stopped; it "
                                             "is tried again next time") from exc
        except ChildDied as exc:  # on this file (the child starts again for the next); not starting is no file's fault
            raise parsers.ParseError(f"{crashed} ({exc})") from exc

    def recognize(self, content_hash: str, suffix: str, page: int, languages: str, data: bytes,
                  abandon: Callable[[], bool] | None = None) -> OcrPage:
        """`abandon()`: checked while the page is read (a pause, a cancel); true ends the wait at once
        (CallAbandoned) and the page is asked again later."""
        try:
            try:
                return self._child.call("recognize", content_hash, suffix, page, languages,
                                        timeout=OCR_PAGE_TIMEOUT_S, abandon=abandon)
            except ScanNotOpen:
                return self._child.call("recognize", content_hash, suffix, page, languages, data,
                                        timeout=OCR_PAGE_TIMEOUT_S, abandon=abandon)
        except ChildTimedOut as exc:
            raise parsers.TransientReadError(f"OCR of page {page} took longer than {OCR_PAGE_TIMEOUT_S:g} s and was "
                                             "stopped; it is tried again next time") from exc
        except ChildDied as exc:
            raise parsers.ParseError(f"the OCR engine crashed on page {page} ({exc})") from exc

    def open_container(self, name: str, content_hash: str, data: bytes, kind: str | None = None) -> list[MemberInfo]:
        return self._call("open_container", name, content_hash, data, kind, doing="opening",
                          crashed="the reader crashed on this file")

    def read_member(self, content_hash: str, position: int, chunk_tokens: int, overlap_tokens: int,
                    reopen: Callable[[], None], ocr: Mapping[int, OcrPage] | None = None,
                    ) -> tuple[ParsedDocument, list[Chunk]]:
        """`reopen()`: opens the container again in the child, which lost it (it crashed on an earlier member)."""
        return self._in_container(reopen, "read_member", content_hash, position, chunk_tokens, overlap_tokens, None,
                                  ocr, crashed="the parser crashed on this document")

    def member_bytes(self, content_hash: str, position: int, reopen: Callable[[], None]) -> bytes:
        return self._in_container(reopen, "member_bytes", content_hash, position, crashed="the reader crashed")

    def _in_container(self, reopen: Callable[[], None], method: str, *args, crashed: str):
        try:
            try:
                return self._call(method, *args, crashed=crashed)
            except ContainerNotOpen:
                reopen()
                return self._call(method, *args, crashed=crashed)
        except ContainerNotOpen:
            raise parsers.ParseError("the reader lost the file it was reading") from None

    def wake(self) -> None:
        """Its child started now, on a thread of its own, when none runs (a watched folder's first change: the
        child starts while the watcher waits for the folder to be quiet, not after)."""
        self._child.start_soon()

    def unused_for(self, seconds: float) -> bool:
        """Its child runs and nothing asked it anything for `seconds`."""
        return self._child.running and self._child.use.unused_for(seconds)

    def end_if_unused(self, seconds: float) -> bool:
        """The child ended when nothing asked it anything for `seconds` (a container or scan it had open is opened
        again on the next call); it starts again, in ~1.5 s on 2 cores, for the next file."""
        return self._child.end_if_unused(seconds)

    def close(self, interrupt: bool = False) -> None:
        self._child.close(interrupt)
