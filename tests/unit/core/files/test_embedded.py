"""Files inside documents (core/files/embedded.py): embedded in Office files, attached to PDFs; made in the test,
and one Word file from Apache Tika's tests (tests/files/public) with the object kinds Word itself writes."""

import gzip
from pathlib import Path

from desktop_rag.core.files import containers, embedded
from documents import write_docx, write_pdf
from office_documents import attach_to_pdf, embed_files, message, write_xlsx

PUBLIC = Path(__file__).resolve().parents[3] / "files" / "public"


def test_the_objects_word_writes_come_out_as_the_files_they_are():
    data = gzip.decompress((PUBLIC / "testWORD_EMFAndAttachments.docx.gz").read_bytes())
    found = embedded.embedded_files("report.docx", data)
    assert [(name, content[:4]) for name, content in found] == [
        ("TestText.txt", b"This"),  # a file dropped in: an OLE package, its own name kept
        ("oleObject2.pdf", b"%PDF"),  # an Acrobat object: the PDF inside it
        ("Microsoft_Word_Document.docx", b"PK\x03\x04")]


def test_a_document_with_files_is_itself_then_its_files(tmp_path):
    budget = write_xlsx(tmp_path / "b.xlsx", {"Costs": [["Item", "Cost"], ["Kayak rental", 80]]}).read_bytes()
    report = embed_files(write_docx(tmp_path / "report.docx", [("p", "The trip report.")]),
                         {"Microsoft_Excel_Worksheet.xlsx": budget, "image1.emf": b"\x01\0\0\0 a drawing"})
    data = report.read_bytes()
    assert embedded.may_hold_files("report.docx", data)
    found = containers.members("report.docx", data)
    assert [m.chain for m in found] == [(), ("Microsoft_Excel_Worksheet.xlsx",)]  # a drawing is no document
    assert found[0].data == data and found[1].data == budget


def test_files_attached_to_a_pdf_and_to_its_pages(tmp_path):
    pdf = attach_to_pdf(write_pdf(tmp_path / "claim.pdf", ["Insurance claim for the lost kayak."]),
                        {"receipt.eml": message("Receipt", "Paid 80 EUR for the kayak.")},
                        annotated={"photo notes.txt": b"The hull was cracked."})
    found = embedded.embedded_files("claim.pdf", pdf.read_bytes())
    assert [name for name, _ in found] == ["receipt.eml", "photo notes.txt"]
    assert found[1][1] == b"The hull was cracked."


def test_documents_without_files_are_not_containers(tmp_path):
    plain = write_docx(tmp_path / "plain.docx", [("p", "No objects here.")]).read_bytes()
    pdf = write_pdf(tmp_path / "plain.pdf", ["Nothing attached."]).read_bytes()
    assert containers.container_of("plain.docx", plain) is None and containers.container_of("plain.pdf", pdf) is None
    assert containers.container_of("plain.docx", b"PK\x03\x04 broken") is None  # its own reader says what is wrong


def test_a_chart_embedded_as_an_object_is_no_document():
    data = gzip.decompress((PUBLIC / "testMSChart-govdocs-428996.xlsx.gz").read_bytes())
    assert embedded.may_hold_files("chart.xlsx", data) and embedded.embedded_files("chart.xlsx", data) == []


def _ole1_package(name: str, content: bytes) -> bytes:
    """An RTF object as Word writes a file dropped in (MS-OLEDS 2.2.4, class "Package"): its native data names the
    file, then holds its bytes."""
    import struct

    label = name.encode() + b"\0"
    native = (struct.pack("<H", 2) + label + f"C:\\Temp\\{name}".encode() + b"\0" + struct.pack("<HH", 0, 3)
              + struct.pack("<I", 0) + struct.pack("<I", len(content)) + content)
    return (struct.pack("<II", 0x0501, 2) + struct.pack("<I", 8) + b"Package\0" + struct.pack("<II", 0, 0)
            + struct.pack("<I", len(native)) + native)


def test_objects_in_rtf_and_in_word_97_documents_come_out_as_the_files_they_are():
    """Issue 51, 1: an RTF's \\objdata and a .doc's ObjectPool were stored as a name card and a field code."""
    from desktop_rag.core.files.parsers import parse

    hexed = _ole1_package("minutes.txt", b"The slipway budget was approved.").hex()
    rtf = (rb"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\pard The minutes are attached.\par"
           rb"{\object\objemb{\*\objclass Package}{\*\objdata " + "\n".join(
               hexed[i:i + 64] for i in range(0, len(hexed), 64)).encode() + rb"}}\par}")
    assert embedded.may_hold_files("letter.rtf", rtf)
    found = containers.members("letter.rtf", rtf)
    assert [m.chain for m in found] == [(), ("minutes.txt",)] and found[1].data == b"The slipway budget was approved."

    doc = gzip.decompress((PUBLIC / "test_recursive_embedded.doc.gz").read_bytes())
    assert [name for name, _ in embedded.embedded_files("nested.doc", doc)] == ["embed1.zip"]  # a zip dropped in
    assert "EMBED" not in parse(Path("nested.doc"), doc).text  # the object's field code is not its text
