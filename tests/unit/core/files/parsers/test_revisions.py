"""The readers' revisions (core/files/parsers/revisions.py): each names every suffix its reader reads, so that a
file of the kind is read again whatever its name ends with, and none of another reader's."""

from desktop_rag.core.files import parsers
from desktop_rag.core.files.parsers import delimited, docx, notebook, revisions, rtf, sheets, slides, web_archive

READER_OF = {"Word": docx.parse_docx, "PowerPoint": slides.parse_pptx, "Excel": sheets.parse_xlsx, "RTF": rtf.parse_rtf,
             "CSV": delimited.parse_delimited, "saved web page": web_archive.parse_web_archive,
             "Jupyter notebook": notebook.parse_notebook}


def _reads(parser, suffix: str) -> bool:
    found = parsers._BY_EXTENSION.get(suffix)
    return found is parser or found is parsers._WITH_PICTURES.get(parser)


def test_each_revised_reader_names_exactly_the_suffixes_it_reads():
    assert set(revisions.READERS) == set(READER_OF)
    for name, (_revision, suffixes) in revisions.READERS.items():
        expected = {suffix for suffix in parsers._BY_EXTENSION if _reads(READER_OF[name], suffix)}
        assert set(suffixes) == expected, name


def test_a_reader_is_outgrown_when_the_catalog_records_an_older_revision_or_none():
    current = revisions.revisions()
    assert revisions.outgrown(current) == {}
    assert set(revisions.outgrown({})) == {name for name, revision in current.items() if revision > 1}
    older = {**current, "RTF": current["RTF"] - 1}
    assert revisions.outgrown(older) == {"RTF": (".rtf",)}
