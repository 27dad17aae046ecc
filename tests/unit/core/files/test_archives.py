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


@pytest.mark.parametrize("module, suffix", [("gzip", ".gz"), ("bz2", ".bz2"), ("lzma", ".xz")])
def test_a_file_compressed_alone_is_the_file_inside_named_without_its_suffix(module, suffix):
    import importlib

    packed = importlib.import_module(module).compress(b"Harbour notes, compressed alone.")
    found = containers.members(f"notes.txt{suffix}", packed)
    assert [(m.chain, m.data) for m in found] == [(("notes.txt",), b"Harbour notes, compressed alone.")]


def test_a_compressed_bomb_stops_at_the_limit_not_in_memory():
    import gzip

    with pytest.raises(ParseError, match="decompression bomb"):
        containers.members("zeros.txt.gz", gzip.compress(bytes(300 * 2**20)))
