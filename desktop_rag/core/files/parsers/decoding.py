"""Bytes to str for text formats: BOMs, UTF-8, then detection; binary data is refused, not indexed as noise."""

from __future__ import annotations

import codecs
import re

from desktop_rag.core.files.parsers.errors import ParseError

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# What a person is told (issue 51: "contains NUL bytes", "not UTF-8" said nothing one could act on).
NOT_TEXT = ("binary content, not text, though its name says text (a program's data, or a damaged file): nothing "
            "to read in it")
UNKNOWN_ENCODING = ("undecodable text: its characters are in an encoding that could not be recognised (open it in a "
                    "text editor and save it as Unicode text to have it indexed)")
# The share of NUL bytes a text may hold and still be read, when the rest of it is text: Tika's
# test_ignore_IBM420.html, a web page saved from a mail, has 28 in 1,869 bytes (1.5%) and was refused as binary.
_STRAY_NUL_SHARE = 0.02
# A text of plain ASCII but for a few stray bytes, in which charset-normalizer finds no encoding: read as the
# commonest code page, the strays replaced.
_STRAY_HIGH_SHARE = 0.01
_SNIFF_BYTES = 8192
SNIFF_BYTES = _SNIFF_BYTES
# Bytes sampled through the rest of a file, which is binary when more than a quarter of the samples are: a FITS
# image (80-character ASCII header cards, then its pixels) began as text and became 4,148 passages of garbled
# bytes, a third of a 13,000-passage library (issue 61). A text with a stray binary block still reads.
_SAMPLES, _SAMPLE_BYTES, _BINARY_SAMPLES_SHARE = 16, 4096, 0.25
_COMMONEST_LEGACY = "cp1252"


def decode_text(data: bytes, declared: str | None = None) -> str:
    """`declared`: the encoding the file names for itself (a web page's `<meta charset>`), taken when the text is
    not UTF-8 and decodes in it (declared_encoding)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return normalize_newlines(data.decode(encoding))
            except UnicodeDecodeError as exc:
                raise ParseError(f"undecodable text: invalid {encoding} ({exc.reason})") from None
    head = data[:_SNIFF_BYTES]
    if (wide := wide_without_bom(head)) is not None:
        return normalize_newlines(data.decode(wide, "replace"))
    if binary_further_in(data):
        raise ParseError(NOT_TEXT)
    if nuls := head.count(0):
        if nuls > len(head) * _STRAY_NUL_SHARE or not _few_controls(head.replace(b"\x00", b"")):
            raise ParseError(NOT_TEXT)
        data = data.replace(b"\x00", b"")  # a few stray bytes in a text (a web page saved from a mail): dropped
    try:
        return normalize_newlines(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    if looks_like_ebcdic(head):
        ebcdic = declared if declared in _EBCDIC_PAGES else _EBCDIC
        return normalize_newlines(data.decode(ebcdic, "replace").replace("\x85", "\n"))
    if declared is not None and declared not in _EBCDIC_PAGES:
        text = data.decode(declared, "replace")
        if text.count("\ufffd") <= len(text) * _STRAY_HIGH_SHARE:  # it is what it says it is
            return normalize_newlines(text)
    from charset_normalizer import from_bytes  # only needed for the minority of files that are not UTF-8

    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        if sum(byte > 0x7F for byte in head) <= len(head) * _STRAY_HIGH_SHARE:  # text, with a few stray bytes
            return normalize_newlines(data.decode(_COMMONEST_LEGACY, "replace"))
        raise ParseError(UNKNOWN_ENCODING)
    # Short Western texts often fit several code pages equally well; Windows-1252 is by far the most common of
    # them in users' files, so it wins a tie.
    tied = [m for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)]
    best = next((m for m in tied if m.encoding == _COMMONEST_LEGACY), best)
    return normalize_newlines(str(best))


def looks_like_text(head: bytes) -> bool:
    """Is a file whose type its name does not tell (LICENSE, Makefile, notes.log) text? Judged from its first
    bytes: a BOM says yes; NUL bytes or many control characters say no; then UTF-8 or a known encoding."""
    if any(head.startswith(bom) for bom, _ in _BOMS) or wide_without_bom(head) is not None:
        return True
    if not head or b"\x00" in head:
        return False
    if not _few_controls(head):
        return False
    try:
        head.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3:  # a character cut by the end of the sample
            return True
    if looks_like_ebcdic(head):
        return True
    from charset_normalizer import from_bytes

    best = from_bytes(head).best()
    return best is not None and best.chaos < 0.2


def looks_like_text_throughout(data: bytes) -> bool:
    """looks_like_text of a whole file's bytes: its start, and samples through the rest (binary_further_in)."""
    head = data[:_SNIFF_BYTES]
    if not looks_like_text(head):
        return False
    wide = any(head.startswith(bom) for bom, _ in _BOMS[1:]) or wide_without_bom(head) is not None
    return wide or not binary_further_in(data)


def binary_further_in(data: bytes) -> bool:
    """Whether the bytes past a file's first SNIFF_BYTES are binary: more than a quarter of the samples taken
    evenly through them hold NUL bytes or control characters as no text does. (Not for UTF-16 or UTF-32 text, whose
    every other byte is NUL.)"""
    starts = range(_SNIFF_BYTES, len(data), max((len(data) - _SNIFF_BYTES) // _SAMPLES, _SAMPLE_BYTES))
    samples = [data[start:start + _SAMPLE_BYTES] for start in starts][:_SAMPLES]
    binary = sum(1 for sample in samples if sample.count(0) > len(sample) * _STRAY_NUL_SHARE
                 or _controls(sample.replace(b"\x00", b"")) > len(sample) * 0.02)
    return binary > len(samples) * _BINARY_SAMPLES_SHARE


# Text from IBM mainframes and midrange machines (reports, exports kept for years) is EBCDIC: letters at 0x81-0xA9
# and 0xC1-0xE9, digits at 0xF0-0xF9, the space at 0x40, lines ended by 0x15 or 0x25. Code page 037 is US/Canada's;
# the others differ in a few punctuation marks. charset-normalizer took such files for binary content (issue 38).
_EBCDIC = "cp037"
_EBCDIC_TEXT = frozenset([0x40, 0x15, 0x25, 0x0D, 0x05, *range(0x4A, 0x51), *range(0x5A, 0x62), *range(0x6A, 0x70),
                          *range(0x79, 0x80), *range(0x81, 0x8A), *range(0x91, 0x9A), *range(0xA1, 0xAA),
                          *range(0xC0, 0xCA), *range(0xD0, 0xDA), *range(0xE0, 0xEA), *range(0xF0, 0xFA)])


# The EBCDIC code pages Python reads, by their names in a page's declaration (IBM424: Hebrew, IBM500:
# international, IBM273: German, IBM1140: US with the euro, IBM875: Greek, IBM1026: Turkish).
_EBCDIC_PAGES = frozenset({"cp037", "cp273", "cp424", "cp500", "cp875", "cp1026", "cp1140"})
# Names pages give that stand for a wider code page, as browsers read them (WHATWG's encoding standard): a page
# declared ISO-8859-1 with curly quotes in it is Windows-1252, one declared Shift_JIS is read as Windows' superset.
_AS_BROWSERS_READ = {"iso8859_1": "cp1252", "ascii": "cp1252", "iso8859_9": "cp1254", "shift_jis": "cp932",
                     "gb2312": "gb18030", "gbk": "gb18030", "euc_kr": "cp949", "tis_620": "cp874",
                     "iso8859_11": "cp874", "big5": "big5hkscs"}
_DECLARED = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]{2,40})"""
                       rb"""|<\?xml[^>]{0,100}?encoding\s*=\s*["']([A-Za-z0-9._:-]{2,40})""", re.IGNORECASE)


def declared_encoding(head: bytes) -> str | None:
    """The encoding a web page or XML file declares in its first bytes (`<meta charset>`, `http-equiv`'s content,
    `<?xml encoding>`), as Python names it; None when it declares none, or one Python does not know. A page in
    EBCDIC declares its own in EBCDIC: read as code page 037 first, whose letters and punctuation all of them
    share."""
    if looks_like_ebcdic(head):
        head = head.decode(_EBCDIC, "replace").encode("ascii", "replace")
    found = _DECLARED.search(head)
    if found is None:
        return None
    name = (found.group(1) or found.group(2)).decode("ascii").lower()
    try:
        known = codecs.lookup(name).name.replace("-", "_")  # (Python's own name: "iso8859-1", "euc_jp")
    except LookupError:
        return None
    if known in ("utf_8", "utf_16", "utf_16_le", "utf_16_be", "utf_32"):  # told by BOMs and bytes, never by words
        return None
    return _AS_BROWSERS_READ.get(known, known)


def looks_like_ebcdic(head: bytes) -> bool:
    """Nearly all of its bytes are EBCDIC's letters, digits, punctuation and spaces, with spaces between words."""
    if len(head) < 32:
        return False
    text_bytes = sum(1 for byte in head if byte in _EBCDIC_TEXT)
    return text_bytes >= 0.97 * len(head) and head.count(0x40) >= 0.08 * len(head)


def utf16_without_bom(head: bytes) -> str | None:
    """"utf-16-le" or "utf-16-be" for text saved as UTF-16 without its byte-order mark (Windows tools export so):
    nearly every other byte is 0 — the high bytes of Latin text — and the bytes between are not."""
    if len(head) < 16:
        return None
    half = len(head) / 2
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if odd > 0.4 * half and even < 0.05 * half:
        return "utf-16-le"
    if even > 0.4 * half and odd < 0.05 * half:
        return "utf-16-be"
    return None


def utf32_without_bom(head: bytes) -> str | None:
    """"utf-32-le" or "utf-32-be" for text saved as UTF-32 without its byte-order mark (issue 60: four CSVs a
    database tool exported so were refused as binary): in each group of four bytes the two high ones are 0 — every
    character of Latin, Japanese and the rest of Unicode's first plane — and the lowest is 0 only now and then."""
    if len(head) < 16:
        return None
    groups = len(head) // 4
    zeros = [head[i:groups * 4:4].count(0) for i in range(4)]
    if zeros[3] == groups and zeros[2] > 0.95 * groups and zeros[0] < 0.05 * groups:
        encoding = "utf-32-le"
    elif zeros[0] == groups and zeros[1] > 0.95 * groups and zeros[3] < 0.05 * groups:
        encoding = "utf-32-be"
    else:
        return None
    # A program's words of small numbers have that shape too: its "characters" are control characters.
    characters = head[:groups * 4].decode(encoding, "replace")
    controls = sum(1 for c in characters if ord(c) < 0x20 and ord(c) not in _TEXT_CONTROLS)
    return encoding if controls <= len(characters) * 0.02 and "\ufffd" not in characters else None


def wide_without_bom(head: bytes) -> str | None:
    """The UTF-32 or UTF-16 text without a byte-order mark that `head` begins, as Python names its encoding."""
    return utf32_without_bom(head) or utf16_without_bom(head)


_TEXT_CONTROLS = frozenset(b"\t\n\r\f\v\x1b\x08")


def _few_controls(head: bytes) -> bool:
    """No more control characters than a text has (binary data has them everywhere)."""
    return _controls(head) <= len(head) * 0.02


_NOT_TEXT_CONTROLS = bytes(byte for byte in range(0x20) if byte not in _TEXT_CONTROLS)


def _controls(data: bytes) -> int:
    """How many of `data`'s bytes are control characters no text holds (deleted and counted: 4 KB in µs)."""
    return len(data) - len(data.translate(None, _NOT_TEXT_CONTROLS))


def normalize_newlines(text: str) -> str:
    # Offsets must be stable: \r\n and \r become \n once, here, so every later offset refers to the same text.
    return text.replace("\r\n", "\n").replace("\r", "\n")
