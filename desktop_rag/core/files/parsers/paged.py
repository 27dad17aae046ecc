"""PDF and EPUB through PyMuPDF, page by page, with the outline (table of contents) as headings. A PDF page that is a
scan (an image over much of the page, next to no text) takes its text from OCR when the indexer has it, and is
listed in `scanned_pages` when it has not."""

from __future__ import annotations

import re
from collections.abc import Mapping

from desktop_rag.core.files.ocr import OcrPage
from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.packages import commented, password_protected
from desktop_rag.documents import Heading, ParsedDocument

PAGE_SEPARATOR = "\n\n"
# A page with fewer characters of text than this, and an image over SCAN_IMAGE_SHARE of it, is a scan. A scanner's
# page often carries a page number or a stamp as text; a typed page has hundreds of characters.
SCAN_TEXT_CHARS = 25
SCAN_IMAGE_SHARE = 0.3
# A page with no text at all and a picture over this share of it holds a picture of text as often as not (a pasted
# screenshot, a photographed note): read by OCR too (issue 38: such pages were taken for no scan, never read).
PICTURE_ONLY_SHARE = 0.05


def _annotation_texts(page, page_text: str) -> str:
    """What people wrote on a page in a PDF viewer: the text of its comments and text boxes (not links, marks),
    but for what the page's text has already (a text box drawn on the page)."""
    texts = []
    flat = " ".join(page_text.split())
    for annotation in page.annots() or ():
        content = (annotation.info.get("content") or "").strip()
        if content and content not in texts and " ".join(content.split()) not in flat:
            texts.append(commented(annotation.info.get("title") or "", content))  # (a PDF names its author "title")
    return "\n".join(texts)


def parse_pdf(data: bytes, stem: str, ocr: Mapping[int, OcrPage] | None = None) -> ParsedDocument:
    return _parse_paged(data, stem, "pdf", ocr or {})


def parse_epub(data: bytes, stem: str) -> ParsedDocument:
    return _parse_paged(data, stem, "epub", {})


def looks_scanned(page, text: str) -> bool:
    characters = len("".join(text.split()))
    if characters >= SCAN_TEXT_CHARS:
        return False
    area = abs(page.rect)
    covered = sum(abs(page.rect & info["bbox"]) for info in page.get_image_info())
    return area > 0 and covered / area >= (SCAN_IMAGE_SHARE if characters else PICTURE_ONLY_SHARE)


def _parse_paged(data: bytes, stem: str, filetype: str, ocr: Mapping[int, OcrPage]) -> ParsedDocument:
    import pymupdf  # `import fitz` is the deprecated name and warns

    pymupdf.TOOLS.mupdf_display_errors(False)  # its warnings go to stderr; we report errors per file instead
    try:
        document = pymupdf.open(stream=data, filetype=filetype)
    except Exception as exc:
        raise unreadable(f"corrupt or unreadable {filetype.upper()}", exc) from None
    with document:
        if document.needs_pass:
            raise ParseError(password_protected(filetype.upper()))
        parts: list[str] = []
        page_starts: list[int] = []
        scanned: list[int] = []
        confidence: dict[int, float | None] = {}
        length = 0
        try:
            for number, page in enumerate(document, start=1):  # type: ignore[arg-type,var-annotated]  # its pages
                if parts:
                    parts.append(PAGE_SEPARATOR)
                    length += len(PAGE_SEPARATOR)
                page_starts.append(length)
                text = page.get_text("text").replace("\x00", "").rstrip()
                if notes := _annotation_texts(page, text):  # sticky notes, text boxes added in a viewer
                    text = f"{text}\n{notes}" if text else notes
                if filetype == "pdf" and looks_scanned(page, text):
                    if number in ocr:
                        text, confidence[number] = ocr[number].text, ocr[number].confidence
                    else:
                        scanned.append(number)
                parts.append(text)
                length += len(text)
            toc = document.get_toc(simple=True)
            properties = document.metadata or {}
            meta_title = properties.get("title", "") or ""
        except Exception as exc:
            raise unreadable(f"damaged {filetype.upper()}", exc) from None
    text = "".join(parts)  # may be empty (a page of drawings): the indexer then knows it by its name and metadata
    headings = _outline_headings(toc, text, page_starts)
    title = meta_title.strip() or next((h.title for h in headings if h.level == 1), "") or _first_line(text) or stem
    metadata = {"author": (properties.get("author") or "").strip(),
                "created": pdf_date(properties.get("creationDate") or ""),
                "modified": pdf_date(properties.get("modDate") or "")}
    return ParsedDocument(text=text, title=title, parser=filetype, headings=headings, page_starts=page_starts,
                          scanned_pages=scanned, ocr_confidence=confidence,
                          metadata={key: value for key, value in metadata.items() if value})


_PDF_DATE = re.compile(r"^(?:D:)?(\d{4})(\d\d)?(\d\d)?(\d\d)?(\d\d)?(\d\d)?")


def pdf_date(value: str) -> str:
    """A PDF date ("D:20250314093000+01'00'") in ISO 8601, to the minute it gives; "" when it is none."""
    m = _PDF_DATE.match(value.strip())
    if not m:
        return ""
    year, month, day, hour, minute, _ = m.groups()
    date = f"{year}-{month or '01'}-{day or '01'}"
    return f"{date}T{hour}:{minute or '00'}" if hour else date


def page_pixels(document, number: int):
    """Page `number` (1-based) of an opened PDF rendered in grey for OCR: (bytes, width, height, stride)."""
    import pymupdf

    from desktop_rag.core.files.ocr import render_scale

    page = document[number - 1]
    scale = render_scale(page.rect.width, page.rect.height)
    pixmap = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), colorspace=pymupdf.csGRAY, alpha=False)
    return pixmap.samples, pixmap.width, pixmap.height, pixmap.stride


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
