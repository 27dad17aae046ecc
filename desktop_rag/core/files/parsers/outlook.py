"""Outlook messages (.msg): an OLE compound file holding the message's MAPI properties (MS-OXMSG), read through
olefile. The same document as an .eml gives: the subject as the title, sender, recipients and date as metadata,
header lines then the body (the plain-text body, or the HTML one as text); attached files are returned apart, as
mail.py does. (extract-msg reads these too, but under the GPL; the handful of properties needed here are simple.)"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import email.utils
import io
import struct
from email.message import EmailMessage

from desktop_rag.core.files.parsers import html
from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.mail import Attachment, attachment_name, header, message_date, message_document
from desktop_rag.core.files.parsers.packages import OLE_MAGIC
from desktop_rag.documents import ParsedDocument

# MAPI property ids (MS-OXPROPS) and types: strings are streams named __substg1.0_IIIITTTT, UTF-16 (001F) or 8-bit
# (001E); binaries 0102; fixed-size values (a date, a number) sit in the __properties_version1.0 stream.
SUBJECT, BODY, HTML_BODY, HEADERS = 0x0037, 0x1000, 0x1013, 0x007D
SENDER_NAME, SENDER_EMAIL, SENDER_SMTP, SENT_REPRESENTING_NAME = 0x0C1A, 0x0C1F, 0x5D01, 0x0042
DISPLAY_TO, DISPLAY_CC = 0x0E04, 0x0E03
SUBMIT_TIME, DELIVERY_TIME = 0x0039, 0x0E06
ATTACH_LONG_FILENAME, ATTACH_FILENAME, ATTACH_DISPLAY_NAME, ATTACH_DATA = 0x3707, 0x3704, 0x3001, 0x3701
MESSAGE_CODEPAGE = 0x3FFD
# The code page the mail arrived in, which Outlook keeps when it saved its 8-bit strings in it without the one above
# (a Big5 mail read as Latin-1 mojibake, issue 38).
INTERNET_CODEPAGE = 0x3FDE
_UNICODE, _STRING8, _BINARY, _SYSTIME, _LONG = 0x001F, 0x001E, 0x0102, 0x0040, 0x0003
_PROPERTIES = "__properties_version1.0"
_TOP_HEADER = 32  # the message's properties stream opens with 32 bytes, an attachment's with 8
_EMBEDDED_HEADER = 24  # and a message attached to it as an Outlook item, with 24
_MAX_ATTACHMENTS = 1000


def looks_like_msg(data: bytes) -> bool:
    return data.startswith(OLE_MAGIC)


def parse_msg(data: bytes, stem: str) -> ParsedDocument:
    return read_msg(data, stem)[0]


def read_msg(data: bytes, stem: str) -> tuple[ParsedDocument, list[Attachment]]:
    import olefile

    if not looks_like_msg(data):
        raise ParseError("not an Outlook message (.msg): it is no OLE compound file")
    try:
        ole = olefile.OleFileIO(io.BytesIO(data))
    except Exception as exc:  # olefile raises OSError, struct.error, IndexError… on truncated files
        raise unreadable("not a readable Outlook message", exc) from None
    with ole:
        try:
            message = _Properties(ole, "", _TOP_HEADER)
            if not ole.exists("__substg1.0_001A001F") and not ole.exists("__substg1.0_001A001E"):
                raise ParseError("not an Outlook message: it has no message class (another Office file named .msg?)")
            document = _document(message, stem)
            attachments = _attachments(ole)
        except ParseError:
            raise
        except Exception as exc:
            raise unreadable("not a readable Outlook message", exc) from None
    return document, attachments


def _document(message: _Properties, stem: str) -> ParsedDocument:
    headers = email.message_from_string(message.text(HEADERS), policy=email.policy.default)
    sender_name = message.text(SENDER_NAME) or message.text(SENT_REPRESENTING_NAME)
    sender_address = message.text(SENDER_SMTP) or message.text(SENDER_EMAIL)
    if "@" not in sender_address:  # an Exchange address (/O=ORG/OU=…): the internet headers say better
        sender_address = ""
    sender = (f"{sender_name} <{sender_address}>" if sender_name and sender_address
              else sender_name or sender_address or header(headers, "from"))
    when = message.time(SUBMIT_TIME) or message.time(DELIVERY_TIME)
    metadata = {"from": sender, "to": message.text(DISPLAY_TO) or header(headers, "to"),
                "cc": message.text(DISPLAY_CC) or header(headers, "cc"),
                "date": when.isoformat(timespec="seconds") if when else message_date(headers)}
    subject = " ".join((message.text(SUBJECT) or header(headers, "subject")).split())
    shown_date = when.strftime("%a, %d %b %Y %H:%M:%S UTC") if when else header(headers, "date")
    body = message.text(BODY).replace("\r\n", "\n").strip()
    if not body and (markup := message.binary(HTML_BODY) or message.text(HTML_BODY).encode("utf-8")):
        body = html.parse_html(markup, "").text
    return message_document("outlook", stem, subject, metadata, shown_date, body)


def _attachments(ole, prefix: str = "") -> list[Attachment]:
    """Attached files with their data, and attached Outlook items (an embedded message) as the .eml of what they
    say, their own attachments in it; the storages under `prefix` (an embedded message's)."""
    found: list[Attachment] = []
    depth = prefix.count("/")
    if depth > 8:  # Outlook items attached within each other, deeper than any person nests them
        return found
    folders = sorted({"/".join(entry[:depth + 1]) for entry in ole.listdir(streams=True, storages=True)
                      if len(entry) > depth and "/".join(entry[:depth]) + ("/" if depth else "") == prefix
                      and entry[depth].startswith("__attach_version1.0_#")})
    for number, folder in enumerate(folders, start=1):
        attachment = _Properties(ole, folder + "/", 8)
        name = (attachment.text(ATTACH_LONG_FILENAME) or attachment.text(ATTACH_FILENAME)
                or attachment.text(ATTACH_DISPLAY_NAME))
        embedded = f"{folder}/__substg1.0_{ATTACH_DATA:04X}000D"  # an object: an Outlook item kept as a storage
        if ole.exists(embedded) and len(found) < _MAX_ATTACHMENTS:
            item = _embedded_message(ole, embedded + "/")
            if item is not None:
                found.append(item)
            continue
        data = attachment.binary(ATTACH_DATA)
        if data and name:
            found.append(Attachment(attachment_name(name, f"attachment {number}"), data))
    return found


def _embedded_message(ole, prefix: str) -> Attachment | None:
    """An Outlook message attached to another, as the RFC 822 message it says (its sender, date, subject, body,
    its own attachments): read then as any attached mail."""
    if not ole.exists(prefix + _PROPERTIES):
        return None
    document = _document(_Properties(ole, prefix, _EMBEDDED_HEADER), "message")
    mail = EmailMessage()
    for label, key in (("From", "from"), ("To", "to"), ("Cc", "cc")):
        if value := document.metadata.get(key):
            mail[label] = value
    if document.metadata.get("date"):
        mail["Date"] = email.utils.format_datetime(dt.datetime.fromisoformat(document.metadata["date"]))
    mail["Subject"] = document.title
    body = document.text.split("\n\n", 1)[1] if "\n\n" in document.text else ""
    mail.set_content(body)
    for inner in _attachments(ole, prefix):
        mail.add_attachment(inner.data, maintype="application", subtype="octet-stream", filename=inner.name)
    name = (document.title or "attached message").replace("/", "_").replace("\\", "_")
    return Attachment(f"{name}.eml", mail.as_bytes(policy=email.policy.default))


class _Properties:
    """The properties of the message (prefix "") or of one of its attachments ("__attach_version1.0_#…/")."""

    def __init__(self, ole, prefix: str, header_bytes: int):
        self.ole, self.prefix = ole, prefix
        self.fixed: dict[int, tuple[int, bytes]] = {}  # property id → (type, its 8 bytes)
        stream = prefix + _PROPERTIES
        raw = ole.openstream(stream).read() if ole.exists(stream) else b""
        for offset in range(header_bytes, len(raw) - 15, 16):
            tag, _flags, value = struct.unpack_from("<II8s", raw, offset)
            self.fixed[tag >> 16] = (tag & 0xFFFF, value)
        codepage = self.number(MESSAGE_CODEPAGE) or self.number(INTERNET_CODEPAGE)
        self.codepage = f"cp{codepage}" if codepage else "cp1252"

    def _stream(self, prop: int, kind: int) -> bytes | None:
        name = f"{self.prefix}__substg1.0_{prop:04X}{kind:04X}"
        return self.ole.openstream(name).read() if self.ole.exists(name) else None

    def text(self, prop: int) -> str:
        raw = self._stream(prop, _UNICODE)
        if raw is not None:
            return raw.decode("utf-16-le", "replace").split("\x00", 1)[0]
        raw = self._stream(prop, _STRING8)
        if raw is not None:
            try:
                return raw.decode(self.codepage, "replace").split("\x00", 1)[0]
            except LookupError:
                return raw.decode("cp1252", "replace").split("\x00", 1)[0]
        return ""

    def binary(self, prop: int) -> bytes:
        return self._stream(prop, _BINARY) or b""

    def number(self, prop: int) -> int | None:
        kind, value = self.fixed.get(prop, (None, b""))
        return struct.unpack_from("<i", value)[0] if kind == _LONG else None

    def time(self, prop: int) -> dt.datetime | None:
        """A PT_SYSTIME: 100-nanosecond steps since 1601 (UTC)."""
        kind, value = self.fixed.get(prop, (None, b""))
        if kind != _SYSTIME:
            return None
        ticks = struct.unpack_from("<Q", value)[0]
        try:
            return dt.datetime(1601, 1, 1) + dt.timedelta(microseconds=ticks // 10)
        except OverflowError:
            return None
