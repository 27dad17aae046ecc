"""Excel binary workbooks (.xlsb): a zip like .xlsx, whose parts are records (MS-XLSB), not XML.

Without a reader, a .xlsb was taken for an archive and its parts indexed as documents (issue 51: with Visio
drawings, 31% of a library's chunks were package markup). Here its sheets are read as an .xlsx's are
(sheets.WorkbookText): the sheet names from xl/workbook.bin, each sheet's cells from its part — text from the shared
strings (xl/sharedStrings.bin) or the cell itself, numbers, booleans, formulas' cached values. A record is a type and
a size, each a little-endian base-128 number (MS-XLSB 2.1.4), then its data.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Iterator

from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.packages import ooxml_properties, open_package
from desktop_rag.core.files.parsers.sheets import WorkbookText
from desktop_rag.documents import ParsedDocument

# Record types (MS-XLSB 2.3.2).
_ROW_HEADER, _SHARED_STRING, _SHEET_ENTRY = 0, 19, 156
_CELL_RK, _CELL_BOOL, _CELL_REAL, _CELL_TEXT, _CELL_SHARED = 2, 4, 5, 6, 7
_FORMULA_TEXT, _FORMULA_NUMBER, _FORMULA_BOOL = 8, 9, 10
_CELLS = {_CELL_RK, _CELL_BOOL, _CELL_REAL, _CELL_TEXT, _CELL_SHARED, _FORMULA_TEXT, _FORMULA_NUMBER, _FORMULA_BOOL}
_MAX_COLUMNS = 16_384  # Excel's; a cell past it is a damaged record


def _varint(stream: io.BytesIO, most: int) -> int | None:
    value = 0
    for shift in range(0, 7 * most, 7):
        byte = stream.read(1)
        if not byte:
            return None
        value |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            break
    return value


def records(data: bytes) -> Iterator[tuple[int, bytes]]:
    stream = io.BytesIO(data)
    while True:
        kind, size = _varint(stream, 2), _varint(stream, 4)
        if kind is None or size is None:
            return
        body = stream.read(size)
        if len(body) < size:
            return  # cut short: what came before is kept
        yield kind, body


def _wide_string(body: bytes, at: int) -> tuple[str, int]:
    """An XLWideString at `at`: its text, and where the next field begins."""
    (length,) = struct.unpack_from("<I", body, at)
    end = at + 4 + 2 * length
    if end > len(body):
        raise ValueError("a string past its record")
    return body[at + 4:end].decode("utf-16-le", "replace"), end


def _rk(value: int) -> float:
    """An RkNumber (MS-XLSB 2.5.122): 30 bits of an integer or of a double's high bits, maybe hundredths."""
    number = float(value >> 2 if not value & 0x80000000 else (value >> 2) - (1 << 30)) if value & 2 else \
        struct.unpack("<d", struct.pack("<Q", (value & 0xFFFFFFFC) << 32))[0]
    return number / 100 if value & 1 else number


def _cell(kind: int, body: bytes, shared: list[str]) -> tuple[int, object] | None:
    """(column, value) of a cell record; None for one without a value to read (blank, error)."""
    column = struct.unpack_from("<I", body)[0]
    if column >= _MAX_COLUMNS:
        return None
    if kind == _CELL_SHARED:
        index = struct.unpack_from("<I", body, 8)[0]
        return column, shared[index] if index < len(shared) else ""
    if kind in (_CELL_TEXT, _FORMULA_TEXT):
        return column, _wide_string(body, 8)[0]
    if kind in (_CELL_REAL, _FORMULA_NUMBER):
        return column, struct.unpack_from("<d", body, 8)[0]
    if kind == _CELL_RK:
        return column, _rk(struct.unpack_from("<I", body, 8)[0])
    if kind in (_CELL_BOOL, _FORMULA_BOOL):
        return column, bool(body[8])
    return None


def _sheet_parts(package: zipfile.ZipFile) -> list[tuple[str, str]]:
    """(name, part) of each sheet, in the workbook's order: names from workbook.bin, parts through its rels."""
    import re

    rels = package.read("xl/_rels/workbook.bin.rels").decode("utf-8", "replace")
    targets = {m.group(1): m.group(2) for m in re.finditer(r'Id="([^"]+)"[^>]*?Target="([^"]+)"', rels)}
    targets.update({m.group(2): m.group(1) for m in re.finditer(r'Target="([^"]+)"[^>]*?Id="([^"]+)"', rels)})
    sheets = []
    for kind, body in records(package.read("xl/workbook.bin")):
        if kind == _SHEET_ENTRY:
            relation, name = _sheet_entry(body, targets)
            target = targets.get(relation, "")
            sheets.append((name, target.lstrip("/") if target.startswith("/") else "xl/" + target))
    return sheets


def _sheet_entry(body: bytes, targets: dict[str, str]) -> tuple[str, str]:
    """(relation id, name) of a sheet's BrtBundleSh. The spec puts the relation after 8 bytes (its state and tab
    id); Excel 2016 writes 12 (Tika's testEXCEL.xlsb): the first offset where both strings read and the relation
    is one the workbook has."""
    for at in (8, 12, 4):
        try:
            relation, after = _wide_string(body, at)
            name, _ = _wide_string(body, after)
        except (ValueError, struct.error):
            continue
        if relation in targets:
            return relation, name
    raise ValueError("a sheet entry that names no part of the workbook")


def parse_xlsb(data: bytes, stem: str) -> ParsedDocument:
    with open_package(data, "Excel binary workbook") as package:
        title, metadata = ooxml_properties(package)
        sheets = WorkbookText()
        try:
            names = set(package.namelist())
            shared = [_wide_string(body, 1)[0] for kind, body in records(package.read("xl/sharedStrings.bin"))
                      if kind == _SHARED_STRING] if "xl/sharedStrings.bin" in names else []
            for name, part in _sheet_parts(package):
                sheets.sheet(name)
                if part not in names:
                    continue
                row: list[object] = []
                for kind, body in records(package.read(part)):
                    if sheets.full:
                        break
                    if kind == _ROW_HEADER:
                        sheets.row(row)
                        row = []
                    elif kind in _CELLS and (cell := _cell(kind, body, shared)) is not None:
                        column, value = cell
                        row.extend([None] * max(column - len(row), 0))
                        row.append(value)
                sheets.row(row)
        except KeyError as exc:
            raise ParseError(f"not a readable Excel binary workbook: its part {exc} is missing") from None
        except (struct.error, ValueError, zipfile.BadZipFile, OSError) as exc:
            raise unreadable("not a readable Excel binary workbook", exc) from None
    return sheets.document(title or stem, "xlsb", metadata)
