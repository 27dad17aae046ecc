"""StarOffice / OpenOffice.org 1.x text and spreadsheets (parsers/staroffice.py), made as OpenOffice.org 1.1 wrote
them: read by the OpenDocument reader once their XML speaks OpenDocument, headings, title and author kept."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.core.files.parsers import file_kind, parse, sniffed_suffix
from office_documents import write_sxc, write_sxw


def test_a_staroffice_text_is_read_with_its_headings_title_and_author(tmp_path):
    path = write_sxw(tmp_path / "minutes.sxw", [("h1", "Harbour board"), ("p", "The pier's pilings need tar."),
                                                  ("h2", "Ferries"), ("p", "Two sailings a day in winter.")],
                     title="Minutes of May 2003", author="Ann Berg")
    document = parse(path, path.read_bytes())
    assert "The pier's pilings need tar." in document.text and "Two sailings a day in winter." in document.text
    assert [(h.level, h.title) for h in document.headings] == [(1, "Harbour board"), (2, "Ferries")]
    assert document.title == "Minutes of May 2003" and document.metadata["author"] == "Ann Berg"
    assert document.parser == "odt"  # so in the Documents family, as an OpenDocument text is


def test_a_staroffice_spreadsheet_is_read_row_by_row_and_known_without_its_name(tmp_path):
    path = write_sxc(tmp_path / "tides.sxc", {"May": [["day", "high water"], ["1", "06:42"], ["2", "07:15"]]})
    document = parse(path, path.read_bytes())
    assert "07:15" in document.text and "May" in document.text and document.parser == "ods"
    assert sniffed_suffix(path.read_bytes()) == ".sxc" and file_kind(Path("tides.sxc")) == "document"
    unnamed = tmp_path / "tides"
    unnamed.write_bytes(path.read_bytes())
    assert "07:15" in parse(unnamed, unnamed.read_bytes()).text  # by its mimetype member
