"""Office files in the forms beside the plain ones — macro-enabled, templates, slide shows (made in the test), Word 6
(from Apache Tika's tests, tests/files/public) — and mail as other programs save it (made in the test)."""

import base64
import gzip
from pathlib import Path

import pytest

from desktop_rag.core.files import containers
from desktop_rag.core.files.parsers import ParseError, parse
from documents import write_docx
from office_documents import message, rewrite_members, saved_as_strict, write_pptx, write_xlsx
from smartart_documents import add_smartart_paragraph, add_smartart_slide

PUBLIC = Path(__file__).resolve().parents[4] / "files" / "public"
WORD_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
SLIDES_MAIN = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"


def saved_as(path: Path, plain_type: str, variant_type: str) -> Path:
    """The file with its main part's content type as Office writes it for the variant."""
    return rewrite_members(path, lambda name, data: data.replace(plain_type.encode(), variant_type.encode())
                           if name == "[Content_Types].xml" else data)


@pytest.mark.parametrize("suffix, variant", [
    (".docm", "application/vnd.ms-word.document.macroEnabled.main+xml"),
    (".dotx", "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml"),
    (".dotm", "application/vnd.ms-word.template.macroEnabledTemplate.main+xml"),
])
def test_macro_enabled_word_files_and_templates_are_read_as_word(tmp_path, suffix, variant):
    path = saved_as(write_docx(tmp_path / f"letter{suffix}", [("h1", "Harbour fees"), ("p", "Moorings cost more.")]),
                    WORD_MAIN, variant)
    document = parse(path, path.read_bytes())
    assert document.parser == "docx" and "Moorings cost more." in document.text


@pytest.mark.parametrize("suffix, variant", [
    (".ppsx", "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml"),
    (".pptm", "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml"),
    (".potx", "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml"),
])
def test_slide_shows_and_presentation_templates_are_read_as_presentations(tmp_path, suffix, variant):
    path = saved_as(write_pptx(tmp_path / f"deck{suffix}", [("Ferry plan", "Two boats in winter.", "")]),
                    SLIDES_MAIN, variant)
    document = parse(path, path.read_bytes())
    assert document.parser == "pptx" and "Two boats in winter." in document.text


def test_word_slides_and_sheets_saved_as_strict_open_xml_are_read(tmp_path):
    import docx

    letter = saved_as_strict(write_docx(tmp_path / "letter.docx", [("h1", "Harbour fees"), ("p", "Moorings cost more.")]))
    deck = saved_as_strict(write_pptx(tmp_path / "deck.pptx", [("Ferry plan", "Two boats in winter.", "")]))
    book = saved_as_strict(write_xlsx(tmp_path / "fees.xlsx", {"Fees": [["Berth", "Fee"], ["North quay", 120]]}))
    with pytest.raises(KeyError, match="no relationship of type"):  # strict indeed: the reader alone finds no document
        docx.Document(str(letter))
    word, slides, sheet = (parse(path, path.read_bytes()) for path in (letter, deck, book))
    assert "Moorings cost more." in word.text and [h.title for h in word.headings] == ["Harbour fees"]
    assert "Two boats in winter." in slides.text
    assert "Berth: North quay; Fee: 120" in sheet.text


def renamed_members(path: Path, rename) -> Path:
    """The package zipped again with each member's name as `rename(name)` gives it."""
    import zipfile

    with zipfile.ZipFile(path) as source:
        members = [(rename(info.filename), source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in members:
            target.writestr(name, data)
    return path


FEES = {"Fees": [["Berth", "Fee"], ["North quay", 120]]}


def test_a_workbook_whose_part_names_differ_in_case_or_use_backslashes_is_read(tmp_path):
    cased = renamed_members(write_xlsx(tmp_path / "cased.xlsx", FEES),
                            lambda name: "xl/SharedStrings.xml" if name == "xl/sharedStrings.xml" else name)
    windows = renamed_members(write_xlsx(tmp_path / "windows.xlsx", FEES), lambda name: name.replace("/", "\\"))
    letter = renamed_members(write_docx(tmp_path / "letter.docx", [("p", "Moorings cost more.")]),
                             lambda name: name.replace("word/document.xml", "word/Document.xml"))
    for book in (cased, windows):
        assert "Berth: North quay; Fee: 120" in parse(book, book.read_bytes()).text, book.name
    assert "Moorings cost more." in parse(letter, letter.read_bytes()).text


def test_a_sheet_whose_saved_size_is_the_whole_sheet_is_read_by_its_rows_only(tmp_path, monkeypatch):
    from desktop_rag.core.files.parsers import sheets

    book = rewrite_members(write_xlsx(tmp_path / "styled.xlsx", FEES), lambda name, data: data.replace(
        b'<dimension ref="A1:B2"/>', b'<dimension ref="A1:XFD1048576"/>') if name.startswith("xl/worksheets/") else data)
    rows_given: list[int] = []
    given = sheets.WorkbookText.row
    monkeypatch.setattr(sheets.WorkbookText, "row", lambda self, row: (rows_given.append(len(row)), given(self, row)))
    assert "Berth: North quay; Fee: 120" in parse(book, book.read_bytes()).text
    assert rows_given == [2, 2]  # not two rows of 16,384 cells each (XFD: Excel's last column)


PROCESS = [("Collect", [("receipts\nand invoices", [])]), ("Review", []), ("Approve", [("by the treasurer", [])])]
OUTLINE = "Collect\nreceipts\nand invoices\nReview\nApprove\nby the treasurer"


def test_smartart_boxes_are_read_in_a_deck_and_a_word_document_as_the_outline_they_draw(tmp_path):
    deck = add_smartart_slide(write_pptx(tmp_path / "club.pptx", [("Budget", "Fees rise in April.", "")]),
                              "Expense claims", PROCESS)
    letter = add_smartart_paragraph(write_docx(tmp_path / "claims.docx", [("h1", "Claims"), ("p", "How it goes.")]),
                                    "The steps:", PROCESS)
    slides, word = (parse(path, path.read_bytes()) for path in (deck, letter))
    assert OUTLINE in slides.text and slides.text.index("Expense claims") < slides.text.index("Collect")
    assert slides.text.index("Fees rise in April.") < slides.text.index("Expense claims")
    assert OUTLINE in word.text and word.text.index("The steps:") < word.text.index("Collect")


def test_a_word_6_document_says_what_it_is_and_what_to_do():
    data = gzip.decompress((PUBLIC / "testWORD6.doc.gz").read_bytes())
    with pytest.raises(ParseError, match=r"a Word 6 or Word 95 document: .* save it as .docx"):
        parse(Path("old.doc"), data)


def test_a_message_saved_with_its_mailboxs_from_line_is_read():
    raw = b"From anna@example.org Mon Sep  1 10:00:00 2025\n" + message("Ferry times", "The 9:40 ferry.")
    document = parse(Path("saved.eml"), raw)
    assert document.title == "Ferry times" and "The 9:40 ferry." in document.text


def test_an_attached_message_encoded_in_base64_is_read_as_the_mail_it_is():
    inner = message("Tide table", "High water at 06:12.")
    outer = (b"From: Port <port@example.org>\nSubject: Forwarded\nMIME-Version: 1.0\n"
             b"Content-Type: multipart/mixed; boundary=\"b\"\n\n--b\nContent-Type: text/plain\n\nSee attached.\n"
             b"--b\nContent-Type: message/rfc822\nContent-Transfer-Encoding: base64\n"
             b"Content-Disposition: attachment; filename=\"tide.eml\"\n\n"
             + base64.encodebytes(inner) + b"--b--\n")
    found = containers.members("forward.eml", outer)
    assert [m.chain for m in found] == [(), ("Tide table.eml",)]
    assert found[1].problem is None and found[1].document.title == "Tide table"
