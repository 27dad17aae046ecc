"""Runs of encoded data left out of a document's text, whatever its format: base64 (a picture inside a Word 2003 XML
file, an inline attachment pasted into a mail, a data URI in a web page or a Markdown note, a PEM block) and hex.

They are no words a person searches for, yet they were indexed as words: three Word 2003 XML files gave 4,107
chunks, and 17% of a library's chunks were base64 runs; a Markdown note's inline SVG became its key terms
("CiAgICAgICAg…", issue 51). A run is a token of base64 or hex characters — or tokens of at least
MIN_LINE_CHARS each, one a line, as MIME and PEM wrap them — of MIN_RUN_CHARS or more that looks encoded (upper
and lower case letters and digits; hex: digits and letters). It is cut from the text, headings and pages moved to
match, and the number of characters left out is kept in the document's metadata (LEFT_OUT_KEY).
"""

from __future__ import annotations

import dataclasses
import re

from desktop_rag.documents import ParsedDocument

# Longer than any word, hash or identifier people search for (a SHA-512 in hex is 128 characters), shorter than
# the smallest picture worth embedding in a document (a 16×16 PNG is ~400 characters of base64).
MIN_RUN_CHARS = 256
MIN_LINE_CHARS = 40  # a wrapped line of a MIME part (76) or a PEM block (64); a line of prose has spaces in it
LEFT_OUT_KEY = "encoded_chars_left_out"

_TOKEN = r"[A-Za-z0-9+/=_-]"
_RUNS = re.compile(rf"(?:{_TOKEN}{{{MIN_LINE_CHARS},}}[ \t]*\r?\n[ \t>]*)*{_TOKEN}{{{MIN_LINE_CHARS},}}")
_HEX = re.compile(r"[0-9A-Fa-f\s]+")


def looks_encoded(run: str) -> bool:
    """Data, not words: hex (digits and letters a–f only, both), or base64 (capitals, small letters and digits)."""
    has_digit = any(c.isdigit() for c in run)
    if _HEX.fullmatch(run):
        return has_digit and any(c.isalpha() for c in run)
    return has_digit and any(c.isupper() for c in run) and any(c.islower() for c in run)


def encoded_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run to leave out, in order."""
    return [(m.start(), m.end()) for m in _RUNS.finditer(text)
            if m.end() - m.start() >= MIN_RUN_CHARS and looks_encoded(m.group())]


def without_encoded_runs(document: ParsedDocument) -> ParsedDocument:
    """The document with every encoded run cut from its text (a line break in its place), its headings' and pages'
    offsets moved to match, and LEFT_OUT_KEY in its metadata when anything was cut."""
    runs = encoded_runs(document.text)
    if not runs:
        return document
    kept: list[str] = []
    shifts: list[tuple[int, int, int]] = []  # (start, end, characters removed before `end`) of each run
    at = removed = 0
    for start, end in runs:
        kept.append(document.text[at:start])
        kept.append("\n")
        removed += end - start - 1
        shifts.append((start, end, removed))
        at = end
    kept.append(document.text[at:])

    def moved(offset: int) -> int:
        before = 0
        for start, end, removed_by_end in shifts:
            if offset < start:
                break
            if offset < end:  # inside a run: where it was
                return start - before
            before = removed_by_end
        return offset - before

    headings = [dataclasses.replace(h, start_char=moved(h.start_char)) for h in document.headings]
    left_out = sum(end - start for start, end in runs)
    return dataclasses.replace(document, text="".join(kept), headings=headings,
                               page_starts=[moved(p) for p in document.page_starts],
                               metadata={**document.metadata, LEFT_OUT_KEY: str(left_out)})
