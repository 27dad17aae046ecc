"""Files inside documents: a workbook, a PDF or a mail embedded in a Word, Excel or PowerPoint file (the package's
`embeddings/` folder), and files attached to a PDF (its embedded files and file-attachment annotations). Each is a
document of its own beside the one holding it: "report.docx › budget.xlsx" (issue 38: a budget pasted into a
report as an object was nowhere to be found).

`may_hold_files` is cheap (a zip's list of names, a search of the PDF's bytes) and runs on every such file;
`embedded_files` reads them out and runs only where the first said yes.
"""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import PurePosixPath

from desktop_rag.core.files.parsers.mail import attachment_name
from desktop_rag.core.files.parsers.packages import OLE_MAGIC

_PACKAGES = {".docx", ".docm", ".dotx", ".dotm", ".xlsx", ".xlsm", ".xltx", ".xltm", ".pptx", ".pptm", ".ppsx", ".ppsm",
             ".potx", ".potm"}
_EMBEDDINGS = ("word/embeddings/", "xl/embeddings/", "ppt/embeddings/")
# An embedded file's stream must be a stream object, which PDF never compresses into an object stream: its type is
# in the file's bytes as written (a file-attachment annotation's subtype, likewise, in all but rare writers).
_PDF_MARKS = (b"/EmbeddedFile", b"/FileAttachment")
_MAX_FILES = 1000


def may_hold_files(name: str, data: bytes) -> bool:
    suffix = PurePosixPath(name.lower()).suffix
    if suffix == ".pdf":
        return any(mark in data for mark in _PDF_MARKS)
    if suffix not in _PACKAGES or not data.startswith(b"PK"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            return any(entry.startswith(_EMBEDDINGS) and not entry.endswith("/") for entry in package.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False  # the document's own reader says what is wrong with it


def embedded_files(name: str, data: bytes) -> list[tuple[str, bytes]]:
    """(name, bytes) of each file inside the document, in order; [] when none can be read out (the document
    itself is read all the same)."""
    try:
        if PurePosixPath(name.lower()).suffix == ".pdf":
            return _pdf_files(data)[:_MAX_FILES]
        return _package_files(data)[:_MAX_FILES]
    except Exception:  # a damaged embedding: the document's own text still counts
        return []


def _package_files(data: bytes) -> list[tuple[str, bytes]]:
    found = []
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        for entry in package.infolist():
            if not entry.filename.startswith(_EMBEDDINGS) or entry.is_dir():
                continue
            inner = package.read(entry)
            stem = PurePosixPath(entry.filename).stem
            if inner.startswith(OLE_MAGIC):
                named = _ole_object(inner, stem)
                if named is not None:
                    found.append(named)
                continue
            found.append((PurePosixPath(entry.filename).name, inner))
    return found


# The streams where an OLE object keeps the file it is: Office's own packages ("Package": an .xlsx), Acrobat's
# ("CONTENTS": a PDF).
_FILE_STREAMS = ("package", "contents")
# Objects that are parts of the document's look, not documents: a chart's datasheet (a BIFF5 workbook no reader
# here takes), an equation.
_NOT_DOCUMENTS = (b"MSGraph.Chart", b"Equation.")


def _ole_object(data: bytes, stem: str) -> tuple[str, bytes] | None:
    """The file an OLE object embedded in an Office document holds: a file dropped into it (its Ole10Native
    stream), an Office package or a PDF (in a stream of their own), or the object itself when it is a 97–2003
    workbook or document. None for any other (a drawing, an equation)."""
    import olefile

    from desktop_rag.core.files import parsers

    with olefile.OleFileIO(io.BytesIO(data)) as ole:
        streams = {"/".join(entry).lower(): entry for entry in ole.listdir()}
        comp_obj = ole.openstream(streams["\x01compobj"]).read() if "\x01compobj" in streams else b""
        if any(kind in comp_obj for kind in _NOT_DOCUMENTS):
            return None
        if "\x01ole10native" in streams:
            return _native(ole.openstream(streams["\x01ole10native"]).read())
        for name in _FILE_STREAMS:
            if name in streams:
                inner = ole.openstream(streams[name]).read()
                if (suffix := parsers.sniffed_suffix(inner)) is not None:
                    return f"{stem}{suffix}", inner
    suffix = parsers.sniffed_suffix(data)
    return (f"{stem}{suffix}", data) if suffix is not None else None


def _native(native: bytes) -> tuple[str, bytes]:
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


def _c_string(data: bytes, at: int) -> tuple[str, int]:
    end = data.index(b"\0", at)
    return data[at:end].decode("cp1252", "replace"), end + 1


def _pdf_files(data: bytes) -> list[tuple[str, bytes]]:
    import pymupdf

    found = []
    with pymupdf.open(stream=data, filetype="pdf") as pdf:
        for index in range(pdf.embfile_count()):
            info = pdf.embfile_info(index)
            found.append((info.get("filename") or info.get("name") or f"attachment {index + 1}",
                          pdf.embfile_get(index)))
        if b"/FileAttachment" in data:
            for page in pdf:
                for annotation in page.annots(types=[pymupdf.PDF_ANNOT_FILE_ATTACHMENT]):  # type: ignore[attr-defined]
                    found.append((annotation.file_info.get("filename") or f"page {page.number + 1} attachment",
                                  annotation.get_file()))
    return [(attachment_name(name, "attachment"), content)
            for name, content in found if content]
