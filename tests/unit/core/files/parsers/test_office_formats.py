"""Slides, spreadsheets, OpenDocument, RTF, legacy Office and e-mail, each made in the test with the library that
writes it (or by hand from the format's specification), read by the parsers."""

import codecs
import datetime as dt
import re
from pathlib import Path

import pytest

from desktop_rag.core.files.parsers import ParseError, parse, sheets, sniffed_suffix
from documents import write_docx
from office_documents import (message, password_protect, rewrite_members, write_odg, write_odp, write_ods, write_odt,
                              write_pptx, write_rtf, write_xls, write_xlsx)


def parsed(path: Path):
    return parse(path, path.read_bytes())


def section(doc, heading: str) -> str:
    """The text of the section under `heading`, to its next heading."""
    starts = [h.start_char for h in doc.headings] + [len(doc.text)]
    i = [h.title for h in doc.headings].index(heading)
    return doc.text[starts[i]:starts[i + 1]]


def test_pptx_one_page_per_slide_titles_as_headings_and_speaker_notes(tmp_path):
    path = write_pptx(tmp_path / "review.pptx", [
        ("Quarterly review", "Revenue grew in the northern region.", "Mention the heron survey."),
        ("", "A slide without a title about the blue lagoon.", ""),
        ("Next steps", "Hire two rangers.", "")], title="Q3 review", author="Kim Park")
    doc = parsed(path)
    assert doc.title == "Q3 review" and doc.parser == "pptx" and doc.metadata["author"] == "Kim Park"
    assert doc.page_count == 3
    assert [(h.level, h.title) for h in doc.headings] == [(1, "Quarterly review"), (1, "Slide 2"), (1, "Next steps")]
    # Each slide's text begins at its page; a made-up "Slide 2" heading is not put into the text.
    assert doc.text[doc.page_starts[0]:].startswith("Quarterly review\n\nRevenue grew")
    assert doc.text[doc.page_starts[1]:].startswith("A slide without a title")
    assert doc.text[doc.page_starts[2]:].startswith("Next steps")
    assert "Notes: Mention the heron survey." in section(doc, "Quarterly review")
    assert "Slide 2" not in doc.text


def test_xlsx_sheets_as_sections_rows_with_their_labels_and_cached_values_not_formulas(tmp_path):
    path = write_xlsx(tmp_path / "budget.xlsx", {
        "Camping": [["Item", "Cost", "Qty", "Total"], ["Tents", 120, 2, "=B2*C2|240"],
                    ["Stoves", 45.5, 3, "=B3*C3|136.5"]],
        "Log": [[dt.datetime(2025, 3, 1), "kayak rental", 80]]}, author="Lee")
    doc = parsed(path)
    assert doc.parser == "xlsx" and doc.metadata["author"] == "Lee" and doc.page_count == 2
    assert [h.title for h in doc.headings] == ["Camping", "Log"]
    camping = section(doc, "Camping")
    assert "Item: Tents; Cost: 120; Qty: 2; Total: 240" in camping
    assert "Item: Stoves; Cost: 45.5; Qty: 3; Total: 136.5" in camping
    assert "B2*C2" not in doc.text and "=" not in doc.text
    assert "2025-03-01\tkayak rental\t80" in section(doc, "Log")  # no label row: values by tabs
    assert doc.text[doc.page_starts[1]:].startswith("Log")


def test_a_huge_sheet_stops_at_the_workbook_limit_and_says_what_was_left_out(tmp_path, monkeypatch):
    import openpyxl

    monkeypatch.setattr(sheets, "MAX_WORKBOOK_CHARS", 20_000)
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Readings")
    sheet.append(["Station", "Reading"])
    for row in range(20_000):
        sheet.append([f"station {row}", row * 0.5])
    book.save(tmp_path / "readings.xlsx")
    doc = parsed(tmp_path / "readings.xlsx")
    assert 20_000 <= len(doc.text) < 25_000
    assert "Station: station 0; Reading: 0" in doc.text and "station 19999" not in doc.text
    assert doc.text.rstrip().endswith("is not indexed: it is over 20,000 characters of text.]")
    assert "of Readings" in doc.text


def test_xls_legacy_excel_is_read_with_dates(tmp_path):
    doc = parsed(write_xls(tmp_path / "fleet.xls", {"Fleet": [["Boat", "Built"], ["Osprey", dt.date(1999, 5, 1)]],
                                                    "Crew": [["Name"], ["Ingrid"]]}))
    assert doc.parser == "xls" and [h.title for h in doc.headings] == ["Fleet", "Crew"]
    assert "Boat: Osprey; Built: 1999-05-01" in doc.text and "Ingrid" in section(doc, "Crew")


def test_odt_outline_headings_paragraphs_tables_and_properties(tmp_path):
    doc = parsed(write_odt(tmp_path / "garden.odt", [
        ("h1", "Garden plan"), ("p", "Plant tomatoes in May."), ("h2", "Tools"), ("table", "Spade|shed;Hose|garage")],
        title="Allotment", author="Ola Nordmann"))
    assert doc.title == "Allotment" and doc.parser == "odt" and doc.metadata["author"] == "Ola Nordmann"
    assert [(h.level, h.title) for h in doc.headings] == [(1, "Garden plan"), (2, "Tools")]
    assert "Spade\tshed\nHose\tgarage" in section(doc, "Tools")
    assert doc.text[doc.headings[1].start_char:].startswith("Tools")


def test_ods_rows_and_odp_slides(tmp_path):
    sheet = parsed(write_ods(tmp_path / "birds.ods", {"Counts": [["Species", "Count"], ["Heron", 3], ["Kestrel", 1]],
                                                      "Empty": []}))
    # An empty sheet is a page with its name alone: a person may look for a sheet by its name.
    assert sheet.parser == "ods" and [h.title for h in sheet.headings] == ["Counts", "Empty"]
    assert sheet.page_count == 2 and sheet.text.endswith("\n\nEmpty")
    assert "Species: Heron; Count: 3" in sheet.text and "Species: Kestrel; Count: 1" in sheet.text
    slides = parsed(write_odp(tmp_path / "launch.odp", [("Launch plan", "Ship the lighthouse app", "Thank the crew"),
                                                        ("Risks", "Fog delays the ferry", "")]))
    assert slides.parser == "odp" and slides.page_count == 2 and slides.title == "Launch plan"
    assert [h.title for h in slides.headings] == ["Launch plan", "Risks"]
    assert "Notes: Thank the crew" in section(slides, "Launch plan")
    assert slides.text[slides.page_starts[1]:].startswith("Risks\n\nFog delays the ferry")


def test_an_odg_drawing_is_read_page_by_page_not_as_an_archive(tmp_path):
    drawing = parsed(write_odg(tmp_path / "floor-plan.odg", [["Boiler room", "Pump P-7"], ["Roof hatch"]]))
    assert drawing.parser == "odg" and drawing.page_count == 2
    assert drawing.text.split("\n\n")[:2] == ["Boiler room", "Pump P-7"] and "Roof hatch" in drawing.text
    assert "<?xml" not in drawing.text and "office:" not in drawing.text
    unnamed = (tmp_path / "floor-plan.odg").read_bytes()
    assert sniffed_suffix(unnamed) == ".odg"  # a drawing saved without its extension


def test_ods_repeated_empty_rows_and_cells_cost_nothing(tmp_path):
    """LibreOffice writes a sheet's empty tail as one row repeated a million times: it must not be spelled out."""
    path = write_ods(tmp_path / "tail.ods", {"Data": [["Name", "Value"], ["alpha", 1]]})
    rewrite_members(path, lambda name, data: data.replace(
        b"</table:table>", b'<table:table-row table:number-rows-repeated="1048570"><table:table-cell '
        b'table:number-columns-repeated="16384"/></table:table-row></table:table>') if name == "content.xml" else data)
    doc = parsed(path)
    assert doc.text.endswith("Name: alpha; Value: 1") and len(doc.text) < 100


def test_rtf_text_unicode_and_info(tmp_path):
    doc = parsed(write_rtf(tmp_path / "minutes.rtf", ["Minutes of the rowing club.", "Café budget: 300 €.",
                                                      "会議は金曜日です。"], title="Minutes", author="Åsa"))
    assert doc.parser == "rtf" and doc.title == "Minutes" and doc.metadata == {"author": "Åsa", "created": "2024-05-17"}
    assert doc.text.split("\n") == ["Minutes of the rowing club.", "Café budget: 300 €.", "会議は金曜日です。"]


def test_a_damaged_legacy_file_is_said_so_and_one_in_disguise_is_read_as_what_it_is(tmp_path):
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(1024)
    with pytest.raises(ParseError, match=r"not a readable Word 97–2003 document: it is damaged"):
        parse(Path("old.doc"), ole)
    with pytest.raises(ParseError, match=r"not a readable PowerPoint 97–2003 presentation: it is damaged"):
        parse(Path("old.ppt"), ole)
    rtf = write_rtf(tmp_path / "x.rtf", ["Saved by Word as RTF under a .doc name."]).read_bytes()
    assert "Saved by Word as RTF" in parse(Path("letter.doc"), rtf).text
    docx = write_docx(tmp_path / "x.docx", [("p", "A new Word file saved with the old name.")]).read_bytes()
    assert "saved with the old name" in parse(Path("renamed.doc"), docx).text


@pytest.mark.parametrize("name, make, expected", [
    ("locked.pptx", lambda p: password_protect(write_pptx(p, [("T", "B", "")])).read_bytes(), "password-protected"),
    ("locked.xlsx", lambda p: password_protect(write_xlsx(p, {"S": [["a"]]})).read_bytes(), "password-protected"),
    ("locked.docx", lambda p: password_protect(write_docx(p, [("p", "x")])).read_bytes(), "password-protected"),
    ("ole.pptx", lambda p: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(2048), "an older Office file, or another"),
    ("cut.pptx", lambda p: write_pptx(p, [("Title", "Body", "")]).read_bytes()[:3000], "not a readable PowerPoint"),
    ("cut.xlsx", lambda p: write_xlsx(p, {"S": [["a", "b"]]}).read_bytes()[:2000], "not a readable Excel"),
    ("cut.odt", lambda p: write_odt(p, [("p", "x")]).read_bytes()[:1500], "not a readable OpenDocument"),
    ("cut.ods", lambda p: write_ods(p, {"S": [["a"]]}).read_bytes()[:1500], "not a readable OpenDocument"),
    ("cut.xls", lambda p: write_xls(p, {"S": [["a"]]}).read_bytes()[:1000], "not a readable Excel 97–2003"),
    ("cut.rtf", lambda p: b"not rtf at all", "not an RTF document"),
    ("cut.docx", lambda p: write_docx(p, [("p", "x")]).read_bytes()[:4000], "not a readable DOCX"),
])
def test_encrypted_and_truncated_office_files_get_a_clear_error(tmp_path, name, make, expected):
    data = make(tmp_path / ("full" + Path(name).suffix))
    with pytest.raises(ParseError, match=expected):
        parse(Path(name), data)


def test_an_encrypted_opendocument_file_says_so(tmp_path):
    path = write_odt(tmp_path / "secret.odt", [("p", "classified")])
    rewrite_members(path, lambda name, data: data.replace(
        b"</manifest:manifest>", b"<manifest:file-entry><manifest:encryption-data/></manifest:file-entry>"
                                 b"</manifest:manifest>") if name == "META-INF/manifest.xml" else data)
    with pytest.raises(ParseError, match="password-protected"):
        parsed(path)


def test_eml_subject_title_sender_and_date_metadata_and_body(tmp_path):
    raw = message("Lunch on Friday", "Shall we try the quince tart place?\n", to="Ben <ben@example.org>")
    doc = parse(Path("lunch.eml"), raw)
    assert doc.title == "Lunch on Friday" and doc.parser == "email"
    assert doc.metadata == {"from": "Anna Berg <anna@example.org>", "to": "Ben <ben@example.org>",
                            "date": "2025-03-14T09:30:00"}
    assert doc.text.startswith("From: Anna Berg <anna@example.org>\nTo: Ben <ben@example.org>\n"
                               "Date: Fri, 14 Mar 2025 09:30:00 +0100\nSubject: Lunch on Friday\n\n")
    assert doc.text.endswith("Shall we try the quince tart place?")


def test_eml_html_body_and_legacy_japanese_charset(tmp_path):
    html_only = (b"From: shop@example.com\nSubject: Your order\nDate: Mon, 3 Feb 2025 08:00:00 +0000\n"
                 b"MIME-Version: 1.0\nContent-Type: text/html; charset=iso-8859-1\n\n"
                 b"<html><body><h1>Order</h1><p>Cr\xe8me br\xfbl\xe9e &amp; tea</p><script>x()</script>"
                 b"</body></html>\n")
    doc = parse(Path("order.eml"), html_only)
    assert "Crème brûlée & tea" in doc.text and "x()" not in doc.text and "<p>" not in doc.text
    japanese = message("会議の件", "明日の会議は十時からです。", charset="iso-2022-jp")
    assert b"\x1b$B" in japanese  # really written in ISO-2022-JP, as Japanese mail often is
    doc = parse(Path("kaigi.eml"), japanese)
    assert doc.title == "会議の件" and "明日の会議は十時からです。" in doc.text


def test_a_file_that_is_no_mail_is_refused():
    with pytest.raises(ParseError, match="not an e-mail message"):
        parse(Path("notes.eml"), b"just some words\nover two lines\n")


def test_outlook_msg_subject_sender_date_body_and_an_html_only_body(tmp_path):
    from outlook_files import write_msg

    doc = parsed(write_msg(tmp_path / "fees.msg", "Harbour fees", "The harbour fee rises in April.\nPay by card.",
                           sender_name="Port Office", sender_email="port@example.org", to="Ben Holm",
                           date=dt.datetime(2025, 3, 14, 8, 30)))
    assert doc.title == "Harbour fees" and doc.parser == "outlook"
    assert doc.metadata == {"from": "Port Office <port@example.org>", "to": "Ben Holm", "date": "2025-03-14T08:30:00"}
    assert doc.text == ("From: Port Office <port@example.org>\nTo: Ben Holm\nDate: Fri, 14 Mar 2025 08:30:00 UTC\n"
                        "Subject: Harbour fees\n\nThe harbour fee rises in April.\nPay by card.")
    html_only = parsed(write_msg(tmp_path / "news.msg", "Newsletter", "",
                                 html_body="<html><body><p>Tide tables &amp; moorings</p><style>p{}</style>"
                                           "</body></html>"))
    assert html_only.text.endswith("Subject: Newsletter\n\nTide tables & moorings")


def test_a_truncated_msg_and_an_ole_file_that_is_no_message_get_clear_errors(tmp_path):
    from outlook_files import compound_file, write_msg

    whole = write_msg(tmp_path / "a.msg", "Cut", "Body " * 2000).read_bytes()
    with pytest.raises(ParseError, match="not a readable Outlook message"):
        parse(Path("cut.msg"), whole[:3000])
    with pytest.raises(ParseError, match="no message class"):
        parse(Path("other.msg"), compound_file({"WordDocument": b"\0" * 5000}))
    with pytest.raises(ParseError, match="no OLE compound file"):
        parse(Path("text.msg"), b"MSG: this is a plain note named .msg")


def test_apple_mail_emlx_is_read_without_its_length_line_and_plist():
    raw = message("Ferry times", "The ferry leaves at seven.")
    plist = b'<?xml version="1.0"?>\n<plist><dict><key>flags</key></dict></plist>\n'
    emlx = f"{len(raw)}      \n".encode() + raw + plist
    doc = parse(Path("12345.emlx"), emlx)
    assert doc.title == "Ferry times" and doc.text.endswith("The ferry leaves at seven.") and "plist" not in doc.text


def test_thunderbird_summary_files_are_not_read():
    from desktop_rag.core.files.parsers import NOT_READ, file_kind

    assert file_kind(Path("Inbox.msf")) == NOT_READ


def test_a_mail_with_malformed_headers_is_read_as_far_as_it_goes():
    raw = (b"From: =?utf-8?q?broken <a@b\nTo: \"unclosed <x@y.org>\nSubject: =?iso-8859-1?q?Caf=E9?= menu\n"
           b"Date: not a date\n\nBody text here.\n")
    doc = parse(Path("odd.eml"), raw)
    assert doc.title == "Café menu" and "date" not in doc.metadata and doc.text.endswith("Body text here.")
    assert doc.metadata["from"].startswith("=?utf-8?q?broken")


def test_word_text_in_every_part_a_person_writes_in(tmp_path):
    from office_documents import write_docx_with_every_part

    words = {"body": "Revenue grew.", "nested table": "inner ledger cell", "content control": "client Fjordline",
             "text box": "boxed reminder", "altChunk": "imported appendix", "header": "Confidential draft",
             "footnote": "source survey 2024", "comment": "check these figures"}
    doc = parse(Path("every.docx"), write_docx_with_every_part(tmp_path / "every.docx", words).read_bytes())
    for place, phrase in words.items():
        assert doc.text.count(phrase) == 1, place  # each read once (a text box is written twice in the file)
    assert [h.title for h in doc.headings] == ["Quarterly report", "Headers and footers", "Footnotes", "Comments"]
    assert doc.text.index("Revenue grew") < doc.text.index("inner ledger cell") < doc.text.index("Confidential")


def test_rtf_words_in_headers_footnotes_and_comments_and_a_character_beyond_16_bits():
    letter = (rb"{\rtf1\ansi\ansicpg1252{\fonttbl{\f0 Arial;}}{\header\pard\plain Harbour Office, Pier 3\par}"
              rb"{\footer\pard Page 1\par}\pard Dear Ben,\par The fee rises{\footnote\pard\plain from April\par}."
              rb"{\*\atnid KP}{\*\annotation\pard check the date\par} Smile \u-10179?\u-8704? please.\par}")
    doc = parse(Path("letter.rtf"), letter)
    for phrase in ("Harbour Office, Pier 3", "Page 1", "Dear Ben", "from April", "check the date"):
        assert phrase in doc.text, phrase
    assert "Smile \U0001F600 please" in doc.text and "KP" not in doc.text
    doc.text.encode("utf-8")  # no lone surrogate left: a tokenizer takes it


def test_an_rtf_picture_whose_bin_has_no_byte_count_leaves_the_words_around_it():
    # As pandoc's test/rtf/image.rtf has it: hexadecimal after a bare \bin. Its count missing is 0 (RTF's default).
    letter = (rb"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\pard Before the chart.\par"
              rb"{\pard {\pict\jpegblip\picw250\pich250 \bin ffd8ffe000104a4649460001}\par}"
              rb"\pard After the chart.\par}")
    doc = parse(Path("chart.rtf"), letter)
    assert "Before the chart." in doc.text and "After the chart." in doc.text and "ffd8" not in doc.text


def test_an_odd_excel_97_file_prints_nothing_on_stdout(tmp_path, capsys):
    from office_documents import write_xls

    odd = write_xls(tmp_path / "odd.xls", {"Boats": [["Osprey", "moored"]]}).read_bytes() + bytes(100)
    doc = parse(Path("odd.xls"), odd)  # xlrd warns that its size is no multiple of a sector
    assert "Osprey" in doc.text and capsys.readouterr().out == ""  # `index --json` stays JSON


def test_no_library_words_reach_a_person_as_the_reason(tmp_path):
    from office_documents import write_xlsx

    cut = write_xlsx(tmp_path / "c.xlsx", {"S": [["a", "b"]]}).read_bytes()[:2000]
    for name, data in (("cut.xlsx", cut), ("cut.msg", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600))):
        with pytest.raises(ParseError) as error:
            parse(Path(name), data)
        assert not re.search(r"[A-Z][a-z]+(Error|Exception)|Bad |\(\)", str(error.value)), str(error.value)


PUBLIC = Path(__file__).resolve().parents[4] / "files" / "public"  # tests/files/public: see its README


def test_word_97_and_powerpoint_97_files_nobody_here_made_are_read():
    import gzip

    doc = parse(Path("raw_text.doc"), gzip.decompress((PUBLIC / "raw_text.doc.gz").read_bytes()))
    assert doc.parser == "doc" and doc.title.startswith("I love word documents")
    assert "That is where http://hipsum.co comes in handy" in doc.text  # the link's field instruction left out
    assert doc.metadata["author"] == "Dean Malmgren" and doc.metadata["created"] == "2014-07-07"
    ppt = parse(Path("fake.ppt"), gzip.decompress((PUBLIC / "fake-power-point.ppt.gz").read_bytes()))
    assert ppt.parser == "ppt" and ppt.page_starts == [0]  # one slide, a page
    # Its title, which the conversion writes as a plain text box, is the slide's heading, not "Slide 1".
    assert ppt.title == "Adding a Bullet Slide" and [h.title for h in ppt.headings] == ["Adding a Bullet Slide"]
    assert "Adding a Bullet Slide" in ppt.text and "Here is some text in a text box!" in ppt.text and "Use _TextFrame.text for first bullet" in ppt.text


def test_a_mail_whose_body_is_xhtml_is_read_by_its_body():
    raw = (b"From: Anna <anna@example.org>\nSubject: Minutes\nDate: Mon, 1 Sep 2025 10:00:00 +0000\n"
           b"MIME-Version: 1.0\nContent-Type: application/xhtml+xml; charset=utf-8\n\n"
           b"<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'><body><p>The board approved the "
           b"new ferry timetable.</p></body></html>\n")
    doc = parse(Path("minutes.eml"), raw)
    assert "The board approved the new ferry timetable." in doc.text and "<p>" not in doc.text


def test_an_outlook_message_in_a_non_unicode_code_page_is_read_in_it(tmp_path):
    from outlook_files import write_msg

    path = write_msg(tmp_path / "big5.msg", "會議通知", "明天上午十點開會。", internet_code_page=950)
    assert "會議通知".encode("cp950") in path.read_bytes()  # stored as Big5 bytes, not UTF-16
    doc = parsed(path)
    assert doc.title == "會議通知" and "明天上午十點開會。" in doc.text


def test_chart_titles_labels_and_comments_of_sheets_and_slides_are_read(tmp_path):
    import openpyxl
    from openpyxl.chart import BarChart, Reference
    from openpyxl.comments import Comment
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    book = openpyxl.Workbook()
    sheet = book.active
    for row in [["Month", "Visitors"], ["June", 120], ["July", 340]]:
        sheet.append(row)
    sheet["B3"].comment = Comment("Record month: the regatta week", "Kim")
    chart = BarChart()
    chart.title = "Harbour visitors by month"
    chart.add_data(Reference(sheet, min_col=2, min_row=1, max_row=3), titles_from_data=True)
    sheet.add_chart(chart, "D2")
    book.save(tmp_path / "visitors.xlsx")
    doc = parsed(tmp_path / "visitors.xlsx")
    assert "Harbour visitors by month" in doc.text and "Record month: the regatta week" in doc.text
    assert doc.headings[-1].title == "Charts, drawings and comments"

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Season review"
    data = CategoryChartData()
    data.categories = ["Kayaks", "Canoes"]
    data.add_series("Rentals 2025", (41, 17))
    frame = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4), data)
    frame.chart.has_title = True
    frame.chart.chart_title.text_frame.text = "Boats rented per type"
    deck.save(tmp_path / "review.pptx")
    doc = parsed(tmp_path / "review.pptx")
    for words in ("Boats rented per type", "Rentals 2025", "Kayaks", "Canoes"):
        assert words in doc.text, words
    assert "41" not in doc.text.split("Charts", 1)[1]  # a chart's numbers are not words


def test_a_mail_with_malformed_headers_is_read_with_what_it_says():
    broken = (b"From: =?utf-8?q?Anna=ZZ?= <anna@example.org>\nTo: <<<@>>>, \"unclosed\nSubject: Boat trailer\n"
              b"Date: 32 Foo 2025\nContent-Type: multipart/mixed\n\nThe trailer needs new tyres.\n")
    doc = parse(Path("broken.eml"), broken)
    assert doc.title == "Boat trailer" and "The trailer needs new tyres." in doc.text
    assert "anna@example.org" in doc.metadata["from"]


def test_a_workbook_linking_to_another_files_cells_is_read(tmp_path):
    path = write_xlsx(tmp_path / "fees.xlsx", {"S": [["Fee", "Amount"], ["Mooring", 900]]})
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

    def linked(name: str, data: bytes) -> bytes:  # an external link whose part the saving program left out
        if name == "xl/workbook.xml":
            return data.replace(b"</workbook>", f'<externalReferences><externalReference xmlns:r="{rel}" '
                                                f'r:id="rId99"/></externalReferences></workbook>'.encode())
        if name == "xl/_rels/workbook.xml.rels":
            return data.replace(b"</Relationships>", f'<Relationship Id="rId99" Type="{rel}/externalLink" '
                                                      f'Target="externalLinks/externalLink1.xml"/></Relationships>'
                                .encode())
        return data

    doc = parsed(rewrite_members(path, linked))
    assert "Fee: Mooring; Amount: 900" in doc.text


def test_mail_saved_as_utf16_and_in_rfc_822s_obsolete_header_form_is_read():
    raw = message("Test Email", "Roses are red, violets are blue.", sender="Matt <matt@example.org>")
    for encoded in (raw.decode().encode("utf-16-le"), raw.decode().encode("utf-16-be"), raw.decode().encode("utf-16")):
        doc = parse(Path("exported.eml"), encoded)
        assert doc.title == "Test Email" and "Roses are red" in doc.text and "matt@example.org" in doc.metadata["from"]
    doc = parse(Path("bom.eml"), codecs.BOM_UTF8 + raw)  # issue 60, 9: "not an e-mail message"
    assert doc.title == "Test Email" and "Roses are red" in doc.text
    old = b"From  : John Doe <jdoe@example.org>\nSubject     : Saying Hello\n\nThis is a message just to say hello.\n"
    doc = parse(Path("example13.eml"), old)
    assert doc.title == "Saying Hello" and "jdoe@example.org" in doc.metadata["from"]
    headerless = b"Received: from relay (verified)\n  by mail.example.org\nquite Delivered-To: x\n\nUnsubscribe here.\n"
    assert "Unsubscribe here." in parse(Path("incorrect_header.eml"), headerless).text


@pytest.mark.parametrize("name, make, words", [
    ("census.xlsx", lambda p: write_xlsx(p, {"Census": [["Herons counted at the estuary", 42]]}), "Herons counted"),
    ("census.docx", lambda p: write_docx(p, [("p", "Herons counted at the estuary in May.")]), "Herons counted"),
    ("census.pptx", lambda p: write_pptx(p, [("Census", "Herons counted at the estuary", "")]), "Herons counted"),
])
def test_a_file_encrypted_with_excels_default_key_is_read_as_office_opens_it(tmp_path, name, make, words):
    """Excel encrypts a workbook protected from changes with "VelvetSweatshop" and opens it without asking: it is
    no password a person set, and "cannot be read without its password" was untrue (issue 51, 4)."""
    data = password_protect(make(tmp_path / name), password="VelvetSweatshop").read_bytes()
    assert data.startswith(b"\xd0\xcf\x11\xe0")  # encrypted, as Office keeps it
    assert words in parse(Path(name), data).text


def test_an_excel_97_workbook_with_the_default_key_nobody_here_made_is_read():
    """Apache POI's 50833.xls: RC4-encrypted with "VelvetSweatshop", as Excel 97–2003 saves a protected workbook."""
    import gzip

    doc = parse(Path("50833.xls"), gzip.decompress((PUBLIC / "50833-velvetsweatshop.xls.gz").read_bytes()))
    assert doc.parser == "xls" and "test cell value" in doc.text


def test_comments_say_who_wrote_them_in_word_powerpoint_and_pdf(tmp_path):
    """Issue 51, 7: "Michael's comment" — the author is part of what a person remembers, and was not stored."""
    import pymupdf
    from office_documents import write_docx_with_every_part

    words = {"body": "Revenue grew.", "nested table": "a", "content control": "b", "text box": "c", "altChunk": "d",
             "header": "e", "footnote": "f", "comment": "check these figures"}
    word = parse(Path("every.docx"), write_docx_with_every_part(tmp_path / "every.docx", words).read_bytes())
    assert "Comment by Kim: check these figures" in word.text

    classic = (b"<p:cmLst xmlns:p='http://schemas.openxmlformats.org/presentationml/2006/main'><p:cm authorId='3'>"
               b"<p:text>Move the budget slide before the timeline</p:text></p:cm></p:cmLst>")
    authors = (b"<p:cmAuthorLst xmlns:p='http://schemas.openxmlformats.org/presentationml/2006/main'>"
               b"<p:cmAuthor id='3' name='Michael Reyes' initials='MR'/></p:cmAuthorLst>")
    deck = write_pptx(tmp_path / "review.pptx", [("Season review", "Boats and kayaks", "")])
    import zipfile

    with zipfile.ZipFile(deck, "a") as package:
        package.writestr("ppt/comments/comment1.xml", classic)
        package.writestr("ppt/commentAuthors.xml", authors)
    slides = parse(Path("review.pptx"), deck.read_bytes())
    assert "Comment by Michael Reyes: Move the budget slide before the timeline" in slides.text

    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 550, 200), "The lease runs for two years.", fontsize=10)
    note = page.add_text_annot((60, 300), "Ask about the garden shed")
    note.set_info(title="Michael Reyes")
    note.update()
    pdf.save(tmp_path / "lease.pdf")
    lease = parse(Path("lease.pdf"), (tmp_path / "lease.pdf").read_bytes())
    assert "Comment by Michael Reyes: Ask about the garden shed" in lease.text


def test_text_boxes_and_chart_labels_of_an_excel_97_workbook_are_read():
    """Issue 51, 3: a 97–2003 workbook of text boxes gave "Sheet1 Sheet2 Sheet3"; its charts' labels were lost."""
    import gzip

    shapes = parse(Path("shapes.xls"), gzip.decompress((PUBLIC / "testEXCEL_textbox.xls.gz").read_bytes()))
    assert "this is some autoshape text" in shapes.text
    charts = parse(Path("charts.xls"), gzip.decompress((PUBLIC / "testEXCEL-charts.xls.gz").read_bytes()))
    for label in ("WhamPuff", "YottaPuff", "eksaxis", "whyaxis"):  # title, series, the axes' titles
        assert label in charts.text.split("Charts, drawings and comments", 1)[1], label
