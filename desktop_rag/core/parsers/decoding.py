"""Bytes to str for text formats: BOMs, UTF-8, then detection; binary data is refused, not indexed as noise."""

from __future__ import annotations

import codecs

from desktop_rag.core.parsers.errors import ParseError

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_SNIFF_BYTES = 8192


def decode_text(data: bytes) -> str:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return _normalize_newlines(data.decode(encoding))
            except UnicodeDecodeError as exc:
                raise ParseError(f"undecodable text: invalid {encoding} ({exc.reason})") from None
    head = data[:_SNIFF_BYTES]
    if b"\x00" in head:
        raise ParseError("binary content in a text file (contains NUL bytes)")
    try:
        return _normalize_newlines(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes  # only needed for the minority of files that are not UTF-8

    best = from_bytes(data).best()
    if best is None:
        raise ParseError("undecodable text: not UTF-8, and no known encoding fits")
    return _normalize_newlines(str(best))


def _normalize_newlines(text: str) -> str:
    # Offsets must be stable: \r\n and \r become \n once, here, so every later offset refers to the same text.
    return text.replace("\r\n", "\n").replace("\r", "\n")
