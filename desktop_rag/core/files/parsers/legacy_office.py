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
    r'\b(?:HYPERLINK|INCLUDEPICTURE|REF|PAGEREF)\s+(?:\\[a-z]\s+)*"[^"\n]*"\s*(?:\\[a-z*]+\s*)*'
    # An embedded object's and a link's instruction ("EMBED AcroExch.Document.7", "LINK PowerPoint.Slide.8
    # "C:\\Share\\deck.ppt" "256"): the object is read as a document of its own (ole_objects.py), not as this code.
    r'|\b(?:EMBED|LINK)\s+[A-Za-z][\w.]*(?:\s+(?:"[^"\n]*"|[A-Za-z]:\\\S*))?(?:\s+"[^"\n]*")?(?:\s*\\[a-z*]+)*')
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
        if _word_version(data) < _WORD_97:
            raise ParseError("a Word 6 or Word 95 document: this format is not read; open it in Word or LibreOffice "
                             "Writer and save it as .docx to have it indexed") from None
        raise unreadable(f"not a readable {_WHAT['.doc']}", exc) from None
    found = extracted.metadata
    metadata = {key: str(found[source]).strip()[:10 if key != "author" else None]
                for key, source in (("author", "author"), ("created", "created_at"), ("modified", "last_saved_at"))
                if found.get(source)}
    text = _FIELD_INSTRUCTION.sub("", extracted.text).strip()
    title = str(found.get("title") or "").strip() or next((line.strip()[:120] for line in text.split("\n")
                                                           if line.strip()), "") or stem
    return ParsedDocument(text=text, title=title, parser="doc", metadata=metadata)


_WORD_97 = 0xC1  # the nFib of Word 97 and later; Word 6 and 95 wrote 101–105


def _word_version(data: bytes) -> int:
    """The nFib in the Word document stream's header (its second 16 bits); Word 97's when it cannot be read."""
    import io
    import struct

    import olefile

    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            return struct.unpack("<HH", ole.openstream("WordDocument").read(4))[1]
    except Exception:
        return _WORD_97


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
        document = slides.parse_pptx(converted.read_bytes(), stem, titles=_ppt_titles(data))
    return ParsedDocument(text=document.text, title=document.title, parser="ppt", headings=document.headings,
                          page_starts=document.page_starts, metadata=document.metadata)


# PowerPoint 97–2003's records (MS-PPT): a header of version and instance (2 bytes), type (2) and length (4); a
# version of 0xF is a container of records. A slide's text says what it is in the TextHeaderAtom before it.
_SLIDE, _TEXT_HEADER, _TEXT_CHARS, _TEXT_BYTES = 0x03EE, 0x0F9F, 0x0FA0, 0x0FA8
_TITLE_TYPES = {0, 6}  # a title, a centred (title slide's) title
_MAX_RECORDS = 500_000


def _ppt_titles(data: bytes) -> frozenset[str]:
    """The titles of the slides (not of the masters): ppt2pptx writes them as plain text boxes, so the .pptx reader
    would call every slide "Slide n" (issue 38). Empty when the records cannot be read: the text is read anyway."""
    import io
    import struct

    import olefile

    titles: set[str] = set()
    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            stream = ole.openstream("PowerPoint Document").read()
        pending: list[tuple[int, int, bool]] = [(0, len(stream), False)]  # (from, to, inside a slide)
        seen = 0
        while pending and seen < _MAX_RECORDS:
            at, end, in_slide = pending.pop()
            text_type = None
            while at + 8 <= end and seen < _MAX_RECORDS:
                seen += 1
                version_instance, kind, length = struct.unpack_from("<HHI", stream, at)
                body = stream[at + 8:min(at + 8 + length, end)]
                if version_instance & 0xF == 0xF:
                    pending.append((at + 8, min(at + 8 + length, end), in_slide or kind == _SLIDE))
                elif kind == _TEXT_HEADER and len(body) >= 4:
                    text_type = struct.unpack_from("<I", body)[0]
                elif kind in (_TEXT_CHARS, _TEXT_BYTES) and in_slide and text_type in _TITLE_TYPES:
                    title = body.decode("utf-16-le" if kind == _TEXT_CHARS else "cp1252", "replace")
                    titles.add(" ".join(title.replace("\r", "\n").split("\n")[0].split()))
                at += 8 + length
    except Exception:
        return frozenset()
    return frozenset(title for title in titles if title)


def parse_doc(data: bytes, stem: str) -> ParsedDocument:
    return parse_legacy(data, stem, ".doc")


def parse_ppt(data: bytes, stem: str) -> ParsedDocument:
    return parse_legacy(data, stem, ".ppt")
