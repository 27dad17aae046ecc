import re
import codecs
import io
from pathlib import Path

import pytest

from desktop_rag.core.files.parsers import ParseError, is_supported, parse
from desktop_rag.documents import NAME_ONLY
from documents import fits_like_image, write_docx, write_epub, write_pdf


def parse_bytes(name: str, data: bytes):
    return parse(Path(name), data)


def test_markdown_keeps_its_own_text_and_finds_headings_outside_code_fences():
    text = "# Guide\n\nIntro.\n\n## Install\n\nRun it.\n\n```\n# not a heading\n```\n\nSetext\n------\n\nBody.\n"
    doc = parse_bytes("guide.md", text.encode())
    assert doc.text == text
    assert doc.title == "Guide"
    assert [(h.level, h.title) for h in doc.headings] == [(1, "Guide"), (2, "Install"), (2, "Setext")]
    install = doc.headings[1]
    assert doc.text[install.start_char:].startswith("## Install")


def test_markdown_heading_forms_and_very_long_lines():
    long_line = "word " * 40_000  # 200 KB on one line: the former heading patterns took minutes on it
    text = (f"## C# tips ##\n\n{long_line}\n\nSetext title\n============\n\n# {'#' * 50_000} x\n\n"
            "---\n\nRule above, not a heading.\n\n#\n\n## ###\n")
    doc = parse_bytes("tips.md", text.encode())
    assert [(h.level, h.title) for h in doc.headings] == [
        (2, "C# tips"),  # closing hashes dropped, the hash in "C#" kept
        (1, "Setext title"),
        (1, f"{'#' * 50_000} x"),
    ]
    assert doc.title == "Setext title"
    assert doc.text[doc.headings[1].start_char:].startswith("Setext title\n===")


def test_rst_headings_rank_by_first_appearance_of_their_underline():
    text = "Handbook\n========\n\nIntro.\n\nPart\n----\n\nBody.\n\nOther\n=====\n\nMore.\n"
    doc = parse_bytes("doc.rst", text.encode())
    assert [(h.level, h.title) for h in doc.headings] == [(1, "Handbook"), (2, "Part"), (1, "Other")]
    assert doc.title == "Handbook"


def test_html_gives_visible_text_only_with_heading_structure():
    html = (b"<html><head><title>Policy</title><style>p{color:red}</style><script>var x=1;</script></head>"
            b"<body><h1>Travel</h1><p>Economy class &amp; trains.</p><h2>Hotels</h2><p>Limit 180 euros.</p></body></html>")
    doc = parse_bytes("policy.html", html)
    assert doc.title == "Policy"
    assert "var x" not in doc.text and "color" not in doc.text
    assert "Economy class & trains." in doc.text
    assert [(h.level, h.title) for h in doc.headings] == [(1, "Travel"), (2, "Hotels")]
    hotels = doc.headings[1]
    assert doc.text[hotels.start_char:].startswith("Hotels")


def test_docx_paragraphs_headings_and_tables(tmp_path):
    path = write_docx(tmp_path / "a.docx", [("h1", "Onboarding"), ("p", "Ask IT for a laptop."),
                                             ("h2", "Payroll"), ("table", "Tool|Owner;Portal|HR")], title="Checklist")
    doc = parse_bytes("a.docx", path.read_bytes())
    assert doc.title == "Checklist"
    assert "Ask IT for a laptop." in doc.text and "Portal\tHR" in doc.text
    assert [(h.level, h.title) for h in doc.headings] == [(1, "Onboarding"), (2, "Payroll")]
    assert doc.text[doc.headings[1].start_char:].startswith("Payroll")


def test_pdf_pages_offsets_and_outline(tmp_path):
    path = write_pdf(tmp_path / "h.pdf", ["Handbook\nWelcome aboard.", "Tyres\nCheck pressure weekly.",
                                          "Chain\nLubricate the chain."],
                     toc=[(1, "Handbook", 1), (2, "Tyres", 2), (2, "Chain", 3)], title="Bike Handbook")
    doc = parse_bytes("h.pdf", path.read_bytes())
    assert doc.title == "Bike Handbook"
    assert doc.page_count == 3
    assert doc.text[doc.page_starts[1]:].startswith("Tyres")
    assert doc.text[doc.page_starts[2]:].startswith("Chain")
    chain = next(h for h in doc.headings if h.title == "Chain")
    assert chain.start_char == doc.page_starts[2]


def test_epub_chapters_become_pages(tmp_path):
    path = write_epub(tmp_path / "b.epub", [("Chapter One", "The lighthouse keeper."),
                                            ("Chapter Two", "A storm arrives.")], title="Sea Tales")
    doc = parse_bytes("b.epub", path.read_bytes())
    assert "lighthouse keeper" in doc.text and "storm arrives" in doc.text
    assert doc.page_count == 2
    assert doc.text.index("storm") > doc.page_starts[1]


def test_source_code_definitions_are_headings():
    code = b"import os\n\nclass Invoice:\n    def total(self):\n        return 1\n\ndef helper():\n    pass\n"
    doc = parse_bytes("inv.py", code)
    assert [(h.level, h.title) for h in doc.headings] == [(1, "class Invoice"), (2, "def total"), (1, "def helper")]


JAVA = b"""package com.example;

public class BuildDockerMojoIntegrationTest {
  private static final String IMAGE = "x";

  @Test
  public void testExecute_dockerClient()
      throws VerificationException, IOException {
    String targetImage = buildImage(IMAGE, "docker");
    if (targetImage != null) {
      return;
    }
    new Command("docker", "run").run();
  }

  public static Map<String, List<Integer>> counts(int limit) {
    return Collections.emptyMap();
  }
}
"""

CPP = b"""#include "filter.h"

namespace log4cxx {
XMLFilenameFilter::XMLFilenameFilter(const std::string& actual, const std::string& expected)
    : base_(actual), pattern_(expected)
{
}

inline ValueType ColumnLowCardinality::At(size_t n) const {
    return Wrap(n);
}
}
"""


def test_methods_of_c_family_languages_are_headings_and_calls_are_not():
    java = parse_bytes("BuildDockerMojoIntegrationTest.java", JAVA)
    assert [(h.level, h.title) for h in java.headings] == [
        (1, "class BuildDockerMojoIntegrationTest"), (2, "testExecute_dockerClient()"), (2, "counts()")]
    cpp = parse_bytes("filter.cpp", CPP)
    assert [h.title for h in cpp.headings] == [
        "namespace log4cxx", "XMLFilenameFilter::XMLFilenameFilter()", "ColumnLowCardinality::At()"]


@pytest.mark.parametrize("data, expected", [
    (codecs.BOM_UTF8 + "café".encode(), "café"),
    ("naïve résumé".encode("utf-16"), "naïve résumé"),
    ("Größe und Maße, ça va, déjà vu, Ärger über Öl".encode("cp1252"), "Größe und Maße, ça va, déjà vu, Ärger über Öl"),
    (b"line one\r\nline two\r\n", "line one\nline two\n"),
])
def test_text_encodings_are_detected(data, expected):
    assert parse_bytes("note.txt", data).text == expected


@pytest.mark.parametrize("name, data, reason", [
    ("binary.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary content"),
    ("garbage.txt", bytes(range(128, 256)) * 8, "undecodable text"),
    ("corrupt.pdf", b"%PDF-1.7\nthis is not really a pdf", "corrupt or unreadable PDF"),
    ("corrupt.docx", b"PK\x03\x04 broken zip", "not a readable DOCX"),
    ("corrupt.epub", b"not an epub at all", "EPUB"),
])
def test_bad_files_raise_a_clear_reason(name, data, reason):
    with pytest.raises(ParseError, match=reason):
        parse_bytes(name, data)


def test_encrypted_pdf_says_it_is_password_protected(tmp_path):
    path = write_pdf(tmp_path / "secret.pdf", ["Top secret plans."], user_password="hunter2")
    with pytest.raises(ParseError, match="password-protected: this PDF cannot be read without its password"):
        parse_bytes("secret.pdf", path.read_bytes())


def test_a_document_without_text_is_read_as_such_with_what_it_says_of_itself(tmp_path):
    """Not an error: the indexer knows it by its name and metadata (documents.NAME_ONLY; issue 37)."""
    path = write_pdf(tmp_path / "drawing.pdf", [""], title="Site plan")
    drawing = parse_bytes("drawing.pdf", path.read_bytes())
    assert drawing.text == "" and not drawing.scanned_pages and drawing.title == "Site plan"
    assert not parse_bytes("blank.md", b"   \n\n  ").text.strip()
    empty = parse_bytes("empty.txt", b"")
    assert (empty.text, empty.title, empty.parser) == ("", "empty", NAME_ONLY)


def test_supported_types():
    from desktop_rag.core.files.parsers import DOCUMENT, MAYBE_TEXT, NOT_READ, file_kind

    for name in ["a.PDF", "b.md", "c.docx", "d.rs", "e.html", "f.rst", "g.epub", "h.txt", "i.pptx", "j.xlsx", "k.xlsm",
                 "l.xls", "m.odt", "n.ods", "o.odp", "p.rtf", "q.doc", "r.ppt", "s.eml", "t.mbox", "u.zip", "v.tar.gz",
                 "w.tgz", "x.tar", "y.txt.gz", "z.log.bz2", "notes.xz", "mail.pst", "letter.docm", "data.csv"]:
        assert is_supported(Path(name)) and file_kind(Path(name)) == DOCUMENT, name
    for name in ["LICENSE", "Makefile", "notes.log"]:  # read as text if their bytes are text
        assert is_supported(Path(name)) and file_kind(Path(name)) == MAYBE_TEXT, name
    for name in ["a.png", "b.JPG", "c.tiff", "d.webp", "e.HEIC"]:  # images: their text comes from OCR
        assert is_supported(Path(name)) and file_kind(Path(name)) == DOCUMENT, name
    for name in ["a.mp3", "b.7z", "c.rar", "d.exe", "e.psd"]:
        assert not is_supported(Path(name)) and file_kind(Path(name)) == NOT_READ, name


def test_text_is_told_from_binary_by_the_first_bytes():
    from desktop_rag.core.files.parsers.decoding import looks_like_text

    assert looks_like_text("Permission is hereby granted — free of charge.\n".encode())
    assert looks_like_text("Ünïcödé in Latin-1".encode("latin-1"))
    assert looks_like_text("日本語のメモ".encode()[:-1])  # a character cut by the end of the sample
    assert looks_like_text("\ufeffwith a BOM".encode("utf-16"))
    assert not looks_like_text(bytes(range(256)))
    assert not looks_like_text(b"\x7fELF\x02\x01\x01\x00" + bytes(100))
    assert not looks_like_text(b"")


def test_pdf_author_and_dates_are_kept_as_metadata(tmp_path):
    import pymupdf

    document = pymupdf.open()
    document.new_page().insert_text((50, 50), "Harbour accounts for 2025.")
    document.set_metadata({"author": "Kim Park", "creationDate": "D:20250314093000+01'00'", "modDate": "D:2025"})
    document.save(tmp_path / "accounts.pdf")
    doc = parse_bytes("accounts.pdf", (tmp_path / "accounts.pdf").read_bytes())
    assert doc.metadata == {"author": "Kim Park", "created": "2025-03-14T09:30", "modified": "2025-01-01"}


def test_pdf_comments_and_text_boxes_added_in_a_viewer_are_read_and_a_small_picture_alone_is_a_scan(tmp_path):
    import pymupdf

    from documents import scanned_image
    from desktop_rag.core.files.parsers import paged

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 550, 200), "The contract runs for two years.", fontsize=10)
    page.add_text_annot((60, 300), "Ask the landlord about the garden shed")
    page.add_freetext_annot(pymupdf.Rect(60, 400, 400, 450), "Signed copy sent by post")
    picture = doc.new_page()  # no text, a pasted screenshot of a note covering a tenth of the page
    png = io.BytesIO()
    scanned_image("Meeting moved to Friday", width_pt=200, height_pt=150).save(png, format="PNG")
    picture.insert_image(pymupdf.Rect(50, 50, 250, 200), stream=png.getvalue())
    doc.save(tmp_path / "notes.pdf")
    parsed = parse_bytes("notes.pdf", (tmp_path / "notes.pdf").read_bytes())
    assert "Ask the landlord about the garden shed" in parsed.text and parsed.text.count("Signed copy sent by post") == 1
    assert parsed.scanned_pages == [2]  # read by OCR, not taken for a page without text
    assert 0.05 < 200 * 150 / (595 * 842) < paged.SCAN_IMAGE_SHARE


def test_text_in_ebcdic_from_a_mainframe_is_read_not_called_binary():
    from desktop_rag.core.files.parsers.decoding import looks_like_text

    report = ("MONTHLY LEDGER REPORT 2024-03\nACCOUNT 4711 HARBOUR FEES       1,250.00\n"
              "ACCOUNT 4712 MOORING RENTALS    3,400.00\n").encode("cp037")
    assert looks_like_text(report[:8192])
    assert "ACCOUNT 4712 MOORING RENTALS" in parse_bytes("LEDGER.TXT", report).text
    assert not looks_like_text(bytes(range(256)) * 4)  # binary stays binary


def test_text_saved_as_utf16_without_its_byte_order_mark_is_read():
    from desktop_rag.core.files.parsers.decoding import looks_like_text

    text = "This is a test document to use for unit tests.\nDoylestown, PA 18901\n"
    for encoding in ("utf-16-le", "utf-16-be"):
        assert looks_like_text(text.encode(encoding))
        assert "Doylestown, PA 18901" in parse_bytes("fake-text.txt", text.encode(encoding)).text


def test_text_and_sheets_saved_as_utf32_without_a_byte_order_mark_are_read():
    """Issue 60, 9: four UTF-32 CSVs without a BOM were refused as "binary content, not text"."""
    from desktop_rag.core.files.parsers.decoding import looks_like_text

    rows = "Date,Payee,Amount\n2025-03-01,Harbour Office,-120.00\n2025-03-02,走れメロス書店,-15.00\n"
    for encoding in ("utf-32-le", "utf-32-be"):
        data = rows.encode(encoding)
        assert looks_like_text(data)
        assert "Payee: 走れメロス書店" in parse_bytes("bank.csv", data).text
        assert "Harbour Office" in parse_bytes("notes.txt", data).text
    assert not looks_like_text(b"\x00\x00\x00\x01" * 64)  # words of a program's data are not text


def test_a_pdf_titled_by_its_accession_number_is_called_by_its_file_s_name_in_the_text_s_words(tmp_path):
    """Issue 48: EDGAR's filings carry their accession number as title; the file's name holds company and period."""
    from documents import write_pdf

    from desktop_rag.core.files.parsers import parse

    path = write_pdf(tmp_path / "bestbuy-10k-2023.pdf",
                     ["UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nBest Buy Co., Inc. is a "
                      "retailer. This annual report on Form 10-K describes fiscal 2023 at Best Buy."],
                     title="0000764478-23-000006")
    assert parse(path, path.read_bytes()).title == "Best Buy 10-K 2023"
    named = write_pdf(tmp_path / "scan0001.pdf", ["Quarterly results of ACME"], title="Travel policy 2024")
    assert parse(named, named.read_bytes()).title == "Travel policy 2024"  # a title that names its document stays


def test_failure_reasons_say_what_a_person_can_do_not_what_a_library_said():
    """Issue 51, 11: "contains NUL bytes", "not UTF-8", "not an image format Pillow reads"."""
    for name, data in (("binary.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))),
                       ("garbage.txt", bytes(range(128, 256)) * 8), ("photo.jpg", b"\xff\xd8 not a picture at all")):
        with pytest.raises(ParseError) as error:
            parse_bytes(name, data)
        assert not re.search(r"NUL|UTF-8|Pillow|bytes", str(error.value)), str(error.value)


def test_a_web_page_with_a_few_stray_nul_bytes_is_read_not_refused_as_binary():
    """Tika's test_ignore_IBM420.html (a page saved from a mail): 28 NUL bytes in 1,869 in a <meta> value."""
    page = (b"<html><head><meta content=\"MSHTML 6.00p\xc0l\x07\x00\x02\x00\x00\x00\x02\x00\x00\x80\xc2l\x07\">"
            b"</head><body><p>The container ASDF 999 sails on Monday from Santos.</p>" + b"<p>More words.</p>" * 40
            + b"</body></html>")
    assert "The container ASDF 999 sails on Monday" in parse_bytes("notice.html", page).text


@pytest.mark.parametrize("encoding, body", [
    # EBCDIC pages from a mainframe's web server: Hebrew (IBM424) and the euro's code page (IBM1140).
    ("IBM424", "The harbour fees for March are listed below, as agreed with the harbour master of the port. "
               "Approved by שלום."),
    ("IBM1140", "The harbour fees for March are listed below, as agreed with the harbour master: 1,250 € a month."),
    ("windows-1251", "Счёт за аренду причала"),
])
def test_a_web_page_is_read_in_the_encoding_it_declares(encoding, body):
    """Issue 51, 5: a page's `<meta charset>` is honoured when its bytes are not UTF-8 (an EBCDIC page declares its
    code page in EBCDIC); detection alone read the Hebrew of an IBM424 page as code page 037's letters."""
    page = (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset={encoding}">'
            f"<title>Harbour</title></head><body><p>{body}</p></body></html>")
    assert body in parse_bytes("harbour.html", page.encode(encoding)).text


def test_a_declared_encoding_gives_way_to_utf8_and_to_what_python_does_not_know():
    from desktop_rag.core.files.parsers.decoding import declared_encoding

    page = '<html><meta charset="iso-8859-1"><body>Größe: déjà vu</body></html>'
    assert "Größe: déjà vu" in parse_bytes("page.html", page.encode("utf-8")).text  # mislabelled, UTF-8 wins
    assert declared_encoding(b'<meta charset="x-mac-klingon">') is None
    assert declared_encoding(b'<meta charset="ISO-8859-1">') == "cp1252"  # as browsers read it


def test_an_xml_file_gives_its_words_in_order_not_its_markup():
    """Issue 51: read as plain text, XML files were titled `<?xml version…` and their key terms were tags."""
    feed = ('<?xml version="1.0" encoding="ISO-8859-1"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
            "<title>Harbour notices</title><entry><title>Mooring fees</title>"
            "<summary>Fees rise in <b>March</b> for the north quay, said the caf\u00e9.</summary></entry></feed>")
    document = parse_bytes("notices.xml", feed.encode("latin-1"))
    assert document.parser == "xml" and document.title == "Harbour notices"
    assert document.text == ("Harbour notices\nMooring fees\nFees rise in\nMarch\nfor the north quay, said the caf\u00e9.\n")
    assert "<" not in document.text and "xmlns" not in document.text
    broken = parse_bytes("broken.xml", b'<?xml version="1.0"?>\n<notes><note>Heron seen</notes>')
    assert broken.parser == "text" and "Heron seen" in broken.text  # not well-formed: read as it is


def test_a_file_that_begins_as_text_and_goes_on_as_binary_is_binary():
    """Issue 61: a 700 KB FITS image became 4,148 passages of garbled bytes, judged by its first 8 KB of header."""
    from desktop_rag.core.files.parsers.decoding import looks_like_text, looks_like_text_throughout

    image = fits_like_image()
    assert len(image) > 700_000 and looks_like_text(image[:8192])  # its start alone passes
    assert not looks_like_text_throughout(image)
    with pytest.raises(ParseError, match="binary content"):
        parse_bytes("m31.fits.txt", image)


@pytest.mark.parametrize("data", [
    ("Harbour log.\n" * 20_000).encode(),
    ("港の記録。潮位と風向きを毎時記す。\n" * 8_000).encode("shift_jis"),
    ("Harbour log, with a date.\n" * 8_000).encode("utf-16-le"),
    ("Harbour log.\n" * 2_000).encode() + bytes(range(256)) * 4 + ("Harbour log.\n" * 6_000).encode(),
], ids=["utf-8", "shift_jis", "utf-16 without BOM", "a stray binary block"])
def test_long_texts_read_through_stay_text(data):
    from desktop_rag.core.files.parsers.decoding import looks_like_text_throughout

    assert looks_like_text_throughout(data)
    assert "Harbour log" in parse_bytes("log.txt", data).text or "港の記録" in parse_bytes("log.txt", data).text
