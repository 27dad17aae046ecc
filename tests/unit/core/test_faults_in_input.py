"""Bad input at the door: a file read within its limit whatever its size says, a package that would inflate past the
cap refused (the whole runs with such files are in end2end/test_faults.py)."""

import zipfile

import pytest
from documents import write_docx

from desktop_rag.core.files.parsers import ParseError
from desktop_rag.core.files.parsers.docx import parse_docx
from desktop_rag.core.files.scan import read_bounded


def test_reads_are_bounded_by_the_limit_not_by_the_reported_size(tmp_path):
    path = tmp_path / "grows.txt"
    path.write_bytes(b"x" * 5000)
    assert read_bounded(path, 10, head_only=True) == b"x" * 10
    with pytest.raises(OSError, match="over 4999 bytes"):
        read_bounded(path, 4999)


def test_a_docx_that_would_inflate_past_the_cap_is_refused(tmp_path, monkeypatch):
    from desktop_rag.core.files.parsers import packages

    monkeypatch.setattr(packages, "MAX_INFLATED_BYTES", 2 * 2**20)  # the real cap is 512 MB: too slow to build
    path = write_docx(tmp_path / "bomb.docx", [("p", "A small document.")])
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as package:
        package.writestr("word/media/padding.bin", b"\0" * (3 * 2**20))
    assert len(path.read_bytes()) < 100_000  # small on disk, large inflated
    with pytest.raises(ParseError, match="zip bomb"):
        parse_docx(path.read_bytes(), "bomb")
