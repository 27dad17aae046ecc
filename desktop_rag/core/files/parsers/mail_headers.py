"""Mail headers written with 8-bit bytes instead of RFC 2047's encoded words, as older programs and many a mailing
list did: UTF-8 is read by Python's parser, any other charset became U+FFFD ("Ingo L�tkebohle", in Apache's list
archive of 1997; Shift_JIS subjects in Japanese mail of the same years). Such a line is read in the charset the
message declares for its text, else in Windows-1252 (what mail programs of the West fall back to, as Thunderbird
does), and given to the parser in UTF-8."""

from __future__ import annotations

import codecs
import re

_DECLARED = re.compile(rb"""charset\s*=\s*["']?([A-Za-z0-9_.:+-]+)""", re.IGNORECASE)
_EIGHT_BIT = re.compile(rb"[\x80-\xff]")
FALLBACK = "cp1252"


def declared_charset(message: bytes) -> str | None:
    """The first charset the message declares (its own Content-Type, or its first part's), if Python knows it and it
    is not plain ASCII or UTF-8 (in which the lines would have decoded already)."""
    for found in _DECLARED.finditer(message[:65536]):
        name = found.group(1).decode("ascii").lower()
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            continue
        if codec not in ("ascii", "utf-8"):
            return codec
    return None


def _mostly_utf8(line: bytes) -> bool:
    """UTF-8, or UTF-8 with a stray byte or two (more characters it decodes than bytes it cannot): a line in
    another charset decodes as UTF-8 hardly ever (a byte over 0x7F must start a sequence its next bytes finish)."""
    text = line.decode("utf-8", "replace")
    broken = text.count("\ufffd") - line.decode("utf-8", "ignore").count("\ufffd")
    return broken == 0 or sum(1 for c in text if ord(c) > 0x7F and c != "\ufffd") > broken


def headers_in_utf8(head: bytes, message: bytes) -> bytes:
    """`head` (the message's header block) with each line of 8-bit bytes that are not UTF-8 recoded to UTF-8 (a
    stray byte in a UTF-8 line replaced)."""
    if not _EIGHT_BIT.search(head):
        return head
    charset: str | None = None
    lines = head.split(b"\n")
    for number, line in enumerate(lines):
        if not _EIGHT_BIT.search(line):
            continue
        if _mostly_utf8(line):
            lines[number] = line.decode("utf-8", "replace").encode("utf-8")
            continue
        charset = charset or declared_charset(message) or FALLBACK
        try:
            text = line.decode(charset)
        except UnicodeDecodeError:
            text = line.decode(FALLBACK if charset != FALLBACK else "latin-1", "replace")
        lines[number] = text.encode("utf-8")
    return b"\n".join(lines)
