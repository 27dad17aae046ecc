"""Word documents: every part a person wrote text in, in body order — paragraphs ('Heading N' and 'Title' styles are
headings), tables with the tables nested in their cells, content controls (form fields, a template's blocks), text
boxes and SmartArt diagrams (smartart.py), documents imported whole (altChunk: HTML or MHT), then the headers and
footers, footnotes, endnotes and comments, each under a heading of its own.

The XML is walked here rather than through python-docx's paragraphs and cells: a cell's `text` leaves its nested
tables out, the body's content controls and altChunks are not paragraphs, and an XML comment among the body's
children made python-docx's reader fail the whole document (issue 38, each seen on real files).
"""

from __future__ import annotations

import email
import email.policy
import io
import re

from desktop_rag.core.files.parsers import html
from desktop_rag.core.files.parsers.errors import unreadable
from desktop_rag.core.files.parsers.mail import decoded_payload
from desktop_rag.core.files.parsers.packages import commented, ooxml_properties, open_package, readable_package
from desktop_rag.core.files.parsers.smartart import diagrams_in
from desktop_rag.documents import Heading, ParsedDocument

_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.I)
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
# A drawing's text box is written twice, for new Word (mc:Choice) and old (mc:Fallback): read once.
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
# The parts beside the body, in the order they are added after it, with the heading each gets.
_SIDE_PARTS = (("header", "Headers and footers"), ("footer", "Headers and footers"), ("footnotes", "Footnotes"),
               ("endnotes", "Endnotes"), ("comments", "Comments"))
# Footnotes 0 and 1 (and endnotes') are Word's separator lines, not notes.
_SEPARATOR_NOTES = {"separator", "continuationSeparator", "continuationNotice"}


def parse_docx(data: bytes, stem: str) -> ParsedDocument:
    import docx  # python-docx; imported here so the other formats don't pay for lxml at start-up

    data = readable_package(data, "DOCX")
    with open_package(data, "DOCX") as package:
        _, metadata = ooxml_properties(package)
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises KeyError, ValueError, lxml errors... for broken packages
        raise unreadable("not a readable DOCX", exc) from None

    blocks = _Blocks(document)
    for element in document.element.body.iterchildren():
        blocks.add(element, top=True)
    for kind, heading in _SIDE_PARTS:
        for part in _side_parts(document, kind):
            blocks.add_part(part.element if hasattr(part, "element") else _xml(part.blob), heading)
    text = "\n\n".join(blocks.parts)
    title = (document.core_properties.title or "").strip() or next((h.title for h in blocks.headings), "") or stem
    return ParsedDocument(text=text, title=title, parser="docx", headings=blocks.headings, metadata=metadata)


class _Blocks:
    """The text of a document's blocks, as paragraphs joined by blank lines, with the headings among them."""

    def __init__(self, document):
        self.document = document
        self.parts: list[str] = []
        self.headings: list[Heading] = []
        self._length = 0
        self._seen_side_texts: set[str] = set()

    def add(self, element, top: bool = False) -> None:
        """A block of the body (or of a cell, a content control, a header): a paragraph, a table, a control."""
        tag = element.tag if isinstance(element.tag, str) else ""  # an XML comment or instruction: no text
        if tag == f"{_W}p":
            self._paragraph(element, top)
        elif tag == f"{_W}tbl":
            self._append(_table_text(element))
        elif tag == f"{_W}sdt":  # a content control: its content is blocks
            for content in element.iterchildren(f"{_W}sdtContent"):
                for child in content.iterchildren():
                    self.add(child, top)
        elif tag == f"{_W}altChunk":
            self._append(self._imported(element.get(_R_ID)))
        elif tag in (f"{_W}customXml", f"{_W}ins", f"{_W}moveTo"):  # wrappers of blocks
            for child in element.iterchildren():
                self.add(child, top)

    def add_part(self, root, heading: str) -> None:
        """A header, a footer, the footnotes or the comments: under `heading`; a header repeated by each section
        once."""
        texts = []
        for element in root.iterchildren():
            if element.tag in (f"{_W}footnote", f"{_W}endnote", f"{_W}comment"):
                if element.get(f"{_W}type") in _SEPARATOR_NOTES:
                    continue
                said = "\n".join(filter(None, (_block_text(child) for child in element.iterchildren())))
                author = (element.get(f"{_W}author") or "").strip() if element.tag == f"{_W}comment" else ""
                texts.append(commented(author, said))
            else:
                texts.append(_block_text(element))
        text = "\n".join(t for t in texts if t.strip()).strip()
        if not text or text in self._seen_side_texts:
            return
        self._seen_side_texts.add(text)
        if not self.headings or self.headings[-1].title != heading:
            self.headings.append(Heading(self._length, 1, heading))
            self._append(heading)
        self._append(text)

    def _paragraph(self, element, top: bool) -> None:
        text = _paragraph_text(element).strip()
        if text and top:
            level = _heading_level(self._style_name(element))
            if level:
                self.headings.append(Heading(self._length, level, text))
        self._append(text)
        for box in _text_boxes(element):  # text boxes anchored in the paragraph, after it
            self._append(box)
        for diagram in diagrams_in(element, self._related_blob):  # and SmartArt diagrams drawn in it
            self._append(diagram)

    def _style_name(self, element) -> str:
        from docx.text.paragraph import Paragraph

        style = Paragraph(element, self.document).style
        name = (style.name if style is not None else "") or ""
        return "heading 1" if name.lower() == "title" else name

    def _imported(self, relationship: str | None) -> str:
        """The text of a document imported whole (altChunk): HTML, an MHT web archive, or text."""
        part = self.document.part.related_parts.get(relationship) if relationship else None
        if part is None:
            return ""
        return _imported_text(part.blob, getattr(part, "content_type", ""))

    def _related_blob(self, relationship: str) -> bytes | None:
        part = self.document.part.related_parts.get(relationship)
        return part.blob if part is not None else None

    def _append(self, text: str) -> None:
        text = text.strip()
        if text:
            self.parts.append(text)
            self._length += len(text) + 2


def _paragraph_text(element) -> str:
    """A paragraph's words: its runs, hyperlinks, fields and inline controls, tabs and breaks — not its text
    boxes (read after it) nor deleted text."""
    pieces = []
    for node in element.iter(f"{_W}t", f"{_W}tab", f"{_W}br", f"{_W}cr", f"{_W}noBreakHyphen"):
        if _inside_another_box(node, element):
            continue
        tag = node.tag
        if tag == f"{_W}t":
            pieces.append(node.text or "")
        elif tag == f"{_W}tab":
            pieces.append("\t")
        elif tag == f"{_W}noBreakHyphen":
            pieces.append("-")
        else:
            pieces.append("\n")
    return "".join(pieces)


def _text_boxes(paragraph) -> list[str]:
    """The text of each text box anchored in `paragraph` (a box inside a box is in its box's text)."""
    return ["\n".join(filter(None, (_block_text(child) for child in box.iterchildren())))
            for box in paragraph.iter(f"{_W}txbxContent") if not _inside_another_box(box, paragraph)]


def _inside_another_box(node, paragraph) -> bool:
    """`node` sits in a text box within `paragraph` (or in a paragraph of such a box), or in a drawing's copy for
    old versions of Word."""
    parent = node.getparent()
    while parent is not None and parent is not paragraph:
        if parent.tag in (f"{_W}txbxContent", _FALLBACK):
            return True
        parent = parent.getparent()
    return False


def _table_text(table) -> str:
    """Rows on lines, cells apart by tabs; a cell's nested tables and controls are in its text."""
    rows = []
    for row in table.iterchildren(f"{_W}tr"):
        cells = [" ".join(filter(None, (_block_text(block) for block in cell.iterchildren()))) for cell in _cells(row)]
        if any(c.strip() for c in cells):
            rows.append("\t".join(c.strip() for c in cells))
    return "\n".join(rows)


def _cells(row):
    for child in row.iterchildren():
        if child.tag == f"{_W}tc":
            yield child
        elif child.tag in (f"{_W}sdt", f"{_W}customXml"):  # cells inside a control
            yield from (cell for content in child.iter(f"{_W}sdtContent", f"{_W}customXml")
                        for cell in content.iterchildren(f"{_W}tc"))


def _block_text(element) -> str:
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag == f"{_W}p":
        return "\n".join(filter(None, [_paragraph_text(element).strip(), *_text_boxes(element)]))
    if tag == f"{_W}tbl":
        return _table_text(element)
    if tag in (f"{_W}sdt", f"{_W}sdtContent", f"{_W}customXml", f"{_W}ins", f"{_W}moveTo"):
        return "\n".join(filter(None, (_block_text(child) for child in element.iterchildren()
                                       if child.tag != f"{_W}sdtPr")))
    return ""


def _side_parts(document, kind: str) -> list:
    """The document's parts of `kind` (header, footer, footnotes, endnotes, comments), each once."""
    wanted = f"/relationships/{kind}"
    return [rel.target_part for rel in document.part.rels.values()
            if rel.reltype.endswith(wanted) and not rel.is_external]


def _xml(blob: bytes):
    from lxml import etree

    return etree.fromstring(blob, etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False))


def _imported_text(blob: bytes, content_type: str) -> str:
    head = blob[:2048].lower()
    if b"mime-version" in head or "message" in content_type or "mht" in content_type:  # an MHT web archive
        message = email.message_from_bytes(blob, policy=email.policy.default)
        for part in message.walk():
            if part.get_content_type() == "text/html":
                return html.parse_html(decoded_payload(part), "").text
        return ""
    if b"<html" in head or b"<!doctype html" in head or "html" in content_type:
        return html.parse_html(blob, "").text
    return blob.decode("utf-8", "replace")


def _heading_level(style: str) -> int:
    m = _HEADING_STYLE.match(style.strip())
    return int(m.group(1)) if m else 0
