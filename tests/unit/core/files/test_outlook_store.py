"""Outlook data files (.pst) read message by message as mail (core/files/outlook_store.py), on two PST files from
Apache Tika's tests (tests/files/public: no library on the registry writes a PST)."""

import gzip
import io
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from desktop_rag.core.files import containers, outlook_store
from desktop_rag.core.files.parsers import ParseError
from office_documents import write_zip

PUBLIC = Path(__file__).resolve().parents[3] / "files" / "public"


def public_pst(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(gzip.decompress((PUBLIC / f"{name}.gz").read_bytes()))
    return path


def as_mail(stored):
    return message_from_bytes(stored.raw, policy=policy.default)


def test_each_message_is_mail_with_its_folder_sender_date_and_body_whatever_body_it_kept(tmp_path):
    pst = public_pst(tmp_path, "testPST_variousBodyTypes.pst")
    found = list(outlook_store.messages(pst))
    assert outlook_store.count(pst) == 4 and [m.number for m in found] == [0, 1, 2, 3]
    assert {m.folder for m in found} == {"Inbox/tmp"}  # below "Top of Outlook data file", not search folders
    first = as_mail(found[0])
    assert first["From"] == '"Allison, Timothy B." <tallison@mitre.org>'  # the SMTP address, not Exchange's
    assert first["Subject"] == "original email" and first["Date"] == "Wed, 30 Aug 2017 19:26:03 +0000"
    assert "This is the original email (html)" in first.get_content()
    rtf_only = as_mail(found[2])  # a message that kept its body as RTF alone
    assert "original email" in rtf_only.get_content() and "\\rtf" not in rtf_only.get_content()


def test_a_message_is_taken_by_its_number_alone(tmp_path):
    pst = public_pst(tmp_path, "testPST.pst")
    [sixth] = list(outlook_store.messages(pst, start=5, stop=6))
    assert sixth.number == 5 and as_mail(sixth)["From"] == "Couchbase <couchbase@couchbase.com>"
    assert sixth.folder == ""  # a message at the top of the file
    whole = list(outlook_store.messages(pst))
    assert whole[5].raw == sixth.raw and len(whole) == 7
    assert as_mail(whole[0])["From"] == "Jörn Kottmann <kottmann@gmail.com>"


def test_a_message_over_the_limit_keeps_its_headers_only(tmp_path):
    pst = public_pst(tmp_path, "testPST.pst")
    big = next(m for m in outlook_store.messages(pst, max_bytes=200) if m.too_large)
    assert as_mail(big)["Subject"] == "Re: Feature Generators" and as_mail(big).get_content().strip() == ""


def test_not_a_pst_is_said_in_a_sentence_without_the_library_words(tmp_path):
    fake = tmp_path / "fake.pst"
    fake.write_bytes(b"!BDN but not really " * 40)
    with pytest.raises(ParseError) as error:
        outlook_store.count(fake)
    assert str(error.value).startswith("not a readable Outlook data file") and "libpff" not in str(error.value)


def test_a_pst_inside_a_zip_is_a_mailbox_its_messages_named_by_folder_and_subject(tmp_path):
    pst = public_pst(tmp_path, "testPST_variousBodyTypes.pst")
    archive = write_zip(tmp_path / "old mail.zip", {"backup/archive.pst": pst.read_bytes()})
    found = containers.members("old mail.zip", archive.read_bytes())
    assert [m.chain for m in found] == [
        ("backup/archive.pst", "Inbox/tmp/2017-08-30 original email"),
        ("backup/archive.pst", "Inbox/tmp/2017-08-30 FW: original email"),
        ("backup/archive.pst", "Inbox/tmp/2017-08-30 FW: original email (2)"),
        ("backup/archive.pst", "Inbox/tmp/2017-08-30 FW: original email (3)")]
    assert all(m.message == containers.MAILBOX_MESSAGE and m.problem is None for m in found)
    assert found[0].document.metadata["from"] == '"Allison, Timothy B." <tallison@mitre.org>'


def test_a_pst_is_read_from_memory_as_from_disk(tmp_path):
    pst = public_pst(tmp_path, "testPST_variousBodyTypes.pst")
    assert [m.raw for m in outlook_store.messages(io.BytesIO(pst.read_bytes()))] == \
        [m.raw for m in outlook_store.messages(pst)]
