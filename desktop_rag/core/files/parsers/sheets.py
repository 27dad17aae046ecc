"""Spreadsheets: Excel (.xlsx, .xlsm through openpyxl; legacy .xls through xlrd). One page and one section per
sheet; each row a line. Where a sheet opens with a row of labels, every later row reads "Label: value; …", so a
chunk cut from the middle of a long sheet still says what its numbers are. Cells give the values Excel last
computed, never the formulas. (OpenDocument sheets: opendocument.py, with the same rows.)"""

from __future__ import annotations

import datetime as dt
import io
import logging
from collections.abc import Sequence

from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.packages import (ooxml_properties, open_package, package_texts, password_protected,
                                                    readable_package, with_section)
from desktop_rag.core.files.parsers.biff_drawings import drawing_texts
from desktop_rag.core.files.parsers.structured import StructuredText
from desktop_rag.documents import ParsedDocument

# A million-cell sheet would make ~10 MB of text and thousands of chunks of numbers: the text stops here (a note
# says what was left out), and openpyxl's read-only mode streams the rows, so memory stays flat whatever the size.
MAX_WORKBOOK_CHARS = 2_000_000
_ROWS_PER_BLOCK = 50  # a sheet's rows go to the text in blocks: lines within, so the chunker cuts between rows


def parse_xlsx(data: bytes, stem: str) -> ParsedDocument:
    import openpyxl

    data = readable_package(data, "Excel workbook")
    with open_package(data, "Excel workbook") as package:
        title, metadata = ooxml_properties(package)
    try:
        # read_only streams each sheet's XML; data_only gives the values cached at the last save, not formulas.
        # keep_links=False: a workbook linking to another file's cells was refused with a KeyError (issue 38).
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True,
                                          keep_links=False)
    except Exception as exc:  # openpyxl raises KeyError, InvalidFileException, lxml errors… for broken packages
        raise unreadable("not a readable Excel workbook", exc) from None
    book = WorkbookText()
    try:
        for sheet in workbook.worksheets:
            book.sheet(sheet.title)
            # The rows as the file has them: a sheet whose saved size says A1:XFD1048576 (a whole-sheet style, as
            # Gnumeric writes it) had every row padded to 16,384 cells and a million empty rows added after the
            # last; one 145 KB file ran past the 300 s a file may take (calamine's issue_174.xlsx).
            sheet.reset_dimensions()
            for row in sheet.iter_rows(values_only=True):
                if book.full:
                    break
                book.row(row)
    except Exception as exc:  # a truncated member is found while its rows stream
        raise unreadable("not a readable Excel workbook", exc) from None
    finally:
        workbook.close()
    # Chart titles and labels, text boxes and shapes, cell comments: not in the cells openpyxl streams.
    return with_section(book.document(title or stem, "xlsx", metadata), "Charts, drawings and comments",
                        package_texts(data, r"xl/(charts/chart|drawings/drawing|comments|comments/comment)\d*\.xml"))


class _XlrdLog:
    """A file-like log for xlrd that passes its lines to logging."""

    def write(self, text: str) -> None:
        if text.strip():
            logging.getLogger("desktop_rag.parsers").info("xlrd: %s", text.strip())

    def flush(self) -> None:
        pass


def parse_xls(data: bytes, stem: str) -> ParsedDocument:
    """Excel 97–2003 through xlrd (which reads only this format since 2.0)."""
    import xlrd

    try:
        # xlrd writes its warnings ("WARNING *** file size not a multiple of sector size") to stdout unless given a
        # log: `index --json` printed them before its JSON (issue 38). They go to the log.
        book = xlrd.open_workbook(file_contents=data, on_demand=True, logfile=_XlrdLog())
    except xlrd.XLRDError as exc:
        if "encrypted" in str(exc).lower():
            raise ParseError(password_protected("Excel 97–2003 workbook")) from None
        raise unreadable("not a readable Excel 97–2003 workbook", exc) from None
    except Exception as exc:  # struct.error, AssertionError, IndexError on truncated files
        raise unreadable("not a readable Excel 97–2003 workbook", exc) from None
    sheets = WorkbookText()
    try:
        for index in range(book.nsheets):
            sheet = book.sheet_by_index(index)
            sheets.sheet(sheet.name)
            for r in range(sheet.nrows):
                if sheets.full:
                    break
                sheets.row(_xls_row(book, sheet, r))
            book.unload_sheet(index)
    except Exception as exc:
        raise unreadable("not a readable Excel 97–2003 workbook", exc) from None
    metadata = {"author": (book.user_name or "").strip()}
    # Text boxes, shapes and charts' labels: not in the cells xlrd reads (biff_drawings.py).
    return with_section(sheets.document(stem, "xls", metadata), "Charts, drawings and comments", drawing_texts(data))


def _xls_row(book, sheet, row: int) -> list:
    import xlrd

    values = []
    for cell in sheet.row(row):
        if cell.ctype == xlrd.XL_CELL_DATE:
            try:
                values.append(xlrd.xldate_as_datetime(cell.value, book.datemode))
                continue
            except (ValueError, OverflowError):
                pass
        values.append(None if cell.ctype in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK) else cell.value)
    return values


class WorkbookText:
    """A workbook's sheets and rows into StructuredText, up to MAX_WORKBOOK_CHARS: past it, `full` is true, the
    caller stops reading rows, and the text ends with a note of what was left out."""

    def __init__(self, whole: bool = False):
        """`whole`: every row, with no MAX_WORKBOOK_CHARS (a CSV file: as its text was)."""
        self.text = StructuredText(None if whole else MAX_WORKBOOK_CHARS)
        self._sheet = ""
        self._header: list[str] | None = None
        self._first = True
        self._rows = 0
        self._block: list[str] = []

    @property
    def full(self) -> bool:
        return self.text.full

    def sheet(self, name: str) -> None:
        self._flush()
        self._sheet, self._header, self._first, self._rows = name or "Sheet", None, True, 0
        if not self.full:
            self.text.page()
            self.text.heading(1, self._sheet)

    def row(self, row: Sequence, labels: bool | None = None) -> None:
        """`labels`: whether a sheet's first row is its columns' labels, when the caller knows (a CSV's cells are all
        text); None: told by the cells (_is_label_row)."""
        values = [cell_text(v) for v in row]
        while values and not values[-1]:
            values.pop()
        if not any(values) or self.full:
            return
        self._rows += 1
        if self._first:
            self._first = False
            if _is_label_row(row) if labels is None else labels:
                self._header = values
                self._block.append("\t".join(values))
                return
        self._block.append(_row_line(values, self._header))
        if len(self._block) >= _ROWS_PER_BLOCK:
            self._flush()

    def document(self, title: str, parser: str, metadata: dict[str, str]) -> ParsedDocument:
        self._flush()
        if self.full:
            # Said in the text itself, so a person who finds the workbook learns that its end is not searchable.
            self.text.max_chars = None
            self.text.add(f"[The rest of this workbook, from row {self._rows + 1:,} of {self._sheet}, is not indexed: "
                          f"it is over {MAX_WORKBOOK_CHARS:,} characters of text.]")
        return self.text.document(title, parser, metadata)

    def _flush(self) -> None:
        if self._block:
            self.text.add("\n".join(self._block))
            self._block = []


def _is_label_row(row: Sequence) -> bool:
    """A first row of two or more texts (no numbers, no dates) reads as the columns' labels."""
    filled = [v for v in row if v is not None and v != ""]
    return len(filled) >= 2 and all(isinstance(v, str) for v in filled)


def _row_line(values: list[str], header: list[str] | None) -> str:
    if header is None:
        return "\t".join(values)
    pairs = []
    for i, value in enumerate(values):
        if not value:
            continue
        label = header[i] if i < len(header) and header[i] else ""
        pairs.append(f"{label}: {value}" if label else value)
    return "; ".join(pairs)


def cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return f"{value:.10g}" if not value.is_integer() or abs(value) >= 1e15 else str(int(value))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ", timespec="minutes")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return " ".join(str(value).split())

