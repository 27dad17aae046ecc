"""Word 2003 XML and Excel 2003 XML read as the documents Word and Excel open them as (issue 51, 6): their text and
structure, not their markup nor their pictures' base64; under .xml, .doc or .xls; and in the families `type:` finds."""

from __future__ import annotations

import base64
import random
from pathlib import Path

from desktop_rag.core.files.parsers import parse
from desktop_rag.core.files.parsers.formats import family_of_parser

PICTURE = base64.b64encode(random.Random(5).randbytes(30_000)).decode()

WORD_2003 = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<?mso-application progid="Word.Document"?>
<w:wordDocument xmlns:w="http://schemas.microsoft.com/office/word/2003/wordml"
 xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:v="urn:schemas-microsoft-com:vml">
<o:DocumentProperties><o:Title>Estuary survey</o:Title><o:Author>Kim Lee</o:Author>
<o:Created>2016-04-27T17:49:00Z</o:Created></o:DocumentProperties>
<w:styles><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>
<w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Herons</w:t></w:r></w:p>
<w:p><w:r><w:t>Forty-two grey </w:t></w:r><w:r><w:t>herons</w:t></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>
<w:r><w:delText>deleted words</w:delText></w:r><w:r><w:t> at low tide.</w:t></w:r></w:p>
<w:p><w:r><w:pict><w:binData w:name="wordml://01000001.png">{PICTURE}</w:binData></w:pict></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Species</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Count</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>Egret</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>7</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
</w:body></w:wordDocument>
""".encode()

EXCEL_2003 = b"""<?xml version="1.0"?>
<?mso-application progid="Excel.Sheet"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:o="urn:schemas-microsoft-com:office:office"
 xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">
 <DocumentProperties xmlns="urn:schemas-microsoft-com:office:office"><Author>Kim Lee</Author></DocumentProperties>
 <Worksheet ss:Name="Census"><Table>
  <Row><Cell><Data ss:Type="String">Species</Data></Cell><Cell><Data ss:Type="String">Count</Data></Cell>
   <Cell><Data ss:Type="String">Seen</Data></Cell></Row>
  <Row><Cell><Data ss:Type="String">Heron</Data></Cell><Cell><Data ss:Type="Number">1.1000000000000001</Data></Cell>
   <Cell><Data ss:Type="DateTime">2016-04-27T00:00:00.000</Data></Cell></Row>
  <Row><Cell><Data ss:Type="String">Egret</Data></Cell><Cell ss:Index="3"><Data ss:Type="DateTime">2016-05-01T00:00:00.000</Data></Cell></Row>
 </Table></Worksheet>
</Workbook>
"""


def test_a_word_2003_xml_file_gives_its_paragraphs_headings_and_tables_not_its_markup_or_pictures():
    for name in ("survey.xml", "survey.doc"):  # Word's own name for it, and the one people rename it to
        document = parse(Path(name), WORD_2003)
        assert document.parser == "word-xml" and document.title == "Estuary survey"
        assert "Forty-two grey herons at low tide." in document.text
        assert "Species\tCount" in document.text and "Egret\t7" in document.text
        assert [h.title for h in document.headings] == ["Herons"]
        for absent in ("<w:", "PAGE", "deleted words", PICTURE[:30]):
            assert absent not in document.text
        assert document.metadata["author"] == "Kim Lee" and document.metadata["created"] == "2016-04-27T17:49:00"
        assert len(document.text) < 200  # (read as text: 40,000 characters, nearly all base64)


def test_an_excel_2003_xml_workbook_reads_as_an_xlsx_does():
    for name in ("census.xml", "census.xls"):
        document = parse(Path(name), EXCEL_2003)
        assert document.parser == "excel-xml" and document.page_starts == [0]
        assert "Species: Heron; Count: 1.1; Seen: 2016-04-27" in document.text
        assert "Species: Egret; Seen: 2016-05-01" in document.text  # the cell after a gap in its column
        assert document.metadata == {"author": "Kim Lee"}


def test_other_xml_is_still_read_as_text_and_office_xml_in_its_families():
    assert "<note>Bring the tide table</note>" in parse(Path("n.xml"), b"<note>Bring the tide table</note>").text
    assert family_of_parser("word-xml") == family_of_parser("doc") == "word"  # (.doc was "text": type:word missed it)
    assert family_of_parser("excel-xml") == "spreadsheet" and family_of_parser("ppt") == "slides"
