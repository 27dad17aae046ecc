"""Plain data passed between pipeline stages."""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass, field


# Below this mean word confidence an OCR page's text is too garbled to ask a language model about: it would write a
# fluent, wrong context. Such chunks keep rules contexts, marked with RULES_FOR_LOW_OCR as their prompt version so no
# upgrade asks about them. (Tesseract gives clean scans 0.9–0.96; a page it mostly misreads falls under 0.6.)
LOW_OCR_CONFIDENCE = 0.6
RULES_FOR_LOW_OCR = "rules: low OCR confidence"


# A document inside a file (an archive member, a mailbox's message, an attachment) has the file's path, then each
# name on the way to it: "/home/a/photos.zip › 2023/receipt.pdf", "/home/a/Inbox › 2025-03-14 Lunch › menu.pdf".
MEMBER_SEPARATOR = " › "


def member_path(container: str, chain: tuple[str, ...] | list[str]) -> str:
    return MEMBER_SEPARATOR.join([container, *chain])


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def folder_and_name(path: str) -> tuple[str, str]:
    """A path as a person reads it: the folder, and the name in it. A document inside a file is named from that
    file on ("photos.zip › 2023/receipt.pdf"), not from the last slash of its member name."""
    on_disk, separator, inside = path.partition(MEMBER_SEPARATOR)
    folder, _, name = on_disk.replace("\\", "/").rpartition("/")
    return (folder or "/"), name + separator + inside


def local_day(epoch: float) -> str:
    """"2025-03-14": the local calendar day of a moment in epoch seconds."""
    return time.strftime("%Y-%m-%d", time.localtime(epoch))


# Who wrote a context, in a person's words ("rules", "llm" are the code's: issue 37), for a hit and for the stats.
CONTEXT_SOURCE_WORDS = {"rules": "automatic", "llm": "by the language model", "manual": "edited by you",
                        "none": "none"}
# A hit's raw scores, by what each measures, for the CLI's results and the window's tooltip (JSON keeps the code's).
SCORE_WORDS = {"dense": "meaning similarity", "bm25": "keyword score", "fused": "combined", "rerank": "reranked"}


def metadata_words(metadata: dict[str, str] | None, dated: float | None = None) -> str:
    """What a hit says of its document: "from Anna Berg <anna@example.org>, 2025-03-14 09:30" for a mail (and an
    attachment, "attached to …"), "by Kim, modified 2025-03-01" for an office file, the day being `dated` (epoch
    seconds: the file's last change, what date filters use) where given, else the file's own date; "" when
    nothing is known."""
    if not metadata:
        return f"modified {local_day(dated)}" if dated else ""
    when = lambda key: metadata[key][:16].replace("T", " ")  # noqa: E731 (minutes are enough to tell mails apart)
    parts = []
    if "from" in metadata:
        parts.append(f"from {metadata['from']}")
        if "to" in metadata:
            parts.append(f"to {metadata['to']}")
        if "date" in metadata:
            parts.append(when("date"))
        if "attached_to" in metadata:
            parts.append(f"attached to “{metadata['attached_to']}”")
        return ", ".join(parts)
    if "author" in metadata:
        parts.append(f"by {metadata['author']}")
    if dated:  # the day the date filters use: a PDF's inner date shown beside `after:` disagreed (issue 37)
        parts.append(f"modified {local_day(dated)}")
    elif "modified" in metadata or "created" in metadata:
        key = "modified" if "modified" in metadata else "created"
        parts.append(f"{key} {when(key)}")
    return ", ".join(parts)


# The parser recorded for a document known by its name alone: there is no text in it (a deck of charts, a blank
# page, a photo without words). One that could not be read at all is a failure, found by its name too. Either has
# one passage, its name card: Recoll, DocFetcher and Spotlight find every file by its name and what it says of
# itself (issue 37: 74 of 511 files of a home folder could not be found, not even by name).
NAME_ONLY = "name only"
# A document inside a file with the same bytes as one before it there (a backup's repeated files): known by its name
# and where its text is, which is read, chunked and embedded once.
COPY = "copy"


def name_card(path: str, title: str | None = None, metadata: dict[str, str] | None = None) -> str:
    """A document's name, the folder that holds it, its title and what it says of itself (author, sender,
    dates): what a document without text is found by."""
    folder, name = folder_and_name(path)
    lines = [name, folder]
    if title and title not in name:
        lines.append(title)
    if about := metadata_words(metadata):
        lines.append(about)
    return "\n".join(lines)


def copies_words(copies: list[str], shown: int = 3) -> str:
    """"also at ~/Backup/report.pdf, …": where the same content is kept besides the hit's file."""
    more = f" and {len(copies) - shown} more" if len(copies) > shown else ""
    return "also at " + ", ".join(copies[:shown]) + more


def unread_words(reason: str) -> str:
    """Why a hit found by its name shows no text: "" (none in it), or the reason it could not be read."""
    if not reason:
        return "Found by its name: there is no text in this file."
    return f"Found by its name: its text could not be read ({reason.rstrip('.')})."


def name_chunk(card: str) -> Chunk:
    """The one passage of a document known by its name: its name card."""
    return Chunk(0, card, 0, len(card), None, [], len(card.split()), text_hash(card))


def duration_words(seconds: float) -> str:
    """"40 s", "27 min", "1.5 h": how long, as a person says it (not "in 1625.2 s": issue 37)."""
    if seconds < 60:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def share_told(share: float) -> float:
    """A share of work done as it is told, to the percent below: rounded, 99.6% read "100%" with passages still
    to embed (issue 60's one-state test)."""
    return math.floor(share * 100 + 1e-9) / 100


def share_words(share: float) -> str:
    """"99%" (share_told)."""
    return f"{share_told(share):.0%}"


def how_many(n: int, noun: str, plural: str = "") -> str:
    """"1 result", "3 results", "1 weak match", "2 weak matches"."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def upgrade_words(written: int, documents: int, kept_rules: int) -> str:
    """What an LLM upgrade did, as the run's summary and the window's panel both say it."""
    return (f"{how_many(written, 'context')} written by the LLM in {how_many(documents, 'document')}; "
            f"{kept_rules:,} kept {'its' if kept_rules == 1 else 'their'} rules context")


def documents_sentence(documents: dict) -> str:
    """The library's stats()["documents"] in words, as the CLI and the Stats tab say it."""
    inside = documents.get("inside_files", 0)
    encoded = documents.get("encoded_left_out", 0)
    return (f"{documents['indexed']:,} indexed"
            + (f" (and {how_many(inside, 'document')} inside archives and mail)" if inside else "")
            + f", {documents['failed']:,} failed, {documents.get('skipped', 0):,} skipped (not text, or a format not "
              "read)"
            + (f"; {how_many(encoded, 'document')} held encoded data (base64 or hex, "
               f"{documents.get('encoded_chars_left_out', 0):,} characters), left out as no words" if encoded else ""))


@dataclass(frozen=True)
class Heading:
    start_char: int  # where the heading's section begins in the extracted text
    level: int  # 1 = outermost
    title: str


@dataclass
class ParsedDocument:
    """Extracted text plus its structure. Every offset refers to `text`."""

    text: str
    title: str
    parser: str
    headings: list[Heading] = field(default_factory=list)
    # Offset where each page starts (page n begins at page_starts[n-1]); empty for formats without pages.
    page_starts: list[int] = field(default_factory=list)
    # Pages (1-based) that look scanned (an image and next to no text) and have no OCR text yet: the indexer has
    # them recognised (core/files/ocr.py) and reads the file again with their text.
    scanned_pages: list[int] = field(default_factory=list)
    # Pages whose text came from OCR, with the words' mean confidence (0–1; None: no word was found).
    ocr_confidence: dict[int, float | None] = field(default_factory=dict)
    # What the file says of itself, kept in the catalog for filters and shown on hits: who wrote it and when
    # ("author", "created", "modified": Office, OpenDocument, RTF and PDF properties), for e-mail "from", "to",
    # "cc", "date", and for an attachment "attached_to" (its mail's subject). Dates are ISO 8601.
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def page_count(self) -> int | None:
        return len(self.page_starts) or None

    def ocr_confidence_of(self, page: int | None) -> float | None:
        """A page's OCR confidence; None for a page not read by OCR, or one where OCR found no word."""
        return self.ocr_confidence.get(page) if page is not None else None

    def garbled_chunks(self, chunks: list[Chunk]) -> list[int]:
        """Positions of the chunks that begin on a page OCR read with low confidence."""
        return [i for i, chunk in enumerate(chunks)
                if (confidence := self.ocr_confidence_of(chunk.page)) is not None and confidence < LOW_OCR_CONFIDENCE]


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str  # == document.text[start_char:end_char]
    start_char: int
    end_char: int
    page: int | None
    heading_path: list[str]
    token_count: int
    text_hash: str


@dataclass(frozen=True)
class ContextResult:
    text: str
    source: str  # none | rules | llm | manual
    model: str | None = None
    prompt_version: str | None = None
    quality: float | None = None
    quality_detail: dict | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    questions: str = ""  # questions the chunk answers, one per line (LLM contexts with llm_questions; doc2query)


def question_list(questions: str) -> list[str]:
    """The questions as stored (one per line) as a list, blank lines left out."""
    return [line for line in questions.splitlines() if line.strip()]


def keyword_text(context: str, chunk_text: str, questions: str = "") -> str:
    """What the keyword index holds for a chunk: its context and text, then the questions it answers (they are
    words a person may search with; not embedded: core/llm/prompts.py, "questions")."""
    text = index_text(context, chunk_text)
    return f"{text}\n\n{questions}" if questions else text


def index_text(context: str, chunk_text: str) -> str:
    """What is embedded and keyword-indexed. Context first: with a 256-piece embedder the context must not be the
    part that gets cut (DEVELOPERS.md, "Findings the code relies on": context first 94.9 vs chunk first 90.8 dense
    @20)."""
    return f"{context}\n\n{chunk_text}" if context else chunk_text
