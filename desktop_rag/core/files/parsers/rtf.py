"""Rich Text Format through striprtf. RTF is ASCII with escapes: \\'xx bytes in the document's code page
(\\ansicpg932 for Japanese), \\uN for Unicode. The title and author come from the {\\info} group. Headings are
not found: RTF marks them only by paragraph styles whose names live in the style sheet (not read here)."""

from __future__ import annotations

import codecs
import re

from desktop_rag.core.files.parsers.decoding import normalize_newlines
from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.documents import ParsedDocument

_CODE_PAGE = re.compile(rb"\\ansicpg(\d+)")
# A picture's \\bin without its byte count (pandoc's test/rtf/image.rtf, hexadecimal after it): striprtf failed the
# whole document on it. A control word's missing parameter is 0; the picture's group is then dropped as a picture.
_BIN_WITHOUT_COUNT = re.compile(r"\\bin(?![0-9a-zA-Z-])")
# Groups striprtf leaves out as destinations but that hold a person's words: headers, footers, footnotes and
# comments (a letter whose text sat in its header was "no text found", issue 38). Made plain groups, opening with a
# paragraph break, they are read where they sit.
_WORDS_IN_DESTINATIONS = re.compile(r"(?:\\\*)?\\(?:header[lrf]?|footer[lrf]?|footnote|annotation)(?![a-z])")
_INFO = {"title": re.compile(r"\{\\title\s*([^{}]*)\}"), "author": re.compile(r"\{\\author\s*([^{}]*)\}")}
_CREATED = re.compile(r"\{\\creatim\\yr(\d+)\\mo(\d+)\\dy(\d+)")
_MODIFIED = re.compile(r"\{\\revtim\\yr(\d+)\\mo(\d+)\\dy(\d+)")


def looks_like_rtf(data: bytes) -> bool:
    return data.lstrip()[:5] == b"{\\rtf"


def parse_rtf(data: bytes, stem: str) -> ParsedDocument:
    from striprtf.striprtf import rtf_to_text

    if not looks_like_rtf(data):
        raise ParseError("not an RTF document (it does not begin with {\\rtf)")
    encoding = _encoding(data)
    source = data.decode("latin-1")  # the markup is ASCII; \\'xx escapes are decoded by striprtf in `encoding`
    try:
        readable = _BIN_WITHOUT_COUNT.sub(r"\\bin0", _WORDS_IN_DESTINATIONS.sub(r"\\par ", source))
        text = rtf_to_text(readable, encoding=encoding, errors="replace")
    except (ValueError, IndexError, LookupError) as exc:
        raise unreadable("not a readable RTF document", exc) from None
    # A character beyond 16 bits is written as two \\u escapes, its UTF-16 surrogates, each made a character of its
    # own: joined here (a lone one becomes U+FFFD), so the text is valid Unicode for the tokenizer.
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    text = "\n".join(line.rstrip() for line in normalize_newlines(text).split("\n")).strip()
    metadata = {key: _unescape(m.group(1), encoding) for key, pattern in _INFO.items()
                if (m := pattern.search(source))}
    for key, pattern in (("created", _CREATED), ("modified", _MODIFIED)):
        if m := pattern.search(source):
            metadata[key] = f"{int(m.group(1)):04d}-{int(m.group(2)):02d}-{int(m.group(3)):02d}"
    title = metadata.pop("title", "") or _first_line(text) or stem
    return ParsedDocument(text=text, title=title, parser="rtf", metadata=metadata)


def _encoding(data: bytes) -> str:
    m = _CODE_PAGE.search(data[:4096])
    if m:
        try:
            return codecs.lookup(f"cp{int(m.group(1))}").name
        except LookupError:
            pass
    return "cp1252"


def _unescape(value: str, encoding: str) -> str:
    from striprtf.striprtf import rtf_to_text

    return " ".join(rtf_to_text("{\\rtf1 " + value + "}", encoding=encoding, errors="replace").split())


def _first_line(text: str) -> str:
    return next((line.strip()[:120] for line in text.split("\n") if line.strip()), "")
