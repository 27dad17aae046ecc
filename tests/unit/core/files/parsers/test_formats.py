"""The one table of formats (parsers/formats.py): each name a file may end with belongs to one format, and the
readers by suffix, the revisions, the run's first estimate, the embedded-file search and the mimetypes are all
made from it, so adding a format is one entry and its reader."""

from __future__ import annotations

from dataclasses import replace

from desktop_rag.core.files import embedded, parsers
from desktop_rag.core.files.parsers import formats, revisions
from desktop_rag.core.files.parsers.formats import FORMATS, Format
from desktop_rag.core.progress import run_meter


def test_each_suffix_belongs_to_one_format_and_every_derived_table_follows_the_table():
    suffixes = [s for f in FORMATS for s in f.suffixes]
    assert len(suffixes) == len(set(suffixes)) and all(s.startswith(".") and s == s.lower() for s in suffixes)
    assert set(parsers._BY_EXTENSION) == set(formats.reader_by_suffix())
    assert formats.revised() == revisions.READERS and revisions.READERS["CSV"] == (3, (".csv", ".tsv"))
    assert formats.holding_files() == embedded._PACKAGES and ".docx" in embedded._PACKAGES
    assert all(run_meter.TEXT_YIELD_PRIORS[s] == f.text_yield for f in FORMATS for s in f.suffixes)
    assert formats.by_mimetype() == parsers._ODF_TYPES
    assert all(0 < f.text_yield <= 1 and f.revision >= 1 for f in FORMATS)


def test_a_new_format_is_one_entry_and_every_table_has_it():
    def read_fables(data: bytes, stem: str):
        raise AssertionError("not read here")

    fables = Format("Fable", (".fable",), read_fables, text_yield=0.2, revision=2, holds_files=True,
                    mimetypes=(b"application/x-fable",))
    planted = (*FORMATS, fables)
    assert formats.reader_by_suffix(planted)[".fable"] is read_fables
    assert formats.text_yields(planted)[".fable"] == 0.2 and formats.revised(planted)["Fable"] == (2, (".fable",))
    assert ".fable" in formats.holding_files(planted) and formats.by_mimetype(planted)[b"application/x-fable"] == ".fable"
    assert formats.revised((*FORMATS, replace(fables, revision=1))).keys() == formats.revised().keys()
