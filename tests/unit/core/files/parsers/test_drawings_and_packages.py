"""Visio drawings, XPS documents and Excel binary workbooks are read for their words; a package of a kind not read
is said so — never opened as an archive whose XML parts become documents (issue 51, 10: 31% of a library's
chunks were package markup)."""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import pytest

from desktop_rag.core.files import containers
from desktop_rag.core.files.parsers import ParseError, parse, sniffed_suffix
from desktop_rag.core.files.parsers.formats import family_of_parser

PUBLIC = Path(__file__).resolve().parents[4] / "files" / "public"
_VISIO = "http://schemas.microsoft.com/office/visio/2012/main"


def _package(parts: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr("[Content_Types].xml", "<Types xmlns='http://schemas.openxmlformats.org/package/2006/"
                                                "content-types'/>")
        for name, text in parts.items():
            package.writestr(name, text)
    return out.getvalue()


def _drawing() -> bytes:
    page = (f"<?xml version='1.0'?><PageContents xmlns='{_VISIO}'><Shapes><Shape ID='1'><Cell N='PinX' V='1'/>"
            "<Text>Router in the hall cupboard</Text></Shape><Shape ID='2'><Text>Fibre from the street</Text>"
            "</Shape></Shapes></PageContents>")
    return _package({"visio/document.xml": f"<VisioDocument xmlns='{_VISIO}'/>",
                     "visio/pages/pages.xml": f"<Pages xmlns='{_VISIO}'><Page ID='0' Name='Ground floor'/></Pages>",
                     "visio/pages/page1.xml": page})


def test_a_visio_drawing_gives_its_shapes_text_by_page_under_any_name():
    data = _drawing()
    document = parse(Path("network.vsdx"), data)
    assert document.parser == "vsdx" and document.page_starts == [0]
    assert [h.title for h in document.headings] == ["Ground floor"]
    assert "Router in the hall cupboard" in document.text and "Fibre from the street" in document.text
    assert "<" not in document.text and "PinX" not in document.text
    assert sniffed_suffix(data) == ".vsdx" and containers.container_of("network", data) is None  # not an archive


def test_an_excel_binary_workbook_nobody_here_made_reads_as_an_xlsx_does():
    data = gzip.decompress((PUBLIC / "testEXCEL_various.xlsb.gz").read_bytes())
    document = parse(Path("various.xlsb"), data)
    assert document.parser == "xlsb" and family_of_parser("xlsb") == "spreadsheet"
    assert [h.title for h in document.headings] == ["mySheet1"]
    assert "String: float; This is a string: 13.12112313" in document.text  # a shared string and a number
    assert "String: long int; This is a string: 123456789012345" in document.text
    assert document.metadata["author"] == "Allison, Timothy B."
    assert containers.container_of("various", data) is None


def test_a_package_of_a_kind_not_read_is_said_so_not_opened_as_an_archive():
    data = _package({"3D/3dmodel.model": "<model><object name='Bracket'/></model>"})
    assert containers.container_of("bracket.3mf", data) is None
    with pytest.raises(ParseError, match="not read"):
        parse(Path("bracket"), data)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as plain:
        plain.writestr("notes/heron.txt", "Herons at the estuary.")
    assert containers.container_of("photos", archive.getvalue()) == containers.ZIP  # a plain zip still is one


def test_an_opendocument_template_reads_as_its_document_and_other_opendocument_packages_are_not_archives(tmp_path):
    """A Writer template (.ott, or one saved under no extension) is read as the .odt it makes; a Base database, a
    formula, an autotext list or an extension (.odb, .odf, .bau, .oxt) is said not to be read — taken for archives,
    their XML parts were documents of markup titled `<?xml version…` (Tika's test files, issue 51)."""
    from odf.opendocument import OpenDocumentText
    from odf.text import P

    template = OpenDocumentText()
    template.mimetype = "application/vnd.oasis.opendocument.text-template"
    template.text.addElement(P(text="Dear tenant, the heron pond is drained each March."))
    template.save(str(tmp_path / "letter.ott"))
    data = (tmp_path / "letter.ott").read_bytes()
    for name in ("letter.ott", "letter"):
        assert "the heron pond is drained each March" in parse(Path(name), data).text
        assert containers.container_of(name, data) is None

    database = io.BytesIO()
    with zipfile.ZipFile(database, "w") as odb:
        odb.writestr("mimetype", "application/vnd.oasis.opendocument.base")
        odb.writestr("content.xml", "<?xml version='1.0'?><office:document-content/>")
        odb.writestr("META-INF/manifest.xml", "<?xml version='1.0'?><manifest:manifest/>")
    extension = io.BytesIO()
    with zipfile.ZipFile(extension, "w") as oxt:
        oxt.writestr("description.xml", "<?xml version='1.0'?><description/>")
        oxt.writestr("META-INF/manifest.xml", "<?xml version='1.0'?><manifest:manifest/>")
    for name, package in (("contacts.odb", database), ("toolbar.oxt", extension)):
        assert containers.container_of(name, package.getvalue()) is None
        with pytest.raises(ParseError, match="not read"):
            parse(Path(name), package.getvalue())
