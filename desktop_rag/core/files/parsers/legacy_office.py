"""Word 97–2003 (.doc) and PowerPoint 97–2003 (.ppt), the binary formats of the files people kept for decades.

.doc through `legacy-doc` (MIT, pure Python: the text of the piece table and the document's properties; it runs
nothing, refuses encrypted and malformed files); .ppt through `ppt2pptx` (MIT, pure Python), which writes it as a
.pptx that the .pptx reader reads (slides, titles, text boxes, tables, notes). Both pinned: young projects, read
before use. A ".doc" or ".ppt" that is really RTF, HTML, text or the newer XML format (Word and many programs save
those under the old name) is read as what it is. A password-protected file is named so.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from desktop_rag.core.files.parsers import docx, html, markup, rtf, slides
from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.packages import OLE_MAGIC, ole_is_encrypted, password_protected
from desktop_rag.documents import NAME_ONLY, ParsedDocument

_WHAT = {".doc": "Word 97–2003 document", ".ppt": "PowerPoint 97–2003 presentation"}
# A field's instruction left in the text between its marks (a link's: HYPERLINK "http://…"), before the text it shows.
_FIELD_INSTRUCTION = re.compile(
    r'\b(?:HYPERLINK|INCLUDEPICTURE|REF|PAGEREF)\s+(?:\\[a-z]\s+)*"[^"\n]*"\s*(?:\\[a-z*]+\s*)*')
# The size of the text of one .doc taken at most (legacy-doc's own limit is 5 MB): a 2,000-page book.
_MAX_TEXT_BYTES = 64 * 2**20


def parse_legacy(data: bytes, stem: str, suffix: str) -> ParsedDocument:
    if rtf.looks_like_rtf(data):
        return rtf.parse_rtf(data, stem)
    head = data[:512].lstrip().lower()
    if head.startswith((b"<html", b"<!doctype html")):
        return html.parse_html(data, stem)
    if data.startswith(b"PK\x03\x04"):  # the XML format saved under the old name
        return docx.parse_docx(data, stem) if suffix == ".doc" else slides.parse_pptx(data, stem)
    if not data.startswith(OLE_MAGIC):
        try:
            return markup.parse_plain(data, stem)
        except ParseError:
            raise ParseError(f"not a {_WHAT[suffix]}, nor text (corrupt or truncated)") from None
    if ole_is_encrypted(data):
        raise ParseError(password_protected(_WHAT[suffix]))
    return _read_doc(data, stem) if suffix == ".doc" else _read_ppt(data, stem)


def _read_doc(data: bytes, stem: str) -> ParsedDocument:
    from legacy_doc import ExtractionOptions, LegacyDocError, extract_text

    try:
        extracted = extract_text(data, options=ExtractionOptions(max_file_bytes=len(data) + 1,
                                                                 max_text_bytes=_MAX_TEXT_BYTES))
    except LegacyDocError as exc:
        reason = str(exc).lower()
        if "encrypted" in reason:
            raise ParseError(password_protected(_WHAT[".doc"])) from None
        if "no text" in reason or "readable text ranges" in reason:  # a blank document: known by its name
            return ParsedDocument(text="", title=stem, parser=NAME_ONLY)
        raise unreadable(f"not a readable {_WHAT['.doc']}", exc) from None
    found = extracted.metadata
    metadata = {key: str(found[source]).strip()[:10 if key != "author" else None]
                for key, source in (("author", "author"), ("created", "created_at"), ("modified", "last_saved_at"))
                if found.get(source)}
    text = _FIELD_INSTRUCTION.sub("", extracted.text).strip()
    title = str(found.get("title") or "").strip() or next((line.strip()[:120] for line in text.split("\n")
                                                           if line.strip()), "") or stem
    return ParsedDocument(text=text, title=title, parser="doc", metadata=metadata)


def _read_ppt(data: bytes, stem: str) -> ParsedDocument:
    """Written as a .pptx in a folder of its own (ppt2pptx converts between files), read, and removed."""
    from ppt2pptx import convert
    from ppt2pptx.errors import EncryptedPresentationError, Ppt2PptxError, UnsupportedPptVersionError

    with tempfile.TemporaryDirectory(prefix="desktop-rag-ppt-") as folder:
        source, converted = Path(folder) / "old.ppt", Path(folder) / "new.pptx"
        source.write_bytes(data)
        try:
            convert(source, converted)
        except EncryptedPresentationError:
            raise ParseError(password_protected(_WHAT[".ppt"])) from None
        except UnsupportedPptVersionError:
            raise ParseError("a PowerPoint 95 or older presentation: this format is not read; open it in "
                             "PowerPoint or LibreOffice Impress and save it as .pptx to have it indexed") from None
        except (Ppt2PptxError, ValueError, IndexError, KeyError, OSError) as exc:
            raise unreadable(f"not a readable {_WHAT['.ppt']}", exc) from None
        document = slides.parse_pptx(converted.read_bytes(), stem)
    return ParsedDocument(text=document.text, title=document.title, parser="ppt", headings=document.headings,
                          page_starts=document.page_starts, metadata=document.metadata)


def parse_doc(data: bytes, stem: str) -> ParsedDocument:
    return parse_legacy(data, stem, ".doc")


def parse_ppt(data: bytes, stem: str) -> ParsedDocument:
    return parse_legacy(data, stem, ".ppt")
