"""PowerPoint (.pptx) through python-pptx: one page per slide, its title as the heading (or "Slide n"), the text of
every shape in reading order, tables row by row, SmartArt diagrams' boxes (smartart.py), and the speaker notes
(people remember what they said)."""

from __future__ import annotations

import io
from functools import partial

from desktop_rag.core.files.parsers.errors import unreadable
from desktop_rag.core.files.parsers.packages import (ooxml_properties, open_package, package_texts, readable_package,
                                                    slide_comments, with_section)
from desktop_rag.core.files.parsers.smartart import diagrams_in
from desktop_rag.core.files.parsers.structured import StructuredText
from desktop_rag.documents import ParsedDocument


def parse_pptx(data: bytes, stem: str, titles: frozenset[str] = frozenset()) -> ParsedDocument:
    """`titles`: texts known to be slides' titles where no placeholder says so (a .ppt converted: legacy_office)."""
    from pptx import Presentation

    data = readable_package(data, "PowerPoint file")
    with open_package(data, "PowerPoint file") as package:
        title, metadata = ooxml_properties(package)
    try:
        presentation = Presentation(io.BytesIO(data))
        text = StructuredText()
        for number, slide in enumerate(presentation.slides, start=1):
            title_shape = _title_shape(slide, titles)
            slide_title = title_shape.text_frame.text if title_shape is not None else ""
            add_slide(text, number, slide_title, _shape_texts(slide.shapes, skip=title_shape), _notes(slide))
    except Exception as exc:  # python-pptx raises KeyError, ValueError, lxml errors… for broken packages
        raise unreadable("not a readable PowerPoint file", exc) from None
    # Charts (titles, series and categories) and comments: not in the slides' text frames.
    document = text.document(title or text.first_title or stem, "pptx", metadata)
    document = with_section(document, "Charts", package_texts(data, r"ppt/charts/chart\d+\.xml"))
    return with_section(document, "Comments", slide_comments(data))


def add_slide(text: StructuredText, number: int, title: str, blocks: list[str], notes: str) -> None:
    """A slide as a page: shared by PowerPoint and OpenDocument presentations."""
    text.page()
    if title.strip():
        text.heading(1, title)
    else:
        text.heading(1, f"Slide {number}", shown=False)
    for block in blocks:
        text.add(block)
    if notes.strip():
        text.add(f"Notes: {notes.strip()}")


def _title_shape(slide, titles: frozenset[str]):
    """The slide's title placeholder; else the first text box holding one of `titles`; else None."""
    shape = slide.shapes.title
    if shape is not None and shape.has_text_frame:
        return shape
    if not titles:
        return None
    return next((shape for shape in slide.shapes if shape.has_text_frame
                 and " ".join(shape.text_frame.text.split("\n")[0].split()) in titles), None)


def _shape_texts(shapes, skip=None) -> list[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    blocks = []
    # Reading order: top to bottom, then left to right (the order of the XML is the order shapes were drawn in).
    ordered = sorted(shapes, key=lambda s: ((s.top or 0) // 100_000, s.left or 0))
    for shape in ordered:
        if skip is not None and shape.shape_id == skip.shape_id:
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            blocks.extend(_shape_texts(shape.shapes))
        elif getattr(shape, "has_table", False) and shape.has_table:
            rows = ["\t".join(" ".join(cell.text.split()) for cell in row.cells) for row in shape.table.rows]
            blocks.append("\n".join(r for r in rows if r.strip()))
        elif shape.has_text_frame:
            blocks.append("\n".join(p.text for p in shape.text_frame.paragraphs if p.text.strip()))
        else:
            blocks.extend(diagrams_in(shape._element, partial(_related_blob, shape.part)))
    return blocks


def _related_blob(part, key: str) -> bytes | None:
    try:
        return part.related_part(key).blob
    except KeyError:  # a diagram whose data part is missing: a damaged deck's one box, not the whole deck
        return None


def _notes(slide) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    return frame.text if frame is not None else ""
