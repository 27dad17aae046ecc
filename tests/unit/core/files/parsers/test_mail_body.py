"""A mail's body as a client shows it (core/files/parsers/mail_body.py, issue 51, 5): every text part of a mixed
mail, and of alternatives the HTML one only when it holds the plain one's words."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

from desktop_rag.core.files.parsers import parse


def _mail() -> EmailMessage:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "Anna <anna@example.org>", "Ben <ben@example.org>", "Harbour"
    mail["Date"] = "Mon, 1 Sep 2025 10:00:00 +0000"
    return mail


def test_a_plain_part_a_picture_and_an_xhtml_part_beside_them_are_all_read():
    """A phone's reply: "Sent from…" in plain text, the photo, the reply itself in XHTML; the XHTML was lost."""
    mail = _mail()
    mail.set_content("Sent from my phone")
    mail.make_mixed()
    picture = EmailMessage()
    picture.set_content(b"\x89PNG\r\n\x1a\n" + bytes(64), maintype="image", subtype="png", disposition="inline")
    mail.attach(picture)
    reply = EmailMessage()
    reply.set_content(b"<html xmlns='http://www.w3.org/1999/xhtml'><body><p>The ferry leaves at nine from pier "
                      b"three.</p></body></html>", maintype="application", subtype="xhtml+xml", disposition="inline")
    mail.attach(reply)
    text = parse(Path("reply.eml"), mail.as_bytes()).text
    assert "Sent from my phone" in text and "The ferry leaves at nine from pier three." in text
    assert "<p>" not in text


def test_of_two_alternatives_the_html_stands_for_the_plain_only_when_it_holds_its_words():
    same = _mail()
    same.set_content("The ferry leaves at nine.\n")
    same.add_alternative("<html><body><p>The ferry <b>leaves</b> at nine.</p></body></html>", subtype="html")
    text = parse(Path("same.eml"), same.as_bytes()).text
    assert text.count("The ferry leaves at nine.") == 1  # one of them, not both

    different = _mail()
    different.set_content("Tickets are at the kiosk by the harbour office.\n")
    different.add_alternative("<html><body><p>Please see the timetable.</p></body></html>", subtype="html")
    text = parse(Path("different.eml"), different.as_bytes()).text
    assert "Tickets are at the kiosk by the harbour office." in text and "Please see the timetable." in text

    shorter_html = _mail()
    shorter_html.set_content("The ferry leaves at nine. Bring the blue cooler and the tide table.\n")
    shorter_html.add_alternative("<html><body><p>The ferry leaves at nine.</p></body></html>", subtype="html")
    text = parse(Path("shorter.eml"), shorter_html.as_bytes()).text
    assert "Bring the blue cooler and the tide table." in text and text.count("The ferry leaves at nine.") == 1


def test_an_attached_text_file_is_not_the_body():
    mail = _mail()
    mail.set_content("Minutes attached.")
    mail.add_attachment("Item 1: the budget for the slipway.", filename="minutes.txt")
    text = parse(Path("minutes.eml"), mail.as_bytes()).text
    assert "Minutes attached." in text and "slipway" not in text  # the container reader indexes the attachment
