"""Mail headers in raw 8-bit bytes (core/files/parsers/mail_headers.py), as older mail programs wrote them: read in
the charset the message declares, else Windows-1252; UTF-8 as it is, a stray byte in it replaced. And a body's
CRLF line ends made plain."""

from pathlib import Path

from desktop_rag.core.files.parsers import parse
from desktop_rag.core.files.parsers.mail import message_name


def raw_message(headers: bytes, body: bytes, charset: str = "us-ascii") -> bytes:
    return (headers + b"\nDate: Sat, 12 Jul 1997 22:11:13 +0200\nMIME-Version: 1.0\n"
            b"Content-Type: text/plain; charset=" + charset.encode() + b"\n\n" + body + b"\n")


def test_a_latin_1_sender_in_an_ascii_message_is_read_as_windows_1252():
    data = raw_message(b'From: "Ingo L\xfctkebohle" <ingo@example.de>\nSubject: Caf\xe9 tonight', b"See you there.")
    document = parse(Path("list.eml"), data)
    assert "From: Ingo L\u00fctkebohle <ingo@example.de>" in document.text and "\ufffd" not in document.text
    assert document.title == "Caf\u00e9 tonight" and message_name(data) == "1997-07-12 Caf\u00e9 tonight"


def test_a_shift_jis_subject_is_read_in_the_charset_the_message_declares():
    subject = "会議の議事録"
    data = raw_message(b"From: tanaka@example.jp\nSubject: " + subject.encode("shift_jis"),
                       "来週の会議は水曜日です。".encode("shift_jis"), charset="Shift_JIS")
    document = parse(Path("meeting.eml"), data)
    assert document.title == subject and "来週の会議は水曜日です。" in document.text
    assert message_name(data).endswith(subject)


def test_utf_8_headers_stay_as_they_are_and_a_stray_byte_in_one_is_replaced_alone():
    data = raw_message("From: Юникод <a@example.com>\nSubject: Привет".encode() + b"\xf1", b"Hello")
    document = parse(Path("mixed.eml"), data)
    assert "From: Юникод <a@example.com>" in document.text and document.title == "Привет\ufffd"


def test_a_body_sent_with_crlf_line_ends_reads_with_plain_line_ends():
    data = (b"From: a@example.com\r\nSubject: Minutes\r\nContent-Type: text/plain\r\n\r\n"
            b"Sasha\r\n\r\nThe ferry leaves at nine.\r\nBring the keys.\r\n")
    assert "\r" not in parse(Path("minutes.eml"), data).text
