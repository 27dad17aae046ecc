"""OpenDocument (LibreOffice, OpenOffice): text (.odt) with its outline headings, spreadsheets (.ods) with the rows
of sheets.py, presentations (.odp) with the slides of slides.py, drawings (.odg: LibreOffice Draw's diagrams,
flyers, floor plans) a page each with the text of its shapes. Read from the package's XML with the standard
library: a spreadsheet's rows are streamed, so a huge sheet stops at the workbook's limit instead of filling
memory."""

from __future__ import annotations

import zipfile
from xml.etree import ElementTree

from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.packages import iso_date, open_package, password_protected, read_member
from desktop_rag.core.files.parsers.sheets import WorkbookText
from desktop_rag.core.files.parsers.slides import add_slide
from desktop_rag.core.files.parsers.structured import StructuredText
from desktop_rag.documents import ParsedDocument

_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "meta": "urn:oasis:names:tc:opendocument:xmlns:meta:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
}
_KINDS = {"odt": "OpenDocument text", "ods": "OpenDocument spreadsheet", "odp": "OpenDocument presentation",
          "odg": "OpenDocument drawing"}
# Repeated cells and rows: a sheet's empty tail is written as one cell repeated 16,384 times or one row a million
# times. Repeats of a filled cell are spelled out, up to this many.
_MAX_REPEAT = 1000


def _tag(name: str) -> str:
    prefix, local = name.split(":")
    return f"{{{_NS[prefix]}}}{local}"


_H, _P, _LIST, _SECTION, _TABLE, _ROW = map(_tag, ("text:h", "text:p", "text:list", "text:section", "table:table",
                                                   "table:table-row"))
_CELLS = (_tag("table:table-cell"), _tag("table:covered-table-cell"))
_SKIPPED_INLINE = {_tag("office:annotation"), _tag("text:note-citation"), _tag("text:tracked-changes")}


def parse_odt(data: bytes, stem: str) -> ParsedDocument:
    package, title, metadata = _open(data, "odt")
    with package:
        body = _body(package, "odt", "text")
    text = StructuredText()
    _add_flow(text, body)
    return text.document(title or text.first_title or stem, "odt", metadata)


def parse_odp(data: bytes, stem: str) -> ParsedDocument:
    package, title, metadata = _open(data, "odp")
    with package:
        body = _body(package, "odp", "presentation")
    text = StructuredText()
    for number, page in enumerate(body.iter(_tag("draw:page")), start=1):
        slide_title, blocks, notes = "", [], ""
        for frame in page.findall("draw:frame", _NS):
            content = "\n".join(inline_text(p) for p in frame.iter(_P)).strip()
            if frame.get(_tag("presentation:class")) == "title" and not slide_title:
                slide_title = content
            elif content:
                blocks.append(content)
        for notes_page in page.findall("presentation:notes", _NS):
            notes = "\n".join(inline_text(p) for p in notes_page.iter(_P) if inline_text(p).strip())
        add_slide(text, number, slide_title, blocks, notes)
    return text.document(title or text.first_title or stem, "odp", metadata)


def parse_odg(data: bytes, stem: str) -> ParsedDocument:
    """A drawing: each page, the text of its shapes (text boxes, labelled boxes and connectors), in the order drawn.
    Before, a drawing was opened as a zip archive and its XML parts indexed as text."""
    package, title, metadata = _open(data, "odg")
    with package:
        body = _body(package, "odg", "drawing")
    text = StructuredText()
    for number, page in enumerate(body.iter(_tag("draw:page")), start=1):
        text.page()
        text.heading(1, f"Page {number}", shown=False)
        for shape in page:
            content = "\n".join(line for p in shape.iter(_P) if (line := inline_text(p)).strip())
            if content:
                text.add(content)
    return text.document(title or stem, "odg", metadata)


def parse_ods(data: bytes, stem: str) -> ParsedDocument:
    package, title, metadata = _open(data, "ods")
    book = WorkbookText()
    with package:
        try:
            with package.open("content.xml") as stream:
                open_elements = []
                for event, element in ElementTree.iterparse(stream, events=("start", "end")):
                    if event == "start":
                        open_elements.append(element)
                        if element.tag == _TABLE:
                            book.sheet(element.get(_tag("table:name"), ""))
                        continue
                    open_elements.pop()
                    if element.tag == _ROW:
                        values = _row_values(element)
                        if any(values):
                            repeat = min(int(element.get(_tag("table:number-rows-repeated"), "1")), _MAX_REPEAT)
                            for _ in range(repeat):
                                book.row(values)
                        open_elements[-1].remove(element)  # rows read are dropped: memory stays flat
                        if book.full:
                            break
        except KeyError:
            raise ParseError("not a readable OpenDocument spreadsheet: it has no content.xml") from None
        except (ElementTree.ParseError, zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
            raise unreadable("not a readable OpenDocument spreadsheet", exc) from None
    return book.document(title or stem, "ods", metadata)


def _row_values(row) -> list[str]:
    values: list[str] = []
    for cell in row:
        if cell.tag not in _CELLS:
            continue
        value = "\n".join(inline_text(p) for p in cell.findall("text:p", _NS)).strip()
        repeat = int(cell.get(_tag("table:number-columns-repeated"), "1"))
        values.extend([value] * (min(repeat, _MAX_REPEAT) if value else min(repeat, 1)))
    return values


def _open(data: bytes, kind: str) -> tuple[zipfile.ZipFile, str, dict[str, str]]:
    package = open_package(data, _KINDS[kind] + " file")
    try:
        manifest = package.read("META-INF/manifest.xml")
    except KeyError:
        manifest = b""
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        package.close()
        raise unreadable(f"not a readable {_KINDS[kind]} file", exc) from None
    if b"encryption-data" in manifest:
        package.close()
        raise ParseError(password_protected(f"{_KINDS[kind]} file"))
    title, metadata = _properties(package)
    return package, title, metadata


def _properties(package: zipfile.ZipFile) -> tuple[str, dict[str, str]]:
    try:
        meta = ElementTree.fromstring(package.read("meta.xml")).find("office:meta", _NS)
    except (KeyError, ElementTree.ParseError, zipfile.BadZipFile, OSError):
        return "", {}
    if meta is None:
        return "", {}

    def value(name: str) -> str:
        return (meta.findtext(name, "", _NS) or "").strip()

    metadata = {"author": value("meta:initial-creator") or value("dc:creator"),
                "created": iso_date(value("meta:creation-date")), "modified": iso_date(value("dc:date"))}
    return value("dc:title"), metadata


def _body(package: zipfile.ZipFile, kind: str, name: str):
    content = read_member(package, "content.xml", _KINDS[kind] + " file")
    try:
        root = ElementTree.fromstring(content)
    except ElementTree.ParseError as exc:
        raise unreadable(f"not a readable {_KINDS[kind]} file", exc) from None
    body = root.find(f"office:body/office:{name}", _NS)
    if body is None:
        raise ParseError(f"not a readable {_KINDS[kind]} file: its content has no {name}")
    return body


def _add_flow(text: StructuredText, element) -> None:
    """Paragraphs, headings (text:h, their outline level), lists and tables of a text body, in order."""
    for child in element:
        if child.tag == _H:
            text.heading(int(child.get(_tag("text:outline-level"), "1") or 1), inline_text(child))
        elif child.tag == _P:
            text.add(inline_text(child))
        elif child.tag == _TABLE:
            rows = ["\t".join(" ".join(inline_text(p) for p in cell.iter(_P)).strip() for cell in row
                              if cell.tag in _CELLS)
                    for row in child.iter(_ROW)]
            text.add("\n".join(r for r in rows if r.strip()))
        elif child.tag in (_LIST, _SECTION) or child.tag.endswith("}list-item") or child.tag.endswith("}list-header"):
            _add_flow(text, child)


def inline_text(element) -> str:
    """The text of a paragraph: spans, links, spaces (text:s), tabs and line breaks as ODF spells them."""
    parts = [element.text or ""]
    for child in element:
        tag = child.tag
        if tag == _tag("text:s"):
            parts.append(" " * int(child.get(_tag("text:c"), "1")))
        elif tag == _tag("text:tab"):
            parts.append("\t")
        elif tag == _tag("text:line-break"):
            parts.append("\n")
        elif tag not in _SKIPPED_INLINE:
            parts.append(inline_text(child))
        parts.append(child.tail or "")
    return "".join(parts)
