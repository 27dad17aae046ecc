"""StarOffice and OpenOffice.org 1.x documents: text (.sxw, its template .stw) and spreadsheets (.sxc, .stc), the
formats before OpenDocument (2005), which Tika reads and a decade-old folder still holds. Their XML is OpenDocument's
ancestor: the same elements in the older namespaces (http://openoffice.org/2000/…), a text's body without
OpenDocument's office:text, a heading's level named text:level. Once their XML speaks OpenDocument, the OpenDocument
reader reads them (opendocument.py), limits and password check included."""

from __future__ import annotations

import io
import re
import zipfile

from desktop_rag.core.files.parsers import opendocument
from desktop_rag.core.files.parsers.packages import open_package, read_member
from desktop_rag.documents import ParsedDocument

_NAMESPACES = {f"http://openoffice.org/2000/{old}".encode(): f"urn:oasis:names:tc:opendocument:xmlns:{new}:1.0".encode()
               for old, new in (("office", "office"), ("text", "text"), ("table", "table"), ("drawing", "drawing"),
                                ("presentation", "presentation"), ("meta", "meta"))}
_PARTS = ("content.xml", "meta.xml", "META-INF/manifest.xml")
_BODY_OPENS = re.compile(rb"<office:body(\s[^>]*)?>")


def parse_sxw(data: bytes, stem: str) -> ParsedDocument:
    return opendocument.parse_odt(_as_opendocument(data, "StarOffice text file", text_body=True), stem)


def parse_sxc(data: bytes, stem: str) -> ParsedDocument:
    return opendocument.parse_ods(_as_opendocument(data, "StarOffice spreadsheet", text_body=False), stem)


def _as_opendocument(data: bytes, kind: str, text_body: bool) -> bytes:
    """The package with its XML parts in OpenDocument's words (the rest of it is not read)."""
    with open_package(data, kind) as package:
        names = set(package.namelist()) | {"content.xml"}  # (read_member says so when it is missing)
        parts = {name: read_member(package, name, kind) for name in _PARTS if name in names}
    for name in ("content.xml", "meta.xml"):
        if name in parts:
            parts[name] = _in_opendocument_words(parts[name], text_body and name == "content.xml")
    rewritten = io.BytesIO()
    with zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as package:
        for name, part in parts.items():
            package.writestr(name, part)
    return rewritten.getvalue()


def _in_opendocument_words(xml: bytes, text_body: bool) -> bytes:
    for old, new in _NAMESPACES.items():
        xml = xml.replace(b'"' + old + b'"', b'"' + new + b'"')
    xml = xml.replace(b" text:level=", b" text:outline-level=")
    if text_body:  # OpenDocument keeps a text's flow in office:body/office:text
        xml = xml.replace(b"<office:body/>", b"<office:body><office:text/></office:body>")
        xml = _BODY_OPENS.sub(lambda m: m.group(0) + b"<office:text>", xml, count=1)
        xml = xml.replace(b"</office:body>", b"</office:text></office:body>", 1)
    return xml
