"""PDF and EPUB through PyMuPDF, page by page, with the outline (table of contents) as headings."""

from __future__ import annotations

from desktop_rag.core.files.parsers.errors import ParseError
from desktop_rag.documents import Heading, ParsedDocument

PAGE_SEPARATOR = "\n\n"


def parse_pdf(data: bytes, stem: str) -> ParsedDocument:
    return _parse_paged(data, stem, "pdf")


def parse_epub(data: bytes, stem: str) -> ParsedDocument:
    return _parse_paged(data, stem, "epub")


def _parse_paged(data: bytes, stem: str, filetype: str) -> ParsedDocument:
    import pymupdf  # `import fitz` is the deprecated name and warns

    pymupdf.TOOLS.mupdf_display_errors(False)  # its warnings go to stderr; we report errors per file instead
    try:
        document = pymupdf.open(stream=data, filetype=filetype)
    except Exception as exc:
        raise ParseError(f"corrupt or unreadable {filetype.upper()}: {exc}") from None
    with document:
        if document.needs_pass:
            raise ParseError(f"encrypted {filetype.upper()}: a password is needed to read it")
        parts: list[str] = []
        page_starts: list[int] = []
        length = 0
        try:
            for page in document:
                if parts:
                    parts.append(PAGE_SEPARATOR)
                    length += len(PAGE_SEPARATOR)
                page_starts.append(length)
                text = page.get_text("text").replace("\x00", "").rstrip()
                parts.append(text)
                length += len(text)
            toc = document.get_toc(simple=True)
            meta_title = (document.metadata or {}).get("title", "") or ""
        except Exception as exc:
            raise ParseError(f"damaged {filetype.upper()}: {exc}") from None
    text = "".join(parts)
    if not text.strip():
        raise ParseError(f"no extractable text in this {filetype.upper()} (scanned pages need OCR)")
    headings = _outline_headings(toc, text, page_starts)
    title = meta_title.strip() or next((h.title for h in headings if h.level == 1), "") or _first_line(text) or stem
    return ParsedDocument(text=text, title=title, parser=filetype, headings=headings, page_starts=page_starts)


def _outline_headings(toc, text: str, page_starts: list[int]) -> list[Heading]:
    headings = []
    for level, title, page in toc:
        if not (1 <= page <= len(page_starts)):
            continue
        start = page_starts[page - 1]
        end = page_starts[page] if page < len(page_starts) else len(text)
        found = text.find(title.strip(), start, end)  # the heading's own line if the page shows it
        headings.append(Heading(found if found >= 0 else start, level, title.strip()))
    headings.sort(key=lambda h: h.start_char)
    return headings


def _first_line(text: str) -> str:
    return next((line.strip()[:120] for line in text.split("\n") if line.strip()), "")
