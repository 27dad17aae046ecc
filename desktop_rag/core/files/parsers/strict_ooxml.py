"""Strict Open XML (ISO/IEC 29500 Strict: Word's, Excel's and PowerPoint's "Strict Open XML" save-as choice) read as
the transitional form the readers know. The two differ, for reading text, in their namespaces and relationship types
only: python-docx, python-pptx and openpyxl find no main part in a strict package ("no relationship of type
…/officeDocument"), and a document saved so failed whole (pandoc's test file command/7691.docx)."""

from __future__ import annotations

import io
import re
import zipfile

_STRICT = re.compile(rb"http://purl\.oclc\.org/ooxml/(\w+)/([\w/]+)")
# Where the transitional name is not the strict one with "2006/" put in.
_RENAMED = {b"extendedProperties": b"extended-properties", b"customProperties": b"custom-properties"}
_XML_PARTS = (".xml", ".rels", ".vml")


def is_strict(package: zipfile.ZipFile) -> bool:
    try:
        return b"purl.oclc.org/ooxml/" in package.read("_rels/.rels")
    except (KeyError, zipfile.BadZipFile, OSError, RuntimeError, EOFError):
        return False


def _transitional_name(match: re.Match[bytes]) -> bytes:
    area, rest = match.group(1), match.group(2)
    *path, last = rest.split(b"/")
    path.append(_RENAMED.get(last, last))
    return b"http://schemas.openxmlformats.org/" + area + b"/2006/" + b"/".join(path)


def as_transitional(data: bytes) -> bytes:
    """A strict package rewritten in memory with the transitional names (the file is not touched); any other package
    as it is."""
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        if not is_strict(package):
            return data
        rewritten = io.BytesIO()
        with zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as target:
            for entry in package.infolist():
                content = package.read(entry)
                if entry.filename.lower().endswith(_XML_PARTS):
                    content = _STRICT.sub(_transitional_name, content)
                target.writestr(entry.filename, content)
    return rewritten.getvalue()
