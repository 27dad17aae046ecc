"""Turn a file's bytes into text plus structure (headings, pages). One module per family of formats.

A parser raises ParseError with a reason a person can act on; the pipeline records it for that file and goes on.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path, PurePath
from collections.abc import Callable, Mapping
from typing import Any, cast

from desktop_rag.core.files.ocr import OcrPage
from desktop_rag.core.files.tnef import SIGNATURE as TNEF_SIGNATURE
from desktop_rag.core.files.parsers import (docx, drawings, formats, images, legacy_office, markup, office_pictures,
                                           office_xml, paged, rtf, sheets, slides, xml_text)
from desktop_rag.core.files.parsers.errors import ParseError, TransientReadError  # noqa: F401 (the pipeline's)
from desktop_rag.core.files.parsers.encoded_runs import without_encoded_runs
from desktop_rag.core.files.parsers.office_keys import opened_with_default_key
from desktop_rag.core.files.parsers.packages import OLE_MAGIC
from desktop_rag.core.files.titles import fitting_title
from desktop_rag.documents import NAME_ONLY, ParsedDocument

Parser = Callable[[bytes, str], ParsedDocument]

# Every format's reader by the names its files end with: the one table of formats (formats.py).
_BY_EXTENSION: dict[str, Parser] = formats.reader_by_suffix()
# Word, PowerPoint and Excel files' pictures are read by OCR as scanned pages are (office_pictures.py).
_WITH_PICTURES: dict[Parser, Parser] = {parser: office_pictures.with_pictures(parser)
                                        for parser in (docx.parse_docx, slides.parse_pptx, sheets.parse_xlsx)}
_BY_EXTENSION.update({ext: _WITH_PICTURES[_BY_EXTENSION[ext]] for ext in office_pictures.SUFFIXES})
# Parsers of the names Word and Excel 2003 XML files come under: .xml (any XML is read as text), and .doc or .xls.
_MAY_BE_OFFICE_XML = {markup.parse_plain, legacy_office.parse_doc, sheets.parse_xls}
# Parsers whose pages may be scans: they take the OCR text of those pages (core/files/ocr.py) when there is some.
_READ_SCANS = {paged.parse_pdf, images.parse_image, *_WITH_PICTURES.values()}

# Files that hold documents, by how their names end, with their kind (core/files/containers.py reads them):
# archives and mailboxes (Outlook's .pst and .ost among them). Read, so not skipped; never given to parse() whole.
CONTAINER_SUFFIXES = {".zip": "zip", ".tar": "tar", ".tgz": "tar", ".tbz2": "tar", ".txz": "tar", ".tar.gz": "tar",
                      ".tar.bz2": "tar", ".tar.xz": "tar", ".mbox": "mbox", ".mbx": "mbox",
                      ".pst": "pst", ".ost": "pst",
                      ".gz": "compressed", ".bz2": "compressed", ".xz": "compressed"}  # after .tar.gz and the like
_CONTAINER_ENDINGS = tuple(CONTAINER_SUFFIXES)

SUPPORTED_EXTENSIONS = frozenset(_BY_EXTENSION) | frozenset(CONTAINER_SUFFIXES)

# Formats that are not text and that no parser here reads: skipped by name, never opened. (.msf: the summary file
# Thunderbird keeps beside each mailbox, text that is no document.)
NOT_READ_EXTENSIONS = frozenset(
    ".ico .svg .psd .ai .raw .cr2 .nef"
    " .mp3 .wav .flac .ogg .oga .m4a .aac .wma .mp4 .m4v .mkv .mov .avi .wmv .webm .flv"
    " .zst .7z .rar .lz .lzma .cab .iso .dmg .img"
    " .exe .dll .so .dylib .o .a .lib .obj .class .jar .war .pyc .pyo .pyd .whl .egg .deb .rpm .msi .apk .bin"
    " .pages .key .numbers .msf"
    " .ttf .otf .woff .woff2 .eot .sqlite .sqlite3 .db .mdb .accdb .pkl .pickle .npy .npz .parquet .feather"
    " .h5 .hdf5 .pt .pth .onnx .gguf .safetensors .ckpt .blend .fbx .stl .sketch .fig".split()
)

DOCUMENT, MAYBE_TEXT, NOT_READ = "document", "maybe text", "not read"
_TITLED_BY_SENDER = frozenset({"email", "outlook"})


def file_kind(path: PurePath) -> str:
    """DOCUMENT: a format with a parser; NOT_READ: a format none reads (an image, an archive); MAYBE_TEXT: no
    extension or an unknown one (LICENSE, Makefile, notes.log), read as plain text if its first bytes are text."""
    suffix = path.suffix.lower()
    if suffix in _BY_EXTENSION or path.name.lower().endswith(_CONTAINER_ENDINGS):
        return DOCUMENT
    return NOT_READ if suffix in NOT_READ_EXTENSIONS else MAYBE_TEXT


def is_image(path: PurePath) -> bool:
    """A picture: its text comes from OCR alone (when OCR is off, it is skipped)."""
    return path.suffix.lower() in images.EXTENSIONS


def is_supported(path: Path) -> bool:
    """Worth indexing by its name: a document, or perhaps text."""
    return file_kind(path) != NOT_READ


def may_be_document(head: bytes) -> bool:
    """The first bytes of a format with a parser (PDF, RTF, a zip or OLE package) or a container (a winmail.dat):
    a file without a known extension that begins so is read, not skipped as binary."""
    return head.startswith((b"%PDF-", b"{\\rtf", b"PK\x03\x04", OLE_MAGIC, TNEF_SIGNATURE))


def sniffed_suffix(data: bytes) -> str | None:
    """The extension a file without one would have, by what it holds: PDF, RTF, an Office or OpenDocument package
    or EPUB by its members, Word, PowerPoint, Excel 97–2003 or an Outlook message by its streams."""
    if data.startswith(b"%PDF-"):
        return ".pdf"
    if rtf.looks_like_rtf(data):
        return ".rtf"
    if data.startswith(b"PK\x03\x04"):
        return _package_suffix(data)
    if data.startswith(OLE_MAGIC):
        return _ole_suffix(data)
    return None


_ODF_TYPES = formats.by_mimetype()  # EPUB, OpenDocument and StarOffice packages by their mimetype member
# OpenDocument and StarOffice packages of the other kinds (a Base database, a formula, a chart, an autotext list,
# an extension), known by their mimetype or their manifest: not read, never their XML parts as documents. Taken for
# archives, Tika's .odb, .oxt and .bau test files gave 31 documents of markup titled `<?xml version…` (issue 51).
_ODF_FAMILY = (b"application/vnd.oasis.opendocument", b"application/vnd.sun.xml", b"application/vnd.stardivision")
_OLE_STREAMS = (("__substg1.0_", ".msg"), ("WordDocument", ".doc"), ("PowerPoint Document", ".ppt"),
                ("Workbook", ".xls"), ("Book", ".xls"))


def _package_suffix(data: bytes) -> str | None:
    import io
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            names = set(package.namelist())
            if "mimetype" in names:
                mimetype = package.read("mimetype").strip()
                if mimetype in _ODF_TYPES:
                    return _ODF_TYPES[mimetype]
                if mimetype.startswith(_ODF_FAMILY):
                    return drawings.OTHER_PACKAGE
            if "META-INF/manifest.xml" in names:  # an OpenDocument-style package without a mimetype (.oxt)
                return drawings.OTHER_PACKAGE
    except (zipfile.BadZipFile, OSError, ValueError, KeyError, RuntimeError):
        return None
    return drawings.packaged_kind(names)


def _ole_suffix(data: bytes) -> str | None:
    import io

    import olefile

    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            streams = {"/".join(entry) for entry in ole.listdir(streams=True, storages=True)}
    except Exception:  # not a readable compound file
        return None
    return next((suffix for prefix, suffix in _OLE_STREAMS if any(s.startswith(prefix) for s in streams)), None)


def parse(path: Path, data: bytes, ocr: Mapping[int, OcrPage] | None = None) -> ParsedDocument:
    """`ocr`: text recognised on scanned pages, by page number. A document with scanned pages not in it lists them
    in `scanned_pages`; one whose pages were all read by OCR may be empty (a photo without text)."""
    kind = file_kind(path)
    if kind == NOT_READ:
        raise ParseError(f"unsupported file type '{path.suffix}'")
    if path.name.lower().endswith(_CONTAINER_ENDINGS):
        raise ParseError("an archive or a mailbox: its documents are read one by one (core/files/containers.py)")
    parser = _BY_EXTENSION.get(path.suffix.lower())
    if parser is None:  # MAYBE_TEXT: a document by its first bytes (a PDF saved without its extension), else text
        parser = _BY_EXTENSION.get(sniffed_suffix(data) or "", markup.parse_plain)
    if parser in _MAY_BE_OFFICE_XML and office_xml.office_xml_kind(data):  # Word or Excel 2003 XML, by its root
        parser = office_xml.parse_office_xml
    elif parser is markup.parse_plain and xml_text.looks_like_xml(data):  # any other XML: its words, not its tags
        parser = xml_text.parse_xml
    if not data:  # nothing to read: the indexer knows it by its name (documents.NAME_ONLY)
        return ParsedDocument(text="", title=path.stem, parser=NAME_ONLY)
    if data.startswith(OLE_MAGIC):  # encrypted with a key Office knows (a workbook protected from changes): read
        data = opened_with_default_key(data) or data  # as Office does; else its parser says it needs a password
    # A document may have no text (a deck of charts, a blank page): the indexer knows it by its name and metadata.
    document = cast(Any, parser)(data, path.stem, ocr) if parser in _READ_SCANS else parser(data, path.stem)
    document = without_encoded_runs(document)  # base64 and hex are no words: a picture's data indexed was 17%
    if document.parser in _TITLED_BY_SENDER:  # a mail's subject is what people remember it by, whatever it says
        return document
    return dataclasses.replace(document, title=fitting_title(document, path.stem))


__all__ = [
    "CONTAINER_SUFFIXES",
    "DOCUMENT",
    "MAYBE_TEXT",
    "NOT_READ",
    "SUPPORTED_EXTENSIONS",
    "ParseError",
    "file_kind",
    "is_image",
    "is_supported",
    "may_be_document",
    "parse",
    "sniffed_suffix",
]
