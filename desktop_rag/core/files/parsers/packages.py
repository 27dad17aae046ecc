"""Office documents that are zips of XML (Office Open XML, OpenDocument): opened with their size checked first, and
told apart from what only looks like one (a password-protected Office file is an OLE container, not a zip)."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import replace
from xml.etree import ElementTree

from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.package_forms import as_readers_expect
from desktop_rag.documents import Heading, ParsedDocument

# A 2 MB "zip bomb" DOCX inflating to 2 GiB took 4 minutes and 4.2 GB of memory; a real document of 50 MB (the file
# size limit) inflates to a few hundred MB at most.
MAX_INFLATED_BYTES = 512 * 2**20
# The first bytes of an OLE compound file: legacy Office (.doc, .xls, .ppt), Outlook .msg, and Office Open XML
# files encrypted with a password (their zip is stored, encrypted, inside one).
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def password_protected(what: str) -> str:
    """The reason given for every password-protected file, whatever its format."""
    return (f"password-protected: this {what} cannot be read without its password (open it, remove the password, "
            "and save it again to have it indexed)")


def ole_is_encrypted(data: bytes) -> bool:
    """An OLE compound file that is password-protected: Office Open XML encrypted into one (its EncryptionInfo and
    EncryptedPackage streams), or Word 97–2003 (the fEncrypted bit of its FIB) or PowerPoint 97–2003 (the
    encrypted-session mark in its Current User stream) with a password. Not a damaged file named as one."""
    import olefile

    try:
        ole = olefile.OleFileIO(io.BytesIO(data))
    except Exception:  # not a readable compound file at all
        return False
    with ole:
        try:
            if ole.exists("EncryptionInfo") or ole.exists("EncryptedPackage"):
                return True
            if ole.exists("WordDocument"):
                fib = ole.openstream("WordDocument").read(12)
                return len(fib) == 12 and bool(int.from_bytes(fib[10:12], "little") & 0x0100)
            if ole.exists("Current User"):
                return ole.openstream("Current User").read(16)[12:16] == b"\xdf\xc4\xd1\xf3"
        except Exception:  # a damaged stream: not known to be encrypted
            return False
    return False


def open_package(data: bytes, kind: str) -> zipfile.ZipFile:
    """The package's zip, or ParseError saying why not (`kind`: "DOCX", "PowerPoint file"…)."""
    if data.startswith(OLE_MAGIC):
        if ole_is_encrypted(data):
            raise ParseError(password_protected(kind))
        raise ParseError(f"not a readable {kind}: it is an older Office file, or another kind of file, under this "
                         "name")
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise ParseError(f"not a readable {kind} (corrupt or truncated)")
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise unreadable(f"not a readable {kind}", exc) from None
    # zipfile reads no member past the size its entry declares, so the declared sizes bound the work.
    inflated = sum(member.file_size for member in package.infolist())
    if inflated > MAX_INFLATED_BYTES:
        package.close()
        raise ParseError(f"its contents would inflate to {inflated / 2**20:,.0f} MB, over the "
                         f"{MAX_INFLATED_BYTES // 2**20} MB a document may take (a damaged file, or a zip bomb)")
    return package


# The main part's content type of each variant a reader refuses by it (python-docx and python-pptx check it): macro-
# enabled files, templates, slide shows. Their parts are those of the plain document.
_VARIANT_TYPES = {
    "application/vnd.ms-word.document.macroEnabled.main+xml": "wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml": "wordprocessingml.document",
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml": "wordprocessingml.document",
    "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml": "presentationml.presentation",
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml": "presentationml.presentation",
    "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml": "presentationml.presentation",
    "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml": "presentationml.presentation",
    "application/vnd.ms-powerpoint.template.macroEnabled.main+xml": "presentationml.presentation",
}
_CONTENT_TYPES = "[Content_Types].xml"


def readable_package(data: bytes, kind: str) -> bytes:
    """An Office file checked as open_package checks it (damaged, a zip bomb: refused before anything inflates), then
    in the form its reader takes (as_plain_document): what the reader and every part read beside it are given."""
    with open_package(data, kind):
        pass
    return as_plain_document(data)


def as_plain_document(data: bytes) -> bytes:
    """A macro-enabled file, template or slide show (.docm, .dotx, .pptm, .ppsx, .potx…) as the plain document it is
    for reading: its main part's content type said as a .docx's or .pptx's (a package in memory; the file is not
    touched), and one in a form the readers do not take (Strict Open XML, part names in another case) as they
    take it (package_forms.py). Any other package as it is."""
    data = as_readers_expect(data)
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        try:
            types = package.read(_CONTENT_TYPES).decode("utf-8")
        except (KeyError, UnicodeError):
            return data
        variants = [variant for variant in _VARIANT_TYPES if variant in types]
        if not variants:
            return data
        for variant in variants:
            types = types.replace(variant, f"application/vnd.openxmlformats-officedocument.{_VARIANT_TYPES[variant]}"
                                           ".main+xml")
        rewritten = io.BytesIO()
        with zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as target:
            for entry in package.infolist():
                target.writestr(entry.filename,
                                types.encode("utf-8") if entry.filename == _CONTENT_TYPES else package.read(entry))
    return rewritten.getvalue()


def read_member(package: zipfile.ZipFile, name: str, kind: str) -> bytes:
    try:
        return package.read(name)
    except KeyError:
        raise ParseError(f"not a readable {kind}: it has no {name}") from None
    except (zipfile.BadZipFile, EOFError, OSError, RuntimeError) as exc:  # truncated, bad CRC, encrypted member
        raise unreadable(f"not a readable {kind}", exc) from None


_CORE = {
    "{http://purl.org/dc/elements/1.1/}title": "title",
    "{http://purl.org/dc/elements/1.1/}creator": "author",
    "{http://purl.org/dc/terms/}created": "created",
    "{http://purl.org/dc/terms/}modified": "modified",
}


def ooxml_properties(package: zipfile.ZipFile) -> tuple[str, dict[str, str]]:
    """(title, metadata) from docProps/core.xml, which Word, Excel and PowerPoint files share; ("", {}) without it."""
    try:
        root = ElementTree.fromstring(package.read("docProps/core.xml"))
    except (KeyError, ElementTree.ParseError, zipfile.BadZipFile, OSError):
        return "", {}
    found = {_CORE[child.tag]: (child.text or "").strip() for child in root if child.tag in _CORE}
    title = found.pop("title", "")
    return title, {key: iso_date(value) if key in ("created", "modified") else value for key, value in found.items()}


_ISO_DATE = re.compile(r"^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d)?))?")


def iso_date(value: str) -> str:
    """"2025-03-14T09:30:00Z" → "2025-03-14T09:30:00"; a value that is no date is kept as it is."""
    m = _ISO_DATE.match(value.strip())
    if not m:
        return value.strip()
    return f"{m.group(1)}T{m.group(2)}" if m.group(2) else m.group(1)


# Text that XML packages hold outside what their libraries read: charts (titles, series names, category labels,
# as last drawn), shapes and text boxes, comments. By member name pattern, the elements whose text is taken.
_DRAWING_TEXT = "{http://schemas.openxmlformats.org/drawingml/2006/main}t"
_CHART_VALUE = "{http://schemas.openxmlformats.org/drawingml/2006/chart}v"
_SHEET_TEXT = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}t"
_SLIDE_COMMENT = "{http://schemas.openxmlformats.org/presentationml/2006/main}text"


def package_texts(data: bytes, members: str) -> list[str]:
    """The texts of the members whose names match the regular expression `members` (charts: "xl/charts/chart\\d+
    .xml"), one per member, in name order: DrawingML text runs, a chart's series names and category labels,
    comments' text. A member that cannot be read adds nothing (the rest of the document is read already)."""
    from lxml import etree

    texts = []
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        for name in sorted((n for n in package.namelist() if re.fullmatch(members, n)), key=natural_order):
            try:
                root = etree.fromstring(package.read(name), etree.XMLParser(resolve_entities=False, no_network=True))
            except (etree.XMLSyntaxError, KeyError, zipfile.BadZipFile, OSError, RuntimeError):
                continue
            words: list[str] = []
            for element in root.iter(_DRAWING_TEXT, _CHART_VALUE, _SHEET_TEXT, _SLIDE_COMMENT):
                if element.tag == _CHART_VALUE and not _is_label(element):
                    continue  # a chart's numbers: not words
                if (text := (element.text or "").strip()) and (not words or words[-1] != text):
                    words.append(text)
            if words:
                texts.append(" ".join(words))
    return texts


def commented(author: str, text: str) -> str:
    """A comment with who wrote it: the author is part of what a person remembers ("Michael's comment", issue 51)."""
    return f"Comment by {author}: {text}" if author.strip() and text.strip() else text


_PRESENTATION = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_MODERN = "{http://schemas.microsoft.com/office/powerpoint/2018/8/main}"


def slide_comments(data: bytes) -> list[str]:
    """A presentation's comments, each with its author: PowerPoint's classic ones (ppt/comments/, authors in
    ppt/commentAuthors.xml) and its modern ones (ppt/comments/modernComment_*.xml, authors in ppt/authors.xml)."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    found = []
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        names = package.namelist()

        def root_of(name: str):
            try:
                return etree.fromstring(package.read(name), parser)
            except (etree.XMLSyntaxError, KeyError, zipfile.BadZipFile, OSError, RuntimeError):
                return None

        authors: dict[str, str] = {}
        for name, tag in (("ppt/commentAuthors.xml", _PRESENTATION + "cmAuthor"),
                          ("ppt/authors.xml", _MODERN + "author")):
            if name in names and (root := root_of(name)) is not None:
                authors.update({a.get("id", ""): a.get("name", "") for a in root.iter(tag)})
        for name in sorted((n for n in names if re.fullmatch(r"ppt/comments/[^/]+\.xml", n)), key=natural_order):
            root = root_of(name)
            if root is None:
                continue
            for comment in root.iter(_PRESENTATION + "cm", _MODERN + "cm"):
                said = " ".join(t.text.strip() for t in comment.iter(_SLIDE_COMMENT, _DRAWING_TEXT)
                                if t.text and t.text.strip())
                if said:
                    found.append(commented(authors.get(comment.get("authorId", ""), ""), said))
    return found


def _is_label(value) -> bool:
    parent = value.getparent()
    while parent is not None:
        local = parent.tag.rsplit("}", 1)[-1] if isinstance(parent.tag, str) else ""
        if local in ("tx", "cat"):
            return True
        if local in ("val", "yVal", "xVal"):
            return False
        parent = parent.getparent()
    return False


def natural_order(name: str) -> list:
    """A sort key putting "chart10" after "chart9"."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def with_section(document: ParsedDocument, heading: str, texts: list[str]) -> ParsedDocument:
    """`document` with a last section: `heading`, then `texts` a line each (nothing when there are none)."""
    if not texts:
        return document
    start = len(document.text) + 2 if document.text else 0
    text = (document.text + "\n\n" if document.text else "") + heading + "\n" + "\n".join(texts)
    return replace(document, text=text, headings=[*document.headings, Heading(start, 1, heading)])
