"""Word 2003 XML and Excel 2003 XML (SpreadsheetML): one XML file each, which Word and Excel open as documents.

Read as plain text they were their markup and their pictures' base64: three Word 2003 XML files gave 4,107 chunks
(issue 51). Here a Word file gives its paragraphs (headings from its heading styles, a table's row a line, its
cells by tabs), not its field codes, deleted text or binary parts; an Excel file its sheets and rows, as .xlsx does
(sheets.WorkbookText). Both are read as a stream (iterparse), each paragraph or row let go once read: a file of
50 MB, mostly pictures, never sits in memory as a tree. Known by their root element (or Office's processing
instruction), whatever their name ends with: Word saves them as .xml, and people rename them .doc.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from xml.etree import ElementTree

from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.packages import iso_date
from desktop_rag.core.files.parsers.sheets import WorkbookText
from desktop_rag.core.files.parsers.structured import StructuredText
from desktop_rag.documents import ParsedDocument

_W = "{http://schemas.microsoft.com/office/word/2003/wordml}"
_O = "{urn:schemas-microsoft-com:office:office}"
_SS = "{urn:schemas-microsoft-com:office:spreadsheet}"
# Text Word keeps that is not the document's: field instructions, deleted revisions, pictures' and objects' data.
_NOT_TEXT = {_W + "instrText", _W + "delText", _W + "binData"}
_HEADING_STYLE = re.compile(r"heading\s*(\d)", re.IGNORECASE)
_PROPERTIES = {"Title": "title", "Author": "author", "Created": "created", "LastSaved": "modified"}


def office_xml_kind(data: bytes) -> str | None:
    """"word" or "excel" for a Word or Excel 2003 XML file, by its first kilobytes; None for any other."""
    head = data[:4096]
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return None
    if b"<w:wordDocument" in head or b'progid="Word.Document"' in head:
        return "word"
    if b'progid="Excel.Sheet"' in head or b"urn:schemas-microsoft-com:office:spreadsheet" in head:
        return "excel"
    return None


def parse_word_xml(data: bytes, stem: str) -> ParsedDocument:
    text = StructuredText()
    styles: dict[str, str] = {}  # style id → its name ("Heading1" → "heading 1")
    properties: dict[str, str] = {}
    paragraph: list[str] = []
    style = ""
    row: list[str] | None = None
    cell: list[str] = []
    skipping = 0  # inside text that is not the document's
    try:
        for event, element in ElementTree.iterparse(io.BytesIO(data), events=("start", "end")):
            tag = element.tag
            if tag in _NOT_TEXT:
                skipping += 1 if event == "start" else -1
                if event == "end":
                    element.clear()  # a picture's base64, let go at once
                continue
            if event == "start":
                if tag == _W + "tr":
                    row = []
                elif not skipping and tag in (_W + "tab",) and paragraph is not None:
                    paragraph.append("\t")
                elif not skipping and tag in (_W + "br", _W + "cr"):
                    paragraph.append("\n")
                continue
            if tag == _W + "t" and not skipping:
                paragraph.append(element.text or "")
            elif tag == _W + "pStyle":
                style = element.get(_W + "val", "")
            elif tag == _W + "style":
                name = element.find(_W + "name")
                styles[element.get(_W + "styleId", "")] = name.get(_W + "val", "") if name is not None else ""
            elif tag == _W + "p":
                line = "".join(paragraph).strip()
                if row is not None:
                    cell.append(line)
                elif heading := _HEADING_STYLE.fullmatch(styles.get(style, style).strip()):
                    text.heading(int(heading.group(1)), line)
                else:
                    text.add(line)
                paragraph, style = [], ""
                element.clear()
            elif tag == _W + "tc" and row is not None:
                row.append(" ".join(part for part in cell if part))
                cell = []
            elif tag == _W + "tr" and row is not None:
                text.add("\t".join(row).rstrip("\t"))
                row = None
                element.clear()
            elif tag.startswith(_O) and tag[len(_O):] in _PROPERTIES:
                properties[_PROPERTIES[tag[len(_O):]]] = (element.text or "").strip()
    except ElementTree.ParseError as exc:
        raise unreadable("not a readable Word 2003 XML document", exc) from None
    return text.document(properties.pop("title", "") or text.first_title or stem, "word-xml", _dated(properties))


def parse_excel_xml(data: bytes, stem: str) -> ParsedDocument:
    sheets = WorkbookText()
    properties: dict[str, str] = {}
    row: list[object] = []
    try:
        for event, element in ElementTree.iterparse(io.BytesIO(data), events=("start", "end")):
            tag = element.tag
            if event == "start":
                if tag == _SS + "Worksheet":
                    sheets.sheet(element.get(_SS + "Name", ""))
                elif tag == _SS + "Row":
                    row = []
                continue
            if tag == _SS + "Cell":
                at = element.get(_SS + "Index")  # 1-based; the cells before it are empty
                if at and at.isdigit():
                    row.extend([""] * max(int(at) - 1 - len(row), 0))
                row.append(_cell_value(element.find(_SS + "Data")))
                element.clear()
            elif tag == _SS + "Row":
                sheets.row(row)
                element.clear()
            elif tag.startswith(_O) and tag[len(_O):] in _PROPERTIES:
                properties[_PROPERTIES[tag[len(_O):]]] = (element.text or "").strip()
    except ElementTree.ParseError as exc:
        raise unreadable("not a readable Excel 2003 XML workbook", exc) from None
    return sheets.document(properties.pop("title", "") or stem, "excel-xml", _dated(properties))


def parse_office_xml(data: bytes, stem: str) -> ParsedDocument:
    kind = office_xml_kind(data)
    if kind == "word":
        return parse_word_xml(data, stem)
    if kind == "excel":
        return parse_excel_xml(data, stem)
    raise ParseError("not a Word or Excel 2003 XML file")


def _cell_value(data: ElementTree.Element | None) -> object:
    """A cell's value as openpyxl gives an .xlsx's (a number, a moment, text), so both read alike: Excel writes
    1.1 as "1.1000000000000001" and a date as "2016-04-27T00:00:00.000"."""
    if data is None:
        return ""
    text = "".join(data.itertext()).strip()
    kind = data.get(_SS + "Type", "")
    try:
        if kind == "Number":
            return float(text)
        if kind == "DateTime":
            return dt.datetime.fromisoformat(text[:19])
    except ValueError:
        pass
    return text


def _dated(properties: dict[str, str]) -> dict[str, str]:
    return {key: iso_date(value) if key in ("created", "modified") else value for key, value in properties.items()}
