"""What archives.py says of zips it cannot read whole, on two zips from Apache Tika's tests (tests/files/public):
a member in WinZip's AES encryption, and the last part of a split archive."""

import gzip
from pathlib import Path

import pytest

from desktop_rag.core.files import containers
from desktop_rag.core.files.parsers import ParseError

PUBLIC = Path(__file__).resolve().parents[3] / "files" / "public"


def public(name: str) -> bytes:
    return gzip.decompress((PUBLIC / f"{name}.gz").read_bytes())


def test_a_member_in_winzip_aes_is_password_protected_not_an_old_method():
    found = containers.members("mixed.zip", public("testZipEncrypted.zip"))
    assert [(m.chain, m.problem is None) for m in found] == [(("unencrypted.txt",), True), (("encrypted.txt",), False)]
    assert found[1].problem.startswith("password-protected")


def test_the_last_part_of_a_split_archive_says_so_once():
    with pytest.raises(ParseError, match="the last part of a split archive"):
        containers.members("documents.zip", public("test-documents-spanned.zip"))
