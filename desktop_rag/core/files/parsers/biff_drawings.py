"""Text an Excel 97–2003 workbook keeps outside its cells, which xlrd does not read: text boxes and shapes drawn on
sheets (TXO records, their text in the CONTINUE records after them) and charts' titles, series names and labels
(SERIESTEXT records of the chart substreams). A workbook of text boxes gave "Sheet1 Sheet2 Sheet3" (issue 51).
Read from the Workbook stream's records (MS-XLS 2.1.4: a type and a length, 16 bits each, then the data).
"""

from __future__ import annotations

import io
import struct

_TXO, _CONTINUE, _SERIES_TEXT = 0x01B6, 0x003C, 0x100D
_MAX_TEXTS = 5000


def drawing_texts(data: bytes) -> list[str]:
    """Each text box's, shape's and chart label's text once, in the workbook's order; [] when none can be read."""
    import olefile

    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            name = next((n for n in ("Workbook", "Book") if ole.exists(n)), None)
            stream = ole.openstream(name).read() if name else b""
    except Exception:  # the workbook's own reader says what is wrong with the file
        return []
    texts: list[str] = []
    records = list(_records(stream))
    for index, (kind, body) in enumerate(records):
        text = ""
        if kind == _TXO and len(body) >= 12 and index + 1 < len(records) and records[index + 1][0] == _CONTINUE:
            length = struct.unpack_from("<H", body, 10)[0]
            text = _characters(records[index + 1][1], length)
        elif kind == _SERIES_TEXT and len(body) >= 4:
            text = _characters(body[3:], body[2])
        text = " ".join(text.split())
        if text and text not in texts:
            texts.append(text)
            if len(texts) >= _MAX_TEXTS:
                break
    return texts


def _records(stream: bytes):
    at = 0
    while at + 4 <= len(stream):
        kind, length = struct.unpack_from("<HH", stream, at)
        yield kind, stream[at + 4:at + 4 + length]
        at += 4 + length


def _characters(body: bytes, length: int) -> str:
    """`length` characters after a flag byte: 8-bit (Latin-1 as Excel writes it) or UTF-16."""
    if not body or not length:
        return ""
    if body[0] & 1:
        return body[1:1 + 2 * length].decode("utf-16-le", "replace")
    return body[1:1 + length].decode("cp1252", "replace")
