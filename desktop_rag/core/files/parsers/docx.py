"""Word documents: paragraphs and tables in body order; 'Heading N' and 'Title' styles are headings."""

from __future__ import annotations

import io
import re

from desktop_rag.core.files.parsers.errors import ParseError
from desktop_rag.core.files.parsers.packages import ooxml_properties, open_package
from desktop_rag.documents import Heading, ParsedDocument

_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.I)


def parse_docx(data: bytes, stem: str) -> ParsedDocument:
    import docx  # python-docx; imported here so the other formats don't pay for lxml at start-up
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    with open_package(data, "DOCX") as package:
        _, metadata = ooxml_properties(package)
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises KeyError, ValueError, lxml errors... for broken packages
        raise ParseError(f"corrupt DOCX: {exc.__class__.__name__}: {exc}") from None

    parts: list[str] = []
    headings: list[Heading] = []
    length = 0
    for element in document.element.body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(element, document)
            text = paragraph.text.strip()
            if not text:
                continue
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            level = 1 if style.lower() == "title" else _heading_level(style)
            if level:
                headings.append(Heading(length, level, text))
        elif tag == "tbl":
            rows = ["\t".join(cell.text.strip() for cell in row.cells) for row in Table(element, document).rows]
            text = "\n".join(r for r in rows if r.strip())
            if not text:
                continue
        else:
            continue
        parts.append(text)
        length += len(text) + 2
    text = "\n\n".join(parts)
    title = (document.core_properties.title or "").strip() or next((h.title for h in headings), "") or stem
    return ParsedDocument(text=text, title=title, parser="docx", headings=headings, metadata=metadata)


def _heading_level(style: str) -> int:
    m = _HEADING_STYLE.match(style.strip())
    return int(m.group(1)) if m else 0
