"""Slides, spreadsheets, OpenDocument, RTF, e-mail and archives made inside the tests, with the libraries that write
those formats (python-pptx, openpyxl, odfpy, xlwt) or, for RTF and e-mail, by hand from their specifications."""

from __future__ import annotations

import datetime as dt
import email.policy
import io
import os
import tarfile
import zipfile
from email.message import EmailMessage
from pathlib import Path


def write_pptx(path: Path, slides: list[tuple[str, str, str]], title: str = "", author: str = "") -> Path:
    """slides: (title, body, speaker notes); an empty title makes a slide without one."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    deck.core_properties.title = title
    deck.core_properties.author = author
    for slide_title, body, notes in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1 if slide_title else 6])
        if slide_title:
            slide.shapes.title.text = slide_title
            slide.placeholders[1].text = body
        else:
            slide.shapes.add_textbox(Inches(1), Inches(1), Inches(6), Inches(2)).text_frame.text = body
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(path)
    return path


def write_xlsx(path: Path, sheets: dict[str, list[list]], author: str = "") -> Path:
    """sheets: name → rows. A string starting with "=" is a formula; "=A2*B2|42" gives it the cached value 42 that
    Excel stores beside it (openpyxl writes formulas without one)."""
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    book.properties.creator = author
    cached: dict[str, str] = {}
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            values = []
            for value in row:
                if isinstance(value, str) and value.startswith("=") and "|" in value:
                    formula, cached[formula[1:]] = value.split("|", 1)
                    value = formula
                values.append(value)
            sheet.append(values)
    book.save(path)
    if cached:  # add <v>cached</v> after each <f>formula</f>, as Excel saves it
        def with_values(name: str, data: bytes) -> bytes:
            if not name.startswith("xl/worksheets/"):
                return data
            text = data.decode()
            for formula, value in cached.items():
                text = text.replace(f"<f>{formula}</f><v></v>", f"<f>{formula}</f><v>{value}</v>")
                text = text.replace(f"<f>{formula}</f><v />", f"<f>{formula}</f><v>{value}</v>")
            return text.encode()

        rewrite_members(path, with_values)
    return path


def rewrite_members(path: Path, change) -> Path:
    """A zip-based file (Office, OpenDocument) written again with each member's bytes as `change(name, data)`
    returns them: what a library will not write (a cached value, an encryption entry, a repeated row)."""
    with zipfile.ZipFile(path) as source:
        members = {info.filename: change(info.filename, source.read(info)) for info in source.infolist()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in members.items():
            target.writestr(name, data)
    return path


def write_xls(path: Path, sheets: dict[str, list[list]]) -> Path:
    import xlwt

    book = xlwt.Workbook()
    dates = xlwt.easyxf(num_format_str="YYYY-MM-DD")
    for name, rows in sheets.items():
        sheet = book.add_sheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if isinstance(value, dt.date):
                    sheet.write(r, c, value, dates)
                else:
                    sheet.write(r, c, value)
    book.save(str(path))
    return path


def write_odt(path: Path, blocks: list[tuple[str, str]], title: str = "", author: str = "") -> Path:
    """blocks: ("h1".."h3", text), ("p", text), ("table", "a|b;c|d")."""
    from odf import dc, meta, table, text
    from odf.opendocument import OpenDocumentText

    document = OpenDocumentText()
    if title:
        document.meta.addElement(dc.Title(text=title))
    if author:
        document.meta.addElement(meta.InitialCreator(text=author))
    for kind, content in blocks:
        if kind.startswith("h"):
            document.text.addElement(text.H(outlinelevel=int(kind[1:]), text=content))
        elif kind == "table":
            grid = table.Table(name="Table1")
            for row in content.split(";"):
                table_row = table.TableRow()
                for cell in row.split("|"):
                    table_cell = table.TableCell()
                    table_cell.addElement(text.P(text=cell))
                    table_row.addElement(table_cell)
                grid.addElement(table_row)
            document.text.addElement(grid)
        else:
            document.text.addElement(text.P(text=content))
    document.save(str(path))
    return path


def write_ods(path: Path, sheets: dict[str, list[list]]) -> Path:
    from odf import table, text
    from odf.opendocument import OpenDocumentSpreadsheet

    document = OpenDocumentSpreadsheet()
    for name, rows in sheets.items():
        grid = table.Table(name=name)
        for row in rows:
            table_row = table.TableRow()
            for value in row:
                if isinstance(value, (int, float)):
                    cell = table.TableCell(valuetype="float", value=value)
                else:
                    cell = table.TableCell(valuetype="string")
                cell.addElement(text.P(text=str(value)))
                table_row.addElement(cell)
            grid.addElement(table_row)
        document.spreadsheet.addElement(grid)
    document.save(str(path))
    return path


def write_odg(path: Path, pages: list[list[str]]) -> Path:
    """pages: the texts of each page's shapes, a labelled rectangle each (as LibreOffice Draw writes a diagram)."""
    from odf import draw, style, text
    from odf.opendocument import OpenDocumentDrawing

    document = OpenDocumentDrawing()
    layout = style.PageLayout(name="Layout")
    document.automaticstyles.addElement(layout)
    master = style.MasterPage(name="Default", pagelayoutname=layout)
    document.masterstyles.addElement(master)
    for number, shapes in enumerate(pages, start=1):
        page = draw.Page(name=f"page{number}", masterpagename=master)
        for i, label in enumerate(shapes):
            shape = draw.Rect(width="4cm", height="2cm", x=f"{1 + 5 * i}cm", y="2cm")
            shape.addElement(text.P(text=label))
            page.addElement(shape)
        document.drawing.addElement(page)
    document.save(str(path))
    return path


def write_odp(path: Path, slides: list[tuple[str, str, str]]) -> Path:
    """slides: (title, body, notes), each a page with a title frame and a text frame."""
    from odf import draw, presentation, style, text
    from odf.opendocument import OpenDocumentPresentation

    document = OpenDocumentPresentation()
    layout = style.PageLayout(name="Layout")
    document.automaticstyles.addElement(layout)
    master = style.MasterPage(name="Default", pagelayoutname=layout)
    document.masterstyles.addElement(master)
    for number, (title, body, notes) in enumerate(slides, start=1):
        page = draw.Page(name=f"page{number}", masterpagename=master)
        for role, content in (("title", title), ("outline", body)):
            frame = draw.Frame(width="20cm", height="3cm", x="1cm", y="1cm" if role == "title" else "5cm",
                               **{"class": role})
            box = draw.TextBox()
            box.addElement(text.P(text=content))
            frame.addElement(box)
            page.addElement(frame)
        if notes:
            notes_element = presentation.Notes()
            frame = draw.Frame(width="20cm", height="3cm", x="1cm", y="20cm", **{"class": "notes"})
            box = draw.TextBox()
            box.addElement(text.P(text=notes))
            frame.addElement(box)
            notes_element.addElement(frame)
            page.addElement(notes_element)
        document.presentation.addElement(page)
    document.save(str(path))
    return path


def rtf_escape(value: str) -> str:
    """Text as RTF writes it: ASCII as is, everything else as \\uN? (signed 16-bit, the ? for old readers)."""
    out = []
    for ch in value:
        if ch in "\\{}":
            out.append("\\" + ch)
        elif ord(ch) < 128:
            out.append(ch)
        else:
            for unit in ch.encode("utf-16-le").hex(" ", 2).split():
                code = int.from_bytes(bytes.fromhex(unit), "little")
                out.append(f"\\u{code - 65536 if code > 32767 else code}?")
    return "".join(out)


def write_rtf(path: Path, paragraphs: list[str], title: str = "", author: str = "") -> Path:
    info = ""
    if title or author:
        info = "{\\info" + (f"{{\\title {rtf_escape(title)}}}" if title else "") + \
               (f"{{\\author {rtf_escape(author)}}}" if author else "") + "{\\creatim\\yr2024\\mo5\\dy17}}"
    body = "".join(f"{rtf_escape(p)}\\par\n" for p in paragraphs)
    path.write_text("{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0 Times New Roman;}}" + info + "\n\\f0\\fs24 "
                    + body + "}", encoding="ascii")
    return path


def message(subject: str, body: str, sender: str = "Anna Berg <anna@example.org>",
            to: str = "Ben <ben@example.org>", date: str = "Fri, 14 Mar 2025 09:30:00 +0100", html: str = "",
            attachments: list[tuple[str, bytes]] = (), charset: str = "utf-8") -> bytes:
    """An RFC 822 message as a mail program writes it (MIME, base64 attachments)."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"], mail["Date"] = sender, to, subject, date
    mail["Message-ID"] = f"<{abs(hash((subject, body))) % 10**12}@example.org>"
    mail.set_content(body, charset=charset)
    if html:
        mail.add_alternative(html, subtype="html")
    for name, data in attachments:
        mail.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return mail.as_bytes(policy=email.policy.SMTP)


def write_mbox(path: Path, messages: list[bytes]) -> Path:
    """An mbox as Thunderbird keeps it: each message after a "From " line, ">From " escaped in bodies."""
    with open(path, "wb") as out:
        for raw in messages:
            raw = raw.replace(b"\r\n", b"\n")
            escaped = b"\n".join(b">" + line if line.lstrip(b">").startswith(b"From ") else line
                                 for line in raw.split(b"\n"))
            out.write(b"From - Fri Mar 14 09:30:00 2025\n" + escaped.rstrip(b"\n") + b"\n\n")
    return path


def write_zip(path: Path, members: dict[str, bytes], password_protected: set[str] = frozenset()) -> Path:
    """A zip; members named in `password_protected` are marked encrypted (their bytes scrambled), as a zip tool
    leaves members it encrypted with the classic ZipCrypto."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    if password_protected:  # the "encrypted" bit, in each member's local header and in the central directory
        raw = bytearray(path.read_bytes())
        for signature, flag_at, name_length_at, name_at in ((b"PK\x03\x04", 6, 26, 30), (b"PK\x01\x02", 8, 28, 46)):
            position = 0
            while (position := raw.find(signature, position)) != -1:
                length = int.from_bytes(raw[position + name_length_at:position + name_length_at + 2], "little")
                if raw[position + name_at:position + name_at + length].decode() in password_protected:
                    raw[position + flag_at] |= 0x1
                position += name_at
        path.write_bytes(bytes(raw))
    return path


def write_tar_gz(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def zip_bomb(path: Path, inflated_mb: int = 64) -> Path:
    """A small zip whose one member inflates over a thousand times (zeros compress ~1000:1)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros.txt", b"\0" * (inflated_mb * 2**20))
    return path


def local_day(year: int, month: int, day: int) -> float:
    """Epoch seconds of a local midnight."""
    return dt.datetime(year, month, day).timestamp()


def write_boiler_folder(docs: Path) -> Path:
    """A small home folder for filters: the same subject (a boiler's service) in a PDF, a note, a spreadsheet and
    two mails, in two folders ("tax", "house"), from different months."""
    from documents import write_pdf

    (docs / "tax").mkdir()
    (docs / "house").mkdir()
    write_pdf(docs / "tax" / "boiler-invoice.pdf", ["Invoice for the boiler service: 180 euros, paid in March."])
    (docs / "house" / "boiler.md").write_text("# Boiler\n\nThe boiler service is due every spring; call the "
                                              "plumber before April.\n")
    write_xlsx(docs / "house" / "costs.xlsx", {"Costs": [["Item", "Euros"], ["Boiler service", 180]]})
    write_mbox(docs / "house" / "Inbox.mbox", [
        message("Boiler service on Friday", "The plumber comes on Friday for the boiler service.",
                date="Fri, 14 Mar 2025 09:30:00 +0100"),
        message("Boiler quote", "Here is the quote for a new boiler.", sender="Carl Diaz <carl@example.org>",
                date="Mon, 02 Jun 2025 10:00:00 +0200"),
    ])
    for name, day in (("tax/boiler-invoice.pdf", (2025, 3, 20)), ("house/boiler.md", (2024, 11, 5)),
                      ("house/costs.xlsx", (2025, 7, 1))):
        stamp = local_day(*day) + 12 * 3600
        os.utime(docs / name, (stamp, stamp))
    return docs


_W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _w_paragraph(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def write_docx_with_every_part(path: Path, words: dict[str, str]) -> Path:
    """A Word document whose words sit where real files keep them and python-docx's paragraphs do not reach: a
    table nested in a cell, a content control, a text box (written twice, as Word does, for old versions), an
    imported HTML document (altChunk), a header, a footnote, a comment — and an XML comment among the body's
    children. `words`: the phrase each place holds, by place name."""
    import docx

    document = docx.Document()
    document.add_heading("Quarterly report", level=1)
    document.add_paragraph(words["body"])
    document.save(path)
    box = (f'<w:p><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
           f'<mc:Choice Requires="wps"><w:drawing><wps:txbx xmlns:wps="http://schemas.microsoft.com/office/word/'
           f'2010/wordprocessingShape"><w:txbxContent>{_w_paragraph(words["text box"])}</w:txbxContent></wps:txbx>'
           f'</w:drawing></mc:Choice><mc:Fallback><w:pict><v:textbox xmlns:v="urn:schemas-microsoft-com:vml">'
           f'<w:txbxContent>{_w_paragraph(words["text box"])}</w:txbxContent></v:textbox></w:pict></mc:Fallback>'
           f'</mc:AlternateContent></w:r></w:p>')
    inner = f"<w:tbl><w:tr><w:tc>{_w_paragraph(words['nested table'])}</w:tc></w:tr></w:tbl>"
    extra = (f"<!-- a comment a converter left -->"
             f"<w:tbl><w:tr><w:tc>{_w_paragraph('Outer cell')}</w:tc><w:tc>{inner}<w:p/></w:tc></w:tr></w:tbl>"
             f"<w:sdt><w:sdtPr><w:alias w:val='Client'/></w:sdtPr><w:sdtContent>"
             f"{_w_paragraph(words['content control'])}</w:sdtContent></w:sdt>"
             f"{box}<w:altChunk r:id='rIdAlt' xmlns:r='{_REL}'/>"
             f"<w:p><w:r><w:t>See note</w:t></w:r><w:r><w:footnoteReference w:id='2'/></w:r></w:p>")
    parts = {
        "word/afchunk.htm": f"<html><body><p>{words['altChunk']}</p></body></html>",
        "word/header1.xml": f"<w:hdr {_W_NS}>{_w_paragraph(words['header'])}</w:hdr>",
        "word/footnotes.xml": (f"<w:footnotes {_W_NS}><w:footnote w:type='separator' w:id='0'><w:p><w:r><w:separator/>"
                               f"</w:r></w:p></w:footnote><w:footnote w:id='2'>{_w_paragraph(words['footnote'])}"
                               f"</w:footnote></w:footnotes>"),
        "word/comments.xml": (f"<w:comments {_W_NS}><w:comment w:id='0' w:author='Kim'>{_w_paragraph(words['comment'])}"
                              f"</w:comment></w:comments>"),
    }
    relationships = {"rIdAlt": ("aFChunk", "afchunk.htm"), "rIdHdr": ("header", "header1.xml"),
                     "rIdFn": ("footnotes", "footnotes.xml"), "rIdCm": ("comments", "comments.xml")}
    types = {"/word/header1.xml": "header", "/word/footnotes.xml": "footnotes", "/word/comments.xml": "comments"}

    def change(name: str, data: bytes) -> bytes:
        if not name.endswith((".xml", ".rels")):
            return data
        text = data.decode()
        if name == "word/document.xml":
            return text.replace("<w:sectPr", extra + "<w:sectPr", 1).encode()
        if name == "word/_rels/document.xml.rels":
            rels = "".join(f'<Relationship Id="{rid}" Type="{_REL}/{kind}" Target="{target}"/>'
                           for rid, (kind, target) in relationships.items())
            return text.replace("</Relationships>", rels + "</Relationships>").encode()
        if name == "[Content_Types].xml":
            kinds = "".join(f'<Override PartName="{part}" ContentType="application/vnd.openxmlformats-officedocument.'
                            f'wordprocessingml.{kind}+xml"/>' for part, kind in types.items())
            return text.replace("</Types>", '<Default Extension="htm" ContentType="text/html"/>' + kinds
                                + "</Types>").encode()
        return data

    rewrite_members(path, change)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as package:
        for name, xml in parts.items():
            package.writestr(name, xml)
    return path


def password_protect(path: Path, password: str = "secret") -> Path:
    """An Office Open XML file encrypted with a password, as Office writes it (msoffcrypto-tool: an OLE file holding
    EncryptionInfo and the encrypted package), in place."""
    from msoffcrypto.format.ooxml import OOXMLFile

    with path.open("rb") as plain:
        encrypted = io.BytesIO()
        OOXMLFile(plain).encrypt(password, encrypted)
    path.write_bytes(encrypted.getvalue())
    return path


def embed_files(path: Path, files: dict[str, bytes]) -> Path:
    """A Word, Excel or PowerPoint file with `files` in its embeddings folder, as Office keeps an object inserted
    into it (python-docx writes no objects; the folder is what a reader looks in)."""
    folder = {"docx": "word", "xlsx": "xl", "pptx": "ppt"}[path.suffix.lstrip(".")]
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as package:
        for name, data in files.items():
            package.writestr(f"{folder}/embeddings/{name}", data)
    return path


def attach_to_pdf(path: Path, files: dict[str, bytes], annotated: dict[str, bytes] | None = None) -> Path:
    """A PDF with `files` attached to the document, and `annotated` attached to its first page (a paper-clip
    annotation, as a viewer's "attach file" makes)."""
    import pymupdf

    with pymupdf.open(path) as pdf:
        for name, data in files.items():
            pdf.embfile_add(name, data, filename=name)
        for number, (name, data) in enumerate((annotated or {}).items()):
            pdf[0].add_file_annot(pymupdf.Point(40, 40 + 30 * number), data, filename=name)
        pdf.save(path, incremental=True, encryption=pymupdf.PDF_ENCRYPT_KEEP)
    return path


# What Office's "Strict Open XML" save-as writes instead (ECMA-376 Part 1, Strict; as Word 2016 writes it).
STRICT_NAMES = [
    ("http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties",
     "http://purl.oclc.org/ooxml/officeDocument/relationships/extendedProperties"),
    ("http://schemas.openxmlformats.org/officeDocument/2006/extended-properties",
     "http://purl.oclc.org/ooxml/officeDocument/extendedProperties"),
    ("http://schemas.openxmlformats.org/officeDocument/2006/relationships",
     "http://purl.oclc.org/ooxml/officeDocument/relationships"),
    ("http://schemas.openxmlformats.org/wordprocessingml/2006/main", "http://purl.oclc.org/ooxml/wordprocessingml/main"),
    ("http://schemas.openxmlformats.org/spreadsheetml/2006/main", "http://purl.oclc.org/ooxml/spreadsheetml/main"),
    ("http://schemas.openxmlformats.org/presentationml/2006/main", "http://purl.oclc.org/ooxml/presentationml/main"),
    ("http://schemas.openxmlformats.org/drawingml/2006/main", "http://purl.oclc.org/ooxml/drawingml/main"),
    ("http://schemas.openxmlformats.org/officeDocument/2006/math", "http://purl.oclc.org/ooxml/officeDocument/math"),
]


def saved_as_strict(path: Path) -> Path:
    def strict(name: str, data: bytes) -> bytes:
        if name.endswith((".xml", ".rels")):
            for transitional, strict_name in STRICT_NAMES:
                data = data.replace(transitional.encode(), strict_name.encode())
        return data

    return rewrite_members(path, strict)


_OOO1 = ('xmlns:office="http://openoffice.org/2000/office" xmlns:text="http://openoffice.org/2000/text" '
         'xmlns:table="http://openoffice.org/2000/table" xmlns:meta="http://openoffice.org/2000/meta" '
         'xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.0"')


def _write_staroffice(path: Path, mimetype: str, body: str, title: str, author: str) -> Path:
    """A StarOffice / OpenOffice.org 1.x package as OpenOffice.org 1.1 wrote it (nothing on the registry writes
    them): its mimetype stored first, content.xml with the DTD it names, meta.xml, the manifest."""
    from xml.sax.saxutils import escape

    doctype = '<!DOCTYPE office:document-content PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "office.dtd">'
    content = (f'<?xml version="1.0" encoding="UTF-8"?>\n{doctype}\n<office:document-content {_OOO1} '
               f'office:class="{mimetype.rsplit(".", 1)[1]}"><office:body>{body}</office:body></office:document-content>')
    meta = (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-meta {_OOO1}><office:meta>'
            f'<dc:title>{escape(title)}</dc:title><meta:initial-creator>{escape(author)}</meta:initial-creator>'
            '<meta:creation-date>2003-05-01T10:00:00</meta:creation-date></office:meta></office:document-meta>')
    manifest = ('<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest '
                'xmlns:manifest="http://openoffice.org/2001/manifest"><manifest:file-entry '
                f'manifest:media-type="{mimetype}" manifest:full-path="/"/></manifest:manifest>')
    with zipfile.ZipFile(path, "w") as package:
        package.writestr(zipfile.ZipInfo("mimetype"), mimetype)  # stored, first
        package.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        package.writestr("meta.xml", meta, zipfile.ZIP_DEFLATED)
        package.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
    return path


def write_sxw(path: Path, blocks: list[tuple[str, str]], title: str = "", author: str = "") -> Path:
    """blocks: ("h1".."h3", text) or ("p", text), in OpenOffice.org 1.x's elements (text:h's level: text:level)."""
    from xml.sax.saxutils import escape

    body = "".join(f'<text:h text:level="{kind[1:]}">{escape(words)}</text:h>' if kind.startswith("h")
                   else f"<text:p>{escape(words)}</text:p>" for kind, words in blocks)
    return _write_staroffice(path, "application/vnd.sun.xml.writer", body, title, author)


def write_sxc(path: Path, sheets: dict[str, list[list[str]]], title: str = "") -> Path:
    from xml.sax.saxutils import escape

    body = "".join(f'<table:table table:name="{escape(name)}">' + "".join(
        "<table:table-row>" + "".join(f"<table:table-cell><text:p>{escape(str(v))}</text:p></table:table-cell>"
                                      for v in row) + "</table:table-row>" for row in rows) + "</table:table>"
        for name, rows in sheets.items())
    return _write_staroffice(path, "application/vnd.sun.xml.calc", body, title, "")
