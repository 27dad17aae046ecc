"""Archives, mailboxes and messages flattened into the documents they hold (core/files/containers.py), with the
limits that keep a hostile file from taking the machine."""

from pathlib import Path

import pytest

from desktop_rag.core.files import archives, containers
from desktop_rag.core.files.parsers import ParseError
from documents import write_docx, write_pdf
from office_documents import message, write_mbox, write_tar_gz, write_xlsx, write_zip, zip_bomb


def chains(found):
    return [(m.chain, m.problem) for m in found]


def test_zip_members_with_folders_nested_archives_and_noise_left_out(tmp_path):
    inner = write_zip(tmp_path / "inner.zip", {"deep/note.md": b"# Deep\n\nA note inside an inner zip."})
    path = write_zip(tmp_path / "photos.zip", {
        "2023/receipt.txt": b"Receipt: two kayaks, 80 EUR", "inner.zip": inner.read_bytes(),
        "__MACOSX/2023/._receipt.txt": b"\0\1resource fork", "song.mp3": b"ID3\0\0", "data.bin": bytes(range(256)),
        "photo.jpg": b"\xff\xd8\xff\xe0 a picture, read by OCR when the run may"})
    found = containers.members("photos.zip", path.read_bytes())
    assert chains(found) == [(("2023/receipt.txt",), None), (("inner.zip", "deep/note.md"), None),
                             (("photo.jpg",), None)]
    assert found[0].data == b"Receipt: two kayaks, 80 EUR" and found[0].message is None


def test_tar_gz_members(tmp_path):
    path = write_tar_gz(tmp_path / "backup.tar.gz", {"./notes/a.md": b"# A\n\ntar member", "b.txt": b"second"})
    found = containers.members("backup.tar.gz", path.read_bytes())
    assert chains(found) == [(("notes/a.md",), None), (("b.txt",), None)]


def test_an_encrypted_member_is_its_own_error_the_others_are_read(tmp_path):
    path = write_zip(tmp_path / "mixed.zip", {"open.txt": b"readable words", "secret.txt": b"hidden words"},
                     password_protected={"secret.txt"})
    found = containers.members("mixed.zip", path.read_bytes())
    assert chains(found)[0] == (("open.txt",), None)
    assert chains(found)[1][1].startswith("password-protected: this archive member cannot be read")


def test_a_zip_bomb_and_a_truncated_archive_are_errors_of_the_whole_file(tmp_path):
    bomb = zip_bomb(tmp_path / "bomb.zip", inflated_mb=8)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(ParseError, match="zip bomb"):
        containers.members("bomb.zip", bomb.read_bytes())
    whole = write_zip(tmp_path / "whole.zip", {"a.txt": b"alpha " * 1000}).read_bytes()
    with pytest.raises(ParseError, match="not a readable zip archive"):
        containers.members("cut.zip", whole[: len(whole) // 2])
    tar = write_tar_gz(tmp_path / "t.tar.gz", {"a.txt": b"alpha " * 5000}).read_bytes()
    with pytest.raises(ParseError, match="not a readable tar archive"):
        containers.members("t.tar.gz", tar[: len(tar) // 2])


def test_member_count_inflated_size_and_depth_are_limited(tmp_path, monkeypatch):
    many = write_zip(tmp_path / "many.zip", {f"n{i}.txt": b"x" for i in range(30)})
    monkeypatch.setattr(archives, "MAX_MEMBERS", 20)
    with pytest.raises(ParseError, match=r"over 20 documents, more than desktop-rag reads from one file \(unpack it"):
        containers.members("many.zip", many.read_bytes())
    monkeypatch.setattr(archives, "MAX_INFLATED_BYTES", 1000)
    big = write_zip(tmp_path / "big.zip", {"a.txt": b"words " * 400})
    with pytest.raises(ParseError, match="would inflate to"):
        containers.members("big.zip", big.read_bytes())
    monkeypatch.undo()
    nested = {"core.txt": b"the bottom"}
    for level in range(archives.MAX_DEPTH + 1):
        nested = {f"level{level}.zip": write_zip(tmp_path / f"l{level}.zip", nested).read_bytes()}
    found = containers.members("top.zip", write_zip(tmp_path / "top.zip", nested).read_bytes())
    assert len(found) == 1 and "nested over 4 levels deep" in found[0].problem


def test_mbox_one_member_per_message_named_by_date_and_subject_with_attachments(tmp_path):
    pdf = write_pdf(tmp_path / "menu.pdf", ["Quince tart 6.50"]).read_bytes()
    first = message("Lunch on Friday", "From now on we book ahead.\nSee the menu.", attachments=[("menu.pdf", pdf)])
    second = message("Lunch on Friday", "Moved to Saturday.", date="Sat, 15 Mar 2025 10:00:00 +0000")
    third = message("Lunch on Friday", "Still on?", date="Sat, 15 Mar 2025 11:00:00 +0000")
    path = write_mbox(tmp_path / "Inbox", [first, second, third])
    assert b"\n>From now on" in path.read_bytes()  # escaped in the box, as mbox writers do
    found = containers.members("Inbox", path.read_bytes())
    assert [m.chain for m in found] == [("2025-03-14 Lunch on Friday",), ("2025-03-14 Lunch on Friday", "menu.pdf"),
                                        ("2025-03-15 Lunch on Friday",), ("2025-03-15 Lunch on Friday (2)",)]
    assert [m.message for m in found] == [containers.MAILBOX_MESSAGE, None, *[containers.MAILBOX_MESSAGE] * 2]
    assert b"\nFrom now on we book ahead." in found[0].data  # unescaped again
    attachment = found[1]
    assert attachment.data == pdf and attachment.title == "Lunch on Friday › menu.pdf"
    assert attachment.metadata == {"from": "Anna Berg <anna@example.org>", "to": "Ben <ben@example.org>",
                                   "date": "2025-03-14T09:30:00", "attached_to": "Lunch on Friday"}


def test_an_eml_is_its_own_message_then_its_attachments_and_an_attached_mail(tmp_path):
    forwarded = message("Original plan", "Meet at the harbour.")
    raw = message("Fwd: plan", "See below.", attachments=[("notes.txt", b"Bring rope."), ("plan.eml", forwarded)])
    found = containers.members("fwd.eml", raw)
    assert [m.chain for m in found] == [(), ("notes.txt",), ("plan.eml",)]
    assert found[0].message == found[2].message == "message" and found[1].title == "Fwd: plan › notes.txt"


def test_what_holds_documents_is_told_by_name_or_by_its_first_bytes():
    mbox_head = b"From - Fri Mar 14 09:30:00 2025\nFrom: a@b.org\nSubject: hi\nDate: x\n\nbody"
    assert containers.container_format("Inbox", mbox_head) == containers.MBOX  # Thunderbird: no extension
    assert containers.container_format("notes", b"From the start, this is prose.\nIt goes on.\n") is None
    assert containers.container_format("a.TAR.GZ") == containers.TAR
    assert containers.container_format("a.zip") == containers.ZIP
    assert containers.container_format("a.eml") == containers.MESSAGE
    assert containers.container_format("a.pdf") is None


def test_an_outlook_message_is_its_own_message_then_its_attachments(tmp_path):
    from outlook_files import write_msg

    pdf = write_pdf(tmp_path / "fees.pdf", ["Harbour fees for 2025."]).read_bytes()
    path = write_msg(tmp_path / "fees.msg", "Harbour fees", "See the attached table.",
                     attachments=[("fees.pdf", pdf), ("big.txt", b"mooring " * 1000)])
    found = containers.members("fees.msg", path.read_bytes())
    assert [(m.chain, m.message) for m in found] == [((), "outlook"), (("fees.pdf",), None), (("big.txt",), None)]
    assert found[1].data == pdf and found[1].title == "Harbour fees › fees.pdf"
    assert found[1].metadata["from"] == "Anna Berg <anna@example.org>"


def test_a_member_is_copied_out_for_the_viewer_into_a_folder_of_the_persons_own(tmp_path):
    import os
    import stat

    from desktop_rag.core.files import member_copies
    from desktop_rag.errors import BadInput

    archive = write_zip(tmp_path / "papers.zip", {"2023/receipt.txt": b"Receipt: two kayaks", "x.md": b"# X"})
    copy = member_copies.extract(str(archive), ("2023/receipt.txt",), 10**6)
    assert copy.name == "receipt.txt" and copy.read_bytes() == b"Receipt: two kayaks"
    folder = member_copies.copies_folder()
    assert copy.is_relative_to(folder) and stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    mailbox = write_mbox(tmp_path / "Inbox", [message("Ferry", "Leaves at seven.")])
    assert member_copies.extract(str(mailbox), ("2025-03-14 Ferry",), 10**6).name == "2025-03-14 Ferry.eml"
    with pytest.raises(BadInput, match="is no longer in"):
        member_copies.extract(str(archive), ("gone.txt",), 10**6)


def test_a_message_is_known_by_its_headers_whatever_its_name():
    maildir = (b"Return-Path: <anna@example.org>\nDelivered-To: ben@example.org\nFrom: Anna <anna@example.org>\n"
               b"To: ben@example.org\nSubject: Ferry times\nDate: Mon, 1 Sep 2025 10:00:00 +0000\n\nThe 9:40 ferry.\n")
    assert containers.container_format("1756720800.M1P2.host:2,S", maildir) == containers.MESSAGE  # Maildir's cur/
    assert containers.container_format("saved.msg", maildir) == containers.MESSAGE  # a mail saved as .msg
    assert containers.container_format("item.eml", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(8)) == containers.OUTLOOK
    assert containers.container_format("notes", b"Subject: the plan\nDate: Monday\n\nWe meet at ten.\n") is None
    assert containers.container_format("todo", b"Buy rope.\nFrom: the shop\n") is None


def test_a_mailbox_entry_without_the_usual_headers_is_still_its_message(tmp_path):
    box = b"From - Mon Sep  1 10:00:00 2025\nX-Note: kept by a script\n\nThe boiler was serviced today.\n\n"
    found = containers.members("Inbox.mbox", box)
    assert [m.problem for m in found] == [None] and "boiler was serviced" in found[0].document.text


def imploded(path):
    """A zip whose members say they were packed by PKWARE Implode (method 6), as 1980s-90s zip tools packed them."""
    raw = bytearray(path.read_bytes())
    for signature, method_at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = raw.find(signature)
        while at != -1:
            raw[at + method_at:at + method_at + 2] = (6).to_bytes(2, "little")
            at = raw.find(signature, at + 4)
    path.write_bytes(bytes(raw))
    return path


def test_an_archive_packed_by_an_old_method_is_one_sentence_not_one_per_member(tmp_path):
    old = imploded(write_zip(tmp_path / "old.zip", {f"doc{i}.txt": b"x" * 10 for i in range(5)}))
    with pytest.raises(ParseError, match=r"old zip tool's compression method that desktop-rag cannot unpack.*7-Zip"):
        containers.members("old.zip", old.read_bytes())


def test_a_small_tgz_of_many_identical_members_is_a_bomb_whatever_each_member_is(tmp_path):
    members = {f"logs/part{i}.txt": b"A" * 320_000 for i in range(72)}  # 23 MB from a few KB
    bomb = write_tar_gz(tmp_path / "bomb.tgz", members)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(ParseError, match=r"inflate over .* times its size: a decompression bomb"):
        containers.members("bomb.tgz", bomb.read_bytes())
    nested = write_zip(tmp_path / "outer.zip", {"inner.tgz": bomb.read_bytes()})  # the zip itself is small too
    assert "decompression bomb" in containers.members("outer.zip", nested.read_bytes())[0].problem


def test_a_member_named_in_utf8_without_the_flag_keeps_its_name(tmp_path):
    real = "Überweisung.txt".encode()
    placeholder = b"X" * (len(real) - 4) + b".txt"  # an ASCII name as long: zipfile writes it unflagged
    path = write_zip(tmp_path / "mac.zip", {placeholder.decode(): b"Steuer 2024"})
    path.write_bytes(path.read_bytes().replace(placeholder, real))  # as old macOS and Linux tools write names
    assert chains(containers.members("mac.zip", path.read_bytes())) == [(("Überweisung.txt",), None)]


def test_an_outlook_item_attached_to_an_outlook_message_is_a_mail_inside_it(tmp_path):
    from outlook_files import write_msg

    path = write_msg(tmp_path / "fwd.msg", "Fwd: mooring", "See the attached mail.",
                     attached_items=[("Mooring contract", "The berth costs 900 EUR a season.", "Port Office")])
    found = containers.members("fwd.msg", path.read_bytes())
    assert [m.chain for m in found] == [(), ("Mooring contract.eml",)]
    assert found[1].message == containers.MESSAGE and "The berth costs 900 EUR a season." in found[1].document.text
    assert "Port Office" in found[1].document.metadata["from"]


def test_files_saved_without_their_extension_are_known_by_what_they_hold(tmp_path):
    from outlook_files import write_msg

    from desktop_rag.core.files.parsers import parse, sniffed_suffix

    pdf = write_pdf(tmp_path / "a.pdf", ["Mooring invoice for the summer season."]).read_bytes()
    docx = write_docx(tmp_path / "a.docx", [("p", "Minutes of the rowing club.")]).read_bytes()
    xlsx = write_xlsx(tmp_path / "a.xlsx", {"Fees": [["Berth", 900]]}).read_bytes()
    msg = write_msg(tmp_path / "a.msg", "Harbour fees", "The fee rises in April.",
                    attachments=[("notes.txt", b"Pay by card.")]).read_bytes()
    archive = write_zip(tmp_path / "a.zip", {"notes.txt": b"Kept in a zip without its extension."}).read_bytes()
    assert [sniffed_suffix(d) for d in (pdf, docx, xlsx, msg, archive)] == [".pdf", ".docx", ".xlsx", ".msg", None]
    assert "Mooring invoice" in parse(Path("INVOICE"), pdf).text
    assert "Berth\t900" in parse(Path("fees"), xlsx).text
    assert [containers.container_of(name, data) for name, data in
            (("INVOICE", pdf), ("minutes", docx), ("mail", msg), ("backup", archive), ("README", b"text"))] == [
        None, None, containers.OUTLOOK, containers.ZIP, None]
    assert [m.chain for m in containers.members("backup", archive)] == [("notes.txt",)]
