"""Every format a reader here reads, declared once (issue 62): the names its files end with, its reader, the revision
of that reader, what a byte of it gives in word pieces before a run has measured any, and whether files may be
embedded in it. The readers by suffix (parsers/__init__.py), the revisions that read old files again
(revisions.py), the run's first estimate (core/progress/run_meter.py) and the search for embedded files
(core/files/embedded.py) are all made from this table: adding a format is one entry here and its reader.

A document's search family (`type:`) is its format's, known in the catalog by the `parser` name its reader
records: the writer keeps the catalog's table of them as this one says (storage/catalog_filters.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from desktop_rag.core.files.parsers import (code, delimited, docx, drawings, html, images, legacy_office, mail, markup,
                                           notebook, office_xml, opendocument, outlook, paged, rtf, sheets, slides,
                                           staroffice, web_archive, xlsb)
from desktop_rag.documents import ParsedDocument

Reader = Callable[[bytes, str], ParsedDocument]

# Word pieces a byte gives, by kind (on a folder of 559 public files: PDF 0.028, .txt 0.28, .md 0.24, .docx 0.12,
# .xlsx 0.14, .eml 0.024, .pptx 0.001, pictures < 0.004): plain text ~4 bytes a piece in English, ~3 in Japanese;
# markup and compressed packages fewer; pictures (read by OCR, timed apart) almost none.
PLAIN, MARKUP, PACKAGE, DENSE, DECK, PICTURE = 0.25, 0.08, 0.1, 0.03, 0.01, 0.002
DEFAULT_FAMILY = "text"  # the family of a document whose reader's parser no format names


@dataclass(frozen=True)
class Format:
    name: str  # said to the person, and recorded with the revision its files were read with
    suffixes: tuple[str, ...]
    reader: Reader
    text_yield: float = 0.05  # word pieces a byte gives, until the run has read some of its files
    revision: int = 1  # raised with the change that makes the reader read more: its files are read again, once
    holds_files: bool = False  # files may be embedded in it (a workbook in a report): core/files/embedded.py
    mimetypes: tuple[bytes, ...] = ()  # a zip package's `mimetype` member: how a file without its name is known
    family: str = DEFAULT_FAMILY  # what `type:` finds it by (core/search/filters.py FAMILIES names each)
    parsers: tuple[str, ...] = ()  # the `parser` names its reader records, by which the catalog knows its family


def _suffixes(words: str) -> tuple[str, ...]:
    return tuple(words.split())


def _opendocument(kind: str) -> tuple[bytes, ...]:
    return (f"application/vnd.oasis.opendocument.{kind}".encode(),
            f"application/vnd.oasis.opendocument.{kind}-template".encode())


FORMATS: tuple[Format, ...] = (
    Format("PDF", (".pdf",), paged.parse_pdf, DENSE, family="pdf", parsers=("pdf",)),
    Format("EPUB", (".epub",), paged.parse_epub, PACKAGE, mimetypes=(b"application/epub+zip",), family="ebook",
           parsers=("epub",)),
    Format("plain text", _suffixes(".txt .text"), markup.parse_plain, PLAIN),
    Format("Markdown", _suffixes(".md .markdown"), markup.parse_markdown, PLAIN),
    Format("reStructuredText", (".rst",), markup.parse_rst, PLAIN),
    Format("HTML", _suffixes(".html .htm .xhtml"), html.parse_html, MARKUP),
    # 2: their cells, headings and printed output (notebook.py); their JSON as text before.
    Format("Jupyter notebook", (".ipynb",), notebook.parse_notebook, revision=2, family="code", parsers=("notebook",)),
    # 2: read as the page they hold (web_archive.py); their MIME source as text before.
    Format("saved web page", _suffixes(".mht .mhtml"), web_archive.parse_web_archive, revision=2),
    # 2: Strict Open XML files and odd part names (package_forms.py), SmartArt diagrams (smartart.py). Macro-enabled
    # files and templates are a .docx's parts (packages.as_plain_document).
    Format("Word", _suffixes(".docx .docm .dotx .dotm"), docx.parse_docx, PACKAGE, 2, holds_files=True, family="word",
           parsers=("docx",)),
    Format("PowerPoint", _suffixes(".pptx .pptm .ppsx .ppsm .potx .potm"), slides.parse_pptx, DECK, 2,
           holds_files=True, family="slides", parsers=("pptx",)),
    # 2: Strict Open XML files and odd part names; a sheet whose saved size is the whole sheet.
    Format("Excel", _suffixes(".xlsx .xlsm .xltx .xltm"), sheets.parse_xlsx, PACKAGE, 2, holds_files=True,
           family="spreadsheet", parsers=("xlsx",)),
    Format("Excel 97-2003", (".xls",), sheets.parse_xls, DENSE, family="spreadsheet", parsers=("xls",)),
    # 2: read as sheets, each row with its columns' labels (delimited.py); plain text before. 3: UTF-32 without a
    # byte-order mark read (decoding.py), refused as binary before (issue 60).
    Format("CSV", _suffixes(".csv .tsv"), delimited.parse_delimited, PLAIN, 3, family="spreadsheet", parsers=("csv",)),
    Format("Excel binary", (".xlsb",), xlsb.parse_xlsb, family="spreadsheet", parsers=("xlsb",)),
    # Word and Excel 2003 XML, known by their root whatever their name (.xml, .doc, .xls): parsers/__init__.py.
    Format("Word 2003 XML", (), office_xml.parse_office_xml, family="word", parsers=("word-xml",)),
    Format("Excel 2003 XML", (), office_xml.parse_office_xml, family="spreadsheet", parsers=("excel-xml",)),
    Format("Visio", _suffixes(".vsdx .vsdm"), drawings.parse_vsdx),
    Format("XPS", _suffixes(".xps .oxps"), drawings.parse_xps),
    Format("Open Packaging", (drawings.OTHER_PACKAGE,), drawings.parse_other_package),  # by what a zip holds alone
    Format("OpenDocument text", _suffixes(".odt .ott"), opendocument.parse_odt, PACKAGE,  # (.ott: its template)
           mimetypes=_opendocument("text"), family="word", parsers=("odt",)),
    Format("OpenDocument spreadsheet", _suffixes(".ods .ots"), opendocument.parse_ods, PACKAGE,
           mimetypes=_opendocument("spreadsheet"), family="spreadsheet", parsers=("ods",)),
    Format("OpenDocument presentation", _suffixes(".odp .otp"), opendocument.parse_odp, DECK,
           mimetypes=_opendocument("presentation"), family="slides", parsers=("odp",)),
    Format("OpenDocument drawing", _suffixes(".odg .otg"), opendocument.parse_odg, mimetypes=_opendocument("graphics")),
    # StarOffice and OpenOffice.org 1.x, before OpenDocument (2005): the same content in the older namespaces, read
    # by OpenDocument's reader (so recorded as its parser, in its family).
    Format("StarOffice text", _suffixes(".sxw .stw"), staroffice.parse_sxw, PACKAGE,
           mimetypes=(b"application/vnd.sun.xml.writer", b"application/vnd.sun.xml.writer.template"), family="word"),
    Format("StarOffice spreadsheet", _suffixes(".sxc .stc"), staroffice.parse_sxc, PACKAGE,
           mimetypes=(b"application/vnd.sun.xml.calc", b"application/vnd.sun.xml.calc.template"),
           family="spreadsheet"),
    # 2: a picture's \bin without a byte count no longer fails the file.
    Format("RTF", (".rtf",), rtf.parse_rtf, DENSE, 2, family="word", parsers=("rtf",)),
    Format("Word 97-2003", (".doc",), legacy_office.parse_doc, DENSE, family="word", parsers=("doc",)),
    Format("PowerPoint 97-2003", (".ppt",), legacy_office.parse_ppt, DECK, family="slides", parsers=("ppt",)),
    Format("e-mail", _suffixes(".eml .emlx"), mail.parse_message, DENSE, family="mail", parsers=("email",)),
    Format("Outlook message", (".msg",), outlook.parse_msg, DENSE, family="mail", parsers=("outlook",)),
    Format("code", tuple(sorted(code.EXTENSIONS)), code.parse_code, PLAIN, family="code", parsers=("code",)),
    Format("picture", tuple(sorted(images.EXTENSIONS)), images.parse_image, PICTURE, family="image",
           parsers=("image",)),
)


def reader_by_suffix(formats: tuple[Format, ...] = FORMATS) -> dict[str, Reader]:
    return {suffix: f.reader for f in formats for suffix in f.suffixes}


def text_yields(formats: tuple[Format, ...] = FORMATS) -> dict[str, float]:
    return {suffix: f.text_yield for f in formats for suffix in f.suffixes}


def by_mimetype(formats: tuple[Format, ...] = FORMATS) -> dict[bytes, str]:
    """A package's `mimetype` → the suffix its files have."""
    return {mimetype: f.suffixes[0] for f in formats for mimetype in f.mimetypes}


def holding_files(formats: tuple[Format, ...] = FORMATS) -> frozenset[str]:
    return frozenset(suffix for f in formats if f.holds_files for suffix in f.suffixes)


def parser_families(formats: tuple[Format, ...] = FORMATS) -> dict[str, str]:
    """`parser` name → family, as the catalog stores a document's family (storage/catalog_filters.py follows it)."""
    return {parser: f.family for f in formats for parser in f.parsers}


def family_of_parser(parser: str | None) -> str | None:
    """The family of a document read by `parser` (None: no document read, a failed file)."""
    return None if parser is None else parser_families().get(parser, DEFAULT_FAMILY)


def revised(formats: tuple[Format, ...] = FORMATS) -> dict[str, tuple[int, tuple[str, ...]]]:
    """The formats whose reader has learnt to read more: name → (revision, suffixes) (revisions.py)."""
    return {f.name: (f.revision, f.suffixes) for f in formats if f.revision > 1}
