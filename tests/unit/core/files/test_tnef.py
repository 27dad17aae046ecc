"""Outlook's winmail.dat (core/files/tnef.py): a TNEF stream written in the test by MS-OXTNEF's layout — the
files of a mail sent in Outlook's own format, and its body as compressed RTF (MS-OXRTFCP's first example) — read
as a container's members, alone and attached to a mail."""

import struct
from email.message import EmailMessage

from desktop_rag.core.files import containers
from desktop_rag.core.files.tnef import SIGNATURE, decompressed_rtf, tnef_files

# MS-OXRTFCP 3.1.1, "Simple Compressed RTF": these bytes decompress to the RTF below.
SPEC_COMPRESSED = bytes.fromhex("2d0000002b0000004c5a4675f1c5c7a703000a00726370673132354232"
                                "0af32068656c090020627705b06c647d0a800fa0")
SPEC_RTF = b"{\\rtf1\\ansi\\ansicpg1252\\pard hello world}\r\n"


def attribute(level: int, ident: int, value: bytes) -> bytes:
    return struct.pack("<BII", level, ident, len(value)) + value + struct.pack("<H", sum(value) & 0xFFFF)


def padded(value: bytes) -> bytes:
    return value + b"\x00" * (-len(value) % 4)


def properties(*entries: tuple[int, int, bytes]) -> bytes:
    """A MAPI property block: (type, id, value) each, a number (PT_LONG) before them as Outlook writes one."""
    block = struct.pack("<I", len(entries) + 1) + struct.pack("<HHI", 0x0003, 0x0E20, 1234)
    for kind, ident, value in entries:
        block += struct.pack("<HHI", kind, ident, 1) + struct.pack("<I", len(value)) + padded(value)
    return block


def winmail(files: list[tuple[str, str, bytes]], rtf_body: bytes = b"") -> bytes:
    """files: (short name, long name, bytes), as Outlook writes an attachment: rendering, data, title, properties."""
    stream = SIGNATURE + b"\x2f\x0e"
    stream += attribute(1, 0x00089006, b"\x00\x00\x01\x00") + attribute(1, 0x00078008, b"IPM.Microsoft Mail.Note\x00")
    if rtf_body:
        stream += attribute(1, 0x00069003, properties((0x0102, 0x1009, rtf_body)))
    for short, long, data in files:
        stream += attribute(2, 0x00069002, b"\x01\x00" + b"\x00" * 12) + attribute(2, 0x0006800F, data)
        stream += attribute(2, 0x00018010, short.encode("cp1252") + b"\x00")
        stream += attribute(2, 0x00069005, properties((0x001F, 0x3707, (long + "\x00").encode("utf-16-le"))))
    return stream


def test_the_files_and_the_rtf_body_of_a_winmail_dat_are_read_out_with_their_long_names():
    report = b"%PDF-1.4 the harbour budget"
    data = winmail([("BUDGET~1.PDF", "Budget 2025 – Hafen.pdf", report), ("notes.txt", "notes.txt", b"Moorings.")],
                   rtf_body=SPEC_COMPRESSED)
    assert decompressed_rtf(SPEC_COMPRESSED) == SPEC_RTF
    assert tnef_files(data) == [("message.rtf", SPEC_RTF), ("Budget 2025 – Hafen.pdf", report),
                                ("notes.txt", b"Moorings.")]
    cut_in_the_second_file = data[:data.index(b"Moorings.") + 4]
    assert tnef_files(cut_in_the_second_file) == [("message.rtf", SPEC_RTF), ("Budget 2025 – Hafen.pdf", report)]


def test_a_mail_carrying_a_winmail_dat_has_its_files_as_members():
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "Anna <anna@example.org>", "ben@example.org", "Budget"
    mail.set_content("See the attached budget.")
    mail.add_attachment(winmail([("notes.txt", "Harbour notes.txt", b"The slipway closes in May.")]),
                        maintype="application", subtype="ms-tnef", filename="winmail.dat")
    found = {member.chain: member for member in containers.members("budget.eml", mail.as_bytes())}
    member = found[("winmail.dat", "Harbour notes.txt")]
    assert member.data == b"The slipway closes in May." and member.problem is None
    assert containers.container_of("ATT00001.dat", winmail([])) == containers.TNEF  # known by its signature
