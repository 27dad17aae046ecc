"""XML files read for the words in them, not their markup: a file that opens with `<?xml` and is not a Word or
Excel 2003 document (office_xml.py) gives the text of its elements, a fragment a line, in the encoding it declares.

Read as plain text, Tika's XMP packets, OpenOffice configuration files and RDF were titled `<?xml version…` and
their contexts' key terms were markup ("rdf:Description, ns.adobe.com, xmp:CreatorTool"; issue 51). Attribute
values are left out as a tag's are (Tika does the same): the words a person wrote are elements' text. A file that
is not well-formed is read as plain text, markup and all, rather than not at all.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

from desktop_rag.core.files.parsers.decoding import SNIFF_BYTES, decode_text, declared_encoding
from desktop_rag.core.files.parsers.markup import parse_plain
from desktop_rag.documents import ParsedDocument

_XML_DECLARATION = re.compile(rb"^(?:\xef\xbb\xbf)?\s*<\?(?:xml|xpacket)[\s?]")  # (an XMP packet's own)
_SPACES = re.compile(r"\s+")
# The elements whose text is a document's title where the vocabulary has one (Atom, RSS, DocBook, XHTML, Dublin
# Core's dc:title in an XMP packet).
_TITLE_NAMES = frozenset({"title"})


def looks_like_xml(data: bytes) -> bool:
    """Opens with an XML declaration, or an XMP packet's (after a byte-order mark and blank lines)."""
    return bool(_XML_DECLARATION.match(data[:256]))


def parse_xml(data: bytes, stem: str) -> ParsedDocument:
    text = decode_text(data, declared_encoding(data[:SNIFF_BYTES]))
    try:
        # The declaration names an encoding already applied: ElementTree is given the text without it.
        root = ElementTree.fromstring(re.sub(r"^\ufeff?\s*<\?xml[^>]*\?>", "", text, count=1))
    except ElementTree.ParseError:
        return parse_plain(data, stem)
    lines: list[str] = []
    title = ""
    # In document order: an element's text, its children (each followed by the text after it), without recursion
    # (a deep file must not reach Python's limit).
    pending: list[tuple[ElementTree.Element, bool]] = [(root, False)]
    while pending:
        element, closing = pending.pop()
        if closing:
            if tail := _words(element.tail) if element is not root else "":
                lines.append(tail)
            continue
        if own := _words(element.text):
            lines.append(own)
            if not title and _local_name(element.tag) in _TITLE_NAMES:
                title = own[:120]
        pending.append((element, True))
        pending.extend((child, False) for child in reversed(element))
    body = "\n".join(lines) + ("\n" if lines else "")
    return ParsedDocument(text=body, title=title or stem, parser="xml")


def _words(text: str | None) -> str:
    return _SPACES.sub(" ", text or "").strip()


def _local_name(tag: object) -> str:
    name = tag if isinstance(tag, str) else ""  # (comments and processing instructions have functions for tags)
    return name.rsplit("}", 1)[-1].lower()
