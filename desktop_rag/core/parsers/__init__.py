"""Turn a file's bytes into text plus structure (headings, pages). One module per family of formats.

A parser raises ParseError with a reason a person can act on; the pipeline records it for that file and goes on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from desktop_rag.core.models import ParsedDocument
from desktop_rag.core.parsers.errors import ParseError
from desktop_rag.core.parsers import code, docx, html, markup, paged

Parser = Callable[[bytes, str], ParsedDocument]

_BY_EXTENSION: dict[str, Parser] = {
    ".pdf": paged.parse_pdf,
    ".epub": paged.parse_epub,
    ".txt": markup.parse_plain,
    ".text": markup.parse_plain,
    ".md": markup.parse_markdown,
    ".markdown": markup.parse_markdown,
    ".rst": markup.parse_rst,
    ".html": html.parse_html,
    ".htm": html.parse_html,
    ".xhtml": html.parse_html,
    ".docx": docx.parse_docx,
}
_BY_EXTENSION.update({ext: code.parse_code for ext in code.EXTENSIONS})

SUPPORTED_EXTENSIONS = frozenset(_BY_EXTENSION)


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in _BY_EXTENSION


def parse(path: Path, data: bytes) -> ParsedDocument:
    parser = _BY_EXTENSION.get(path.suffix.lower())
    if parser is None:
        raise ParseError(f"unsupported file type '{path.suffix}'")
    if not data:
        raise ParseError("empty file")
    document = parser(data, path.stem)
    if not document.text.strip():
        raise ParseError("no text found in the document")
    return document


__all__ = ["ParseError", "SUPPORTED_EXTENSIONS", "is_supported", "parse"]
