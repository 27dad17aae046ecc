"""Word 97–2003 (.doc) and PowerPoint 97–2003 (.ppt): binary formats no maintained PyPI library reads (antiword and
catdoc are programs, not packages; python-pptx and python-docx read only the XML formats). Such a file gets its own
error with the way out. A ".doc" that is really RTF, HTML or text (Word and many programs save those under that
name) is read as what it is."""

from __future__ import annotations

from desktop_rag.core.files.parsers import html, markup, rtf
from desktop_rag.core.files.parsers.errors import ParseError
from desktop_rag.core.files.parsers.packages import OLE_MAGIC
from desktop_rag.documents import ParsedDocument

_WAY_OUT = {
    ".doc": ("a Word 97–2003 document", "Word or LibreOffice", ".docx"),
    ".ppt": ("a PowerPoint 97–2003 presentation", "PowerPoint or LibreOffice Impress", ".pptx"),
}


def parse_legacy(data: bytes, stem: str, suffix: str) -> ParsedDocument:
    if rtf.looks_like_rtf(data):
        return rtf.parse_rtf(data, stem)
    head = data[:512].lstrip().lower()
    if head.startswith((b"<html", b"<!doctype html")):
        return html.parse_html(data, stem)
    what, program, modern = _WAY_OUT[suffix]
    if not data.startswith(OLE_MAGIC):
        try:
            return markup.parse_plain(data, stem)
        except ParseError:
            raise ParseError(f"not {what}, nor text (corrupt or truncated)") from None
    raise ParseError(f"{what} ({suffix}): this old binary format is not read; open it in {program} and save it as "
                     f"{modern} to have it indexed")


def parse_doc(data: bytes, stem: str) -> ParsedDocument:
    return parse_legacy(data, stem, ".doc")


def parse_ppt(data: bytes, stem: str) -> ParsedDocument:
    return parse_legacy(data, stem, ".ppt")
