"""OLE objects: what an Office document embeds as an object, as the file it is — from a .docx's embeddings folder
(an OLE file each), a Word 97–2003 document's ObjectPool (a storage each), or an RTF document's \\objdata (an OLE1
object, in hex).

A .doc holding a PDF was stored as "Here is the pdf file: EMBED AcroExch.Document.7 Bye Bye", and an RTF with an
embedded file as its name card (issue 51): their objects are documents of their own now, as issue 38 made them
for Office Open XML. An object holds its file in one of a few places: a file dropped in (Ole10Native: its name,
then its bytes), an Office package ("Package") or a PDF ("CONTENTS"), or it is a 97–2003 workbook itself (its
"Workbook" stream is a BIFF workbook xlrd reads as it is). Drawings, charts and equations are no documents.
"""

from __future__ import annotations

import io
import re
import struct
from collections.abc import Callable
from pathlib import PurePosixPath

# The streams where an OLE object keeps the file it is: Office's own packages ("Package": an .xlsx), Acrobat's
# ("CONTENTS": a PDF; an RTF object's "Contents").
_FILE_STREAMS = ("package", "contents")
# Objects that are parts of the document's look, not documents: a chart's datasheet (a BIFF5 workbook no reader
# here takes), an equation.
_NOT_DOCUMENTS = (b"MSGraph.Chart", b"Equation.")
_WORKBOOK_STREAMS = ("workbook", "book")
_OBJDATA = re.compile(rb"\{\\\*\\objdata\s*([0-9A-Fa-f\s]+)\}")
_MAX_OBJECTS = 1000

Streams = dict[str, Callable[[], bytes]]  # an object's streams by lower-cased name, each read when asked


def object_file(streams: Streams, stem: str, whole: bytes | None = None) -> tuple[str, bytes] | None:
    """(name, bytes) of the file an object holds; None for a drawing, an equation, or one holding nothing read.
    `whole`: the object as an OLE file of its own (a .docx embedding), tried last as a document itself."""
    from desktop_rag.core.files import parsers

    comp_obj = streams["\x01compobj"]() if "\x01compobj" in streams else b""
    if any(kind in comp_obj for kind in _NOT_DOCUMENTS):
        return None
    if "\x01ole10native" in streams:
        return native_file(streams["\x01ole10native"]())
    for name in _FILE_STREAMS:
        if name in streams:
            inner = streams[name]()
            if (suffix := parsers.sniffed_suffix(inner)) is not None:
                return f"{stem}{suffix}", inner
    if whole is not None and (suffix := parsers.sniffed_suffix(whole)) is not None:
        return f"{stem}{suffix}", whole
    for name in _WORKBOOK_STREAMS:  # a 97–2003 workbook kept as a storage: its stream is the workbook
        if name in streams:
            return f"{stem}.xls", streams[name]()
    return None


def ole_file_object(data: bytes, stem: str) -> tuple[str, bytes] | None:
    """The file an OLE object saved as an OLE file of its own holds (a .docx's embeddings/oleObject1.bin)."""
    import olefile

    with olefile.OleFileIO(io.BytesIO(data)) as ole:
        streams = {"/".join(entry).lower(): _reader(ole, entry) for entry in ole.listdir()}
        return object_file(streams, stem, whole=data)


def object_pool_files(data: bytes) -> list[tuple[str, bytes]]:
    """The files of a Word 97–2003 document's embedded objects (its ObjectPool storage, one storage each)."""
    import olefile

    found = []
    with olefile.OleFileIO(io.BytesIO(data)) as ole:
        objects: dict[str, Streams] = {}
        for entry in ole.listdir(streams=True, storages=False):
            if len(entry) == 3 and entry[0] == "ObjectPool":
                objects.setdefault(entry[1], {})[entry[2].lower()] = _reader(ole, entry)
        for storage, streams in list(objects.items())[:_MAX_OBJECTS]:
            named = object_file(streams, f"object{storage}")
            if named is not None:
                found.append(named)
    return found


def holds_object_pool(data: bytes) -> bool:
    import olefile

    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            return any(len(entry) == 3 and entry[0] == "ObjectPool" for entry in ole.listdir())
    except Exception:  # not a readable compound file: the document's reader says what is wrong
        return False


def rtf_object_files(data: bytes) -> list[tuple[str, bytes]]:
    """The files of an RTF document's embedded objects: each \\objdata is an OLE1 object (MS-OLEDS 2.2.4): its
    version, format, class name, topic and item, then its native data — a Package's dropped file, or an OLE file."""
    found = []
    for number, match in enumerate(_OBJDATA.finditer(data), start=1):
        if number > _MAX_OBJECTS:
            break
        try:
            raw = bytes.fromhex(re.sub(rb"\s+", b"", match.group(1)).decode("ascii"))
            class_name, native = _ole1_native(raw)
            named: tuple[str, bytes] | None
            if class_name == "Package":
                named = native_file(struct.pack("<I", len(native)) + native)
            elif native.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
                named = ole_file_object(native, f"object{number}")
            else:
                named = None
        except Exception:  # a damaged object: the document's own text still counts
            continue
        if named is not None and named[1]:
            found.append(named)
    return found


def _ole1_native(raw: bytes) -> tuple[str, bytes]:
    at = 8  # OLEVersion, FormatID
    names = []
    for _ in range(3):  # ClassName, TopicName, ItemName: lengths counting their NUL
        (length,) = struct.unpack_from("<I", raw, at)
        names.append(raw[at + 4:at + 4 + length].rstrip(b"\0").decode("cp1252", "replace"))
        at += 4 + length
    (size,) = struct.unpack_from("<I", raw, at)
    return names[0], raw[at + 4:at + 4 + size]


def native_file(native: bytes) -> tuple[str, bytes]:
    """A file dropped into an Office document, from its Ole10Native stream: size, flags, label, path, then the
    file's bytes."""
    at = 6  # its size (4 bytes), flags (2)
    label, at = _c_string(native, at)
    _path, at = _c_string(native, at)
    at += 4  # two unknown 16-bit values
    command_length = struct.unpack_from("<I", native, at)[0]
    at += 4 + command_length
    size = struct.unpack_from("<I", native, at)[0]
    at += 4
    name = PurePosixPath(label.replace("\\", "/")).name or "embedded file"
    return name, native[at:at + size]


def _reader(ole, entry) -> Callable[[], bytes]:
    return lambda: ole.openstream(entry).read()


def _c_string(data: bytes, at: int) -> tuple[str, int]:
    end = data.index(b"\0", at)
    return data[at:end].decode("cp1252", "replace"), end + 1
