"""Files inside documents, found as documents of their own (issue 38), with the real reader, embedding model, Chroma
and bm25s: a workbook embedded in a Word report, a mail attached to a PDF, a note on a PDF's page; the document
itself still found at its own path; a hit opens the file taken out of it; an object removed goes with it."""

from email import message_from_bytes

from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.documents import MEMBER_SEPARATOR
from documents import write_docx, write_pdf
from office_documents import attach_to_pdf, embed_files, message, write_xlsx

S = MEMBER_SEPARATOR


def found_at(library, query: str) -> list[str]:
    return list(dict.fromkeys(hit.path for hit in library.search(query, k=5, mode="bm25").hits))


def test_files_inside_documents_are_found_and_opened_and_go_when_removed(library, docs, tmp_path):
    budget = write_xlsx(tmp_path / "b.xlsx", {"Costs": [["Item", "Cost"], ["Sea kayak rental", 80]]}).read_bytes()
    report = embed_files(write_docx(docs / "report.docx", [("p", "The expedition report of the Lofoten trip.")]),
                         {"Microsoft_Excel_Worksheet.xlsx": budget})
    claim = attach_to_pdf(write_pdf(docs / "claim.pdf", ["Insurance claim for the damaged canoe."]),
                          {"receipt.eml": message("Receipt", "Paid 120 EUR to the boatyard in Svolvaer.",
                                                  sender="Boatyard <yard@example.org>")},
                          annotated={"hull notes.txt": b"The hull was cracked near the stern."})
    summary = library.index([docs], contexts="rules")
    assert summary.failed == []
    assert found_at(library, '"Lofoten trip"') == [str(report)]  # the document itself, at its own path
    assert found_at(library, '"Sea kayak rental"') == [f"{report}{S}Microsoft_Excel_Worksheet.xlsx"]
    assert found_at(library, '"Insurance claim"') == [str(claim)]
    assert found_at(library, "Svolvaer boatyard")[0] == f"{claim}{S}receipt.eml"
    hit = library.search("Svolvaer", k=1, mode="bm25").hits[0]
    assert hit.metadata["from"] == "Boatyard <yard@example.org>"
    assert found_at(library, '"cracked near the stern"') == [f"{claim}{S}hull notes.txt"]
    opened = library.openable_path(f"{claim}{S}receipt.eml")
    assert message_from_bytes(opened.read_bytes())["Subject"] == "Receipt"

    write_docx(report, [("p", "The expedition report of the Lofoten trip, the budget taken out.")])
    library.apply_changes(ChangeBatch(dirty={str(report)}))
    assert found_at(library, '"Sea kayak rental"') == []
    assert found_at(library, '"budget taken out"') == [str(report)]
