"""Files inside documents: a workbook, a PDF or a mail embedded in a Word, Excel or PowerPoint file (the package's
`embeddings/` folder; a Word 97–2003 document's ObjectPool; an RTF document's objects: ole_objects.py), and files
attached to a PDF (its embedded files and file-attachment annotations). Each is a
document of its own beside the one holding it: "report.docx › budget.xlsx" (issue 38: a budget pasted into a
report as an object was nowhere to be found).

`may_hold_files` is cheap (a zip's list of names, a search of the PDF's bytes) and runs on every such file;
`embedded_files` reads them out and runs only where the first said yes.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePosixPath

from desktop_rag.core.files import ole_objects
from desktop_rag.core.files.parsers.mail import attachment_name
from desktop_rag.core.files.parsers.formats import holding_files
from desktop_rag.core.files.parsers.packages import OLE_MAGIC

_PACKAGES = holding_files()  # the Office packages whose embeddings/ folder may hold files (formats.py)
_EMBEDDINGS = ("word/embeddings/", "xl/embeddings/", "ppt/embeddings/")
# An embedded file's stream must be a stream object, which PDF never compresses into an object stream: its type is
# in the file's bytes as written (a file-attachment annotation's subtype, likewise, in all but rare writers).
_PDF_MARKS = (b"/EmbeddedFile", b"/FileAttachment")
_MAX_FILES = 1000


def may_hold_files(name: str, data: bytes) -> bool:
    suffix = PurePosixPath(name.lower()).suffix
    if suffix == ".pdf":
        return any(mark in data for mark in _PDF_MARKS)
    if suffix == ".rtf" or (suffix == ".doc" and data.startswith(b"{\\rtf")):
        return b"\\objdata" in data
    if suffix == ".doc":
        return data.startswith(OLE_MAGIC) and ole_objects.holds_object_pool(data)
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
        suffix = PurePosixPath(name.lower()).suffix
        if suffix == ".pdf":
            return _pdf_files(data)[:_MAX_FILES]
        if data.startswith(b"{\\rtf"):
            return ole_objects.rtf_object_files(data)[:_MAX_FILES]
        if suffix == ".doc":
            return ole_objects.object_pool_files(data)[:_MAX_FILES]
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
                named = ole_objects.ole_file_object(inner, stem)
                if named is not None:
                    found.append(named)
                continue
            found.append((PurePosixPath(entry.filename).name, inner))
    return found


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
