"""Visio drawings (.vsdx) and XPS documents (.xps, .oxps): Open Packaging zips like .docx, read for their words.

Without a reader, a .vsdx was taken for an archive and each XML part of it indexed as a document: 6,678 passages
of markup from a home folder of public files, 31% of that library, their hits showing `<?xml version…` (issue 51).
A drawing gives each page's shapes' text, the page's name its heading; an XPS document its glyph runs, a page a
page. A package of any other kind is said not to be read (never its parts as documents): packaged_kind.
"""

from __future__ import annotations

import re
import zipfile
from xml.etree import ElementTree

from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.packages import ooxml_properties, open_package
from desktop_rag.core.files.parsers.structured import StructuredText
from desktop_rag.documents import ParsedDocument

_VISIO = "{http://schemas.microsoft.com/office/visio/2012/main}"
_NUMBERED = re.compile(r"(\d+)\.[a-z]+$")
# The part each kind of Open Packaging file has, by which a zip without its extension is known.
_PACKAGE_PARTS = (("word/document.xml", ".docx"), ("ppt/presentation.xml", ".pptx"), ("xl/workbook.xml", ".xlsx"),
                  ("xl/workbook.bin", ".xlsb"), ("visio/document.xml", ".vsdx"), ("FixedDocSeq.fdseq", ".xps"))
OTHER_PACKAGE = ".opc"  # an Open Packaging file none of the parsers reads (a 3D model, a Power BI report…)


def packaged_kind(names: set[str]) -> str | None:
    """The extension of the Office or Open Packaging file whose zip holds `names` (by its main part), OTHER_PACKAGE
    for one of a kind not read ("[Content_Types].xml" marks it), None for a zip that is neither (an archive)."""
    known = next((suffix for part, suffix in _PACKAGE_PARTS if part in names), None)
    return known or (OTHER_PACKAGE if "[Content_Types].xml" in names else None)


def _in_order(names: list[str], folder: str, suffix: str) -> list[str]:
    """The numbered parts ("page3.xml", "Pages/3.fpage") under `folder`, by their numbers."""
    numbered = [(int(m.group(1)), n) for n in names if n.startswith(folder) and n.endswith(suffix)
                and "/_rels/" not in n and (m := _NUMBERED.search(n))]
    return [name for _, name in sorted(numbered)]


def parse_vsdx(data: bytes, stem: str) -> ParsedDocument:
    with open_package(data, "Visio drawing") as package:
        title, metadata = ooxml_properties(package)
        text = StructuredText()
        try:
            pages = ElementTree.fromstring(package.read("visio/pages/pages.xml"))
            page_names = [page.get("Name") or page.get("NameU") or "" for page in pages.iter(_VISIO + "Page")]
            for number, part in enumerate(_in_order(package.namelist(), "visio/pages/page", ".xml")):
                text.page()
                name = page_names[number] if number < len(page_names) else ""
                text.heading(1, name or f"Page {number + 1}", shown=bool(name))
                for shape_text in ElementTree.fromstring(package.read(part)).iter(_VISIO + "Text"):
                    text.add(" ".join("".join(shape_text.itertext()).split()))
        except KeyError as exc:
            raise ParseError(f"not a readable Visio drawing: its part {exc} is missing") from None
        except (ElementTree.ParseError, zipfile.BadZipFile, OSError) as exc:
            raise unreadable("not a readable Visio drawing", exc) from None
    return text.document(title or text.first_title or stem, "vsdx", metadata)


def parse_xps(data: bytes, stem: str) -> ParsedDocument:
    with open_package(data, "XPS document") as package:
        title, metadata = ooxml_properties(package)
        text = StructuredText()
        try:
            for part in _in_order(package.namelist(), "Documents/", ".fpage"):
                text.page()
                lines = [glyphs.get("UnicodeString", "") for glyphs in ElementTree.fromstring(package.read(part)).iter()
                         if glyphs.tag.endswith("}Glyphs")]
                text.add("\n".join(line for line in lines if line.strip()))
        except (ElementTree.ParseError, zipfile.BadZipFile, OSError) as exc:
            raise unreadable("not a readable XPS document", exc) from None
    return text.document(title or stem, "xps", metadata)


def parse_other_package(data: bytes, stem: str) -> ParsedDocument:
    raise ParseError("an Office package of a kind whose text is not read (its parts are not documents): found by "
                     "its name")
