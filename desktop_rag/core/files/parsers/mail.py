"""E-mail: one message (RFC 822, as .eml files and mailbox entries are) into a document whose title is the subject,
whose metadata holds From, To, Cc and Date, and whose text opens with those header lines (so "mail from Anna"
finds it by keywords too) followed by the body: every text part a mail client shows (mail_body.py), each in its
declared charset. Attachments are returned apart: the container reader indexes the documents among them as
documents of their own (core/files/containers.py)."""

from __future__ import annotations

import codecs
import email
import email.message
import email.policy
import email.utils
import re
from dataclasses import dataclass
from email.message import EmailMessage
from email.parser import BytesHeaderParser

from desktop_rag.core.files.parsers.mail_body import body_text
from desktop_rag.core.files.parsers.mail_headers import headers_in_utf8
from desktop_rag.core.files.parsers.decoding import normalize_newlines, wide_without_bom
from desktop_rag.core.files.parsers.errors import ParseError
from desktop_rag.documents import ParsedDocument


@dataclass(frozen=True)
class Attachment:
    name: str
    data: bytes


def parse_message(data: bytes, stem: str) -> ParsedDocument:
    return read_message(data, stem)[0]


def read_message(data: bytes, stem: str, headers_required: bool = True) -> tuple[ParsedDocument, list[Attachment]]:
    """`headers_required`: a file that has none of From, To, Subject, Date is no mail (a mailbox's entry is)."""
    message = _message(data, headers_required)
    metadata = {name: header(message, name) for name in ("from", "to", "cc")}
    metadata["date"] = message_date(message)
    document = message_document("email", stem, header(message, "subject"), metadata, header(message, "date"),
                                _body(message))
    return document, attachments(message)


def message_document(parser: str, stem: str, subject: str, metadata: dict[str, str], shown_date: str,
                     body: str) -> ParsedDocument:
    """A mail as a document, whatever file it came in (.eml, a mailbox, Outlook's .msg): the header lines as the
    mail shows them ("Fri, 14 Mar 2025 09:30:00 +0100": "March" and "Friday" are words a person may search for),
    then the body; the metadata keeps the date in ISO form for filters."""
    lines = [f"{label}: {value}" for label, value in (("From", metadata.get("from")), ("To", metadata.get("to")),
                                                       ("Cc", metadata.get("cc")), ("Date", shown_date),
                                                       ("Subject", subject)) if value]
    body = body.strip()
    text = "\n".join(lines) + ("\n\n" + body if body else "")
    return ParsedDocument(text=text, title=subject or stem, parser=parser,
                          metadata={k: v for k, v in metadata.items() if v})


def message_name(data: bytes) -> str:
    """How a message is named inside a mailbox: "2025-03-14 Lunch on Friday" (its date and subject). The headers
    alone are parsed: the whole message is read once, when it is read as a document."""
    head = re.split(rb"\r?\n\r?\n", data, maxsplit=1)[0]
    message = BytesHeaderParser(policy=email.policy.default).parsebytes(headers_in_utf8(head, data))
    subject = " ".join(header(message, "subject").split()) or "(no subject)"
    date = message_date(message)[:10]
    return f"{date} {subject}" if date else subject


_EMLX_LENGTH = re.compile(rb"\A\s*(\d+)\s*\n")


def _message(data: bytes, headers_required: bool = True) -> EmailMessage:
    if (emlx := _EMLX_LENGTH.match(data)) is not None:
        # Apple Mail's .emlx: the message's length in bytes on the first line, then the message, then a plist.
        data = data[emlx.end():emlx.end() + int(emlx.group(1))]
    data = _utf8(data)
    if data.startswith(b"From ") and not _FIRST_HEADER.match(data):
        # A message saved with its mailbox's "From sender date" line above its headers (one cut out of an mbox).
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    if not data.strip():
        raise ParseError("empty message")
    if headers_required and not _FIRST_HEADER.match(data.lstrip()):
        raise ParseError("not an e-mail message: it does not begin with mail headers (From, To, Subject…)")
    head, *rest = re.split(rb"(\r?\n\r?\n)", data, maxsplit=1)
    # RFC 822's obsolete form "From  : Anna" (spaces before the colon), which the parser takes for no header.
    head = headers_in_utf8(_OBSOLETE_HEADER_NAME.sub(rb"\1:", head), data)
    return email.message_from_bytes(head + b"".join(rest), policy=email.policy.default, _class=EmailMessage)


# A header line: a name of printable characters but the colon (spaces before the colon: RFC 822's obsolete form).
_FIRST_HEADER = re.compile(rb"[!-9;-~]+[ \t]*:")
_OBSOLETE_HEADER_NAME = re.compile(rb"(?m)^([!-9;-~]+)[ \t]+:")


def _utf8(data: bytes) -> bytes:
    """A message saved as UTF-16 or UTF-32 (with or without its byte-order mark), as some programs export mail, or
    UTF-8 with a byte-order mark, in UTF-8 with none."""
    if data.startswith(codecs.BOM_UTF8):  # (issue 60: a message saved with one was "not an e-mail message")
        return data[len(codecs.BOM_UTF8):]
    if data[:4] in (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE):
        return data.decode("utf-32", "replace").encode("utf-8")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", "replace").encode("utf-8")
    if (wide := wide_without_bom(data[:512])) is not None:
        return data.decode(wide, "replace").encode("utf-8")
    return data


def header(message: EmailMessage, name: str) -> str:
    """A header as text; a malformed one (bad encoded words, a broken address) is kept as written."""
    try:
        value = message.get(name)
    except Exception:  # the policy's parsing fails on some malformed headers: the header as written, then
        value = next((raw for key, raw in message.raw_items() if key.lower() == name), "")
    return " ".join(str(value or "").split())


def message_date(message: EmailMessage) -> str:
    raw = header(message, "date")
    if not raw:
        return ""
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return ""
    return when.replace(tzinfo=None).isoformat(timespec="seconds") if when else ""


def _body(message: EmailMessage) -> str:
    # Lines as every other reader gives them: a part sent with CRLF kept its \r (the line ends of the wire).
    return normalize_newlines(body_text(message, text_of_part, decoded_payload))


def decoded_payload(part: email.message.Message) -> bytes:
    """A part's content with its transfer encoding undone (base64, quoted-printable); b"" for a multipart."""
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


def text_of_part(part: email.message.MIMEPart) -> str:
    """A text part in its declared charset; an unknown or wrong one falls back to replacing what does not decode."""
    try:
        return part.get_content()
    except (LookupError, UnicodeError, AssertionError, ValueError):
        payload = decoded_payload(part)
        charset = part.get_content_charset() or "utf-8"
        try:
            return payload.decode(charset, "replace")
        except LookupError:
            return payload.decode("utf-8", "replace")


def attachment_name(name: str, fallback: str) -> str:
    """An attached file's name as a member's: no folder separators (a name is no path inside its mail)."""
    return name.replace("/", "_").replace("\\", "_").strip() or fallback


def _decoded_message(encoded: bytes, encoding: str) -> EmailMessage | None:
    import base64
    import binascii
    import quopri

    try:
        raw = base64.b64decode(encoded) if encoding == "base64" else quopri.decodestring(encoded)
    except (binascii.Error, ValueError):
        return None
    return email.message_from_bytes(raw, policy=email.policy.default, _class=EmailMessage)


def attachments(message: EmailMessage) -> list[Attachment]:
    """Attached files with a name, and attached messages (as .eml); inline pictures without a name are left out."""
    found = []
    for number, part in enumerate(message.iter_attachments(), start=1):
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload()
            inner = inner[0] if isinstance(inner, list) and inner else inner
            encoding = str(part.get("content-transfer-encoding") or "").strip().lower()
            if isinstance(inner, email.message.Message) and encoding in ("base64", "quoted-printable"):
                # Encoded, which RFC 2046 forbids and GroupWise does: the parser took the encoded text for the mail.
                inner = _decoded_message(inner.as_bytes(), encoding)
            if isinstance(inner, email.message.Message):
                name = " ".join(str(inner.get("subject") or f"message {number}").split())
                found.append(Attachment(f"{name}.eml", inner.as_bytes(policy=email.policy.default)))
            continue
        filename = part.get_filename()
        if not filename:
            continue
        data = decoded_payload(part)
        if data:
            found.append(Attachment(attachment_name(filename, f"attachment {number}"), data))
    return found
