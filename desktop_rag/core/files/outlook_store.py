"""Outlook's data files (.pst: personal folders and the archives Outlook keeps; .ost: its offline copy of an Exchange
mailbox) read message by message through libpff (pypff, LGPL-3.0), never whole: a PST of a few years is gigabytes.

Each message is given to the rest of desktop-rag as the RFC 822 mail it was (sender, recipients, date, subject, its
body, its attached files), so it is read, named and opened exactly as a message of a mailbox is (mail.py,
containers.py); its folder ("Inbox/Projects") comes with it. Messages are numbered in the order the file lists
them, and that number is its place: a hit opens its message by walking to it, reading no other.

Left out, said in docs/formats.md: a calendar item, contact or task is read only for what it shares with mail
(subject, body); an Outlook item attached to a message inside a PST (libpff gives its raw properties only).
"""

from __future__ import annotations

import datetime as dt
import email.errors
import email.policy
import logging
import email.utils
import struct
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any, BinaryIO
from collections.abc import Iterator

from desktop_rag.core.files.parsers import outlook
from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.mail import attachment_name

# The message store's property naming its folder of mail (the "Top of Outlook data file" in the person's language);
# the others beside it are search folders and views, which hold no mail of their own.
_IPM_SUBTREE_ENTRYID = 0x35E0
_ATTACH_METHOD, _BY_VALUE = 0x3705, 1  # (5: an Outlook item attached, not read: see above)
_MESSAGE_CODEPAGE = outlook.MESSAGE_CODEPAGE
_MAX_ATTACHMENTS = 1000
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoredMessage:
    number: int  # its place among the file's messages, from 0
    folder: str  # "Inbox/Projects"
    raw: bytes  # the message as RFC 822 mail; when too large, its headers alone
    too_large: bool = False


def count(source: str | Path | BinaryIO) -> int:
    """How many messages the file holds (folders' counts, no message read): for a run's progress."""
    store = _open(source)
    try:
        return sum(folder.number_of_sub_messages for folder, _path in _folders(store))
    except OSError as exc:
        raise unreadable("not a readable Outlook data file", exc) from None
    finally:
        store.close()


def messages(source: str | Path | BinaryIO, max_bytes: int = 512 * 2**20, start: int = 0,
             stop: int | None = None) -> Iterator[StoredMessage]:
    """The messages numbered `start` up to `stop` (all by default), each as mail. A message over `max_bytes` gives
    its headers alone, with too_large; one libpff cannot read is passed over (its number with it)."""
    store = _open(source)
    try:
        number = 0
        for folder, path in _folders(store):
            held = folder.number_of_sub_messages
            if number + held <= start:
                number += held
                continue
            for index in range(held):
                if stop is not None and number >= stop:
                    return
                if number >= start:
                    message = _message(folder, index, number, path, max_bytes)
                    if message is not None:
                        yield message
                number += 1
    except OSError as exc:
        raise unreadable("not a readable Outlook data file", exc) from None
    finally:
        store.close()


def _open(source: str | Path | BinaryIO):
    try:
        import pypff
    except ImportError:  # (a dependency: only a broken install lacks it)
        raise ParseError("Outlook data files need the package libpff-python: reinstall desktop-rag") from None
    store = pypff.file()
    try:
        if isinstance(source, (str, Path)):
            store.open(str(source))
        else:
            store.open_file_object(source)
    except OSError as exc:
        raise unreadable("not a readable Outlook data file (.pst, .ost)", exc) from None
    return store


def _folders(store) -> Iterator[tuple[Any, str]]:  # (a pypff folder, its path): pypff has no types
    """Every folder of mail with its path below the top ("Inbox/Projects"), depth first as Outlook shows them."""
    top = _top_folder(store)
    pending = [(top, "")]
    while pending:
        folder, path = pending.pop()
        yield folder, path
        children = [folder.get_sub_folder(i) for i in range(folder.number_of_sub_folders)]
        pending.extend((child, f"{path}/{child.name or 'folder'}".lstrip("/")) for child in reversed(children))


def _top_folder(store):
    root = store.get_root_folder()
    wanted = _entry_id_node(_property(store.get_message_store(), _IPM_SUBTREE_ENTRYID, raw=True))
    for index in range(root.number_of_sub_folders):
        child = root.get_sub_folder(index)
        if child.identifier == wanted:
            return child
    return root  # (an OST or a file without it: every folder, named from the root)


def _entry_id_node(entry_id: bytes | None) -> int | None:
    """The node a short-term entry id points to: its last four bytes (flags 4, provider 16, node 4)."""
    return struct.unpack("<I", entry_id[20:24])[0] if entry_id and len(entry_id) >= 24 else None


def _message(folder, index: int, number: int, path: str, max_bytes: int) -> StoredMessage | None:
    try:
        return _as_mail(folder.get_sub_message(index), number, path, max_bytes)
    except OSError as exc:  # a damaged item (or one of a kind libpff does not list as a message)
        log.info("Outlook item %s in %r not read: %s", number, path, exc)
        return None


def _as_mail(item, number: int, path: str, max_bytes: int) -> StoredMessage:
    mail = EmailMessage(policy=email.policy.default)
    codepage = f"cp{_property(item, _MESSAGE_CODEPAGE) or 1252}"
    _headers(mail, item)
    body, size = _body(item, codepage)
    if size > max_bytes:
        return StoredMessage(number, path, bytes(mail), too_large=True)
    mail.set_content(body)
    for name, data in _attachments(item):
        size += len(data)
        if size > max_bytes:
            return StoredMessage(number, path, bytes(mail), too_large=True)
        mail.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return StoredMessage(number, path, mail.as_bytes())


def _headers(mail: EmailMessage, item) -> None:
    sender_name = _text(item.sender_name) or _property(item, outlook.SENT_REPRESENTING_NAME) or ""
    address = _property(item, outlook.SENDER_SMTP) or _property(item, outlook.SENDER_EMAIL) or ""
    address = address if "@" in address else ""  # an Exchange address (/O=ORG/OU=…) means nothing to a person
    values = {
        "From": email.utils.formataddr((sender_name, address)) if address else sender_name,
        "To": _property(item, outlook.DISPLAY_TO), "Cc": _property(item, outlook.DISPLAY_CC),
        "Subject": _text(item.subject),
        "Date": _date(item.client_submit_time or item.delivery_time),
    }
    for name, value in values.items():
        if value:
            try:
                mail[name] = " ".join(value.split())  # a line break in a header would end it
            except (ValueError, TypeError, email.errors.MessageError):  # a value no header can hold: left out
                log.info("a header of an Outlook message left out: %s: %r", name, value)


def _body(item, codepage: str) -> tuple[str, int]:
    """The plain-text body, else the HTML one as text, else the RTF one as text; and its size in bytes."""
    from desktop_rag.core.files.parsers import html, rtf

    for read, as_text in ((item.get_plain_text_body, lambda data: _decoded(data, codepage)),
                          (item.get_html_body, lambda data: html.parse_html(data, "").text),
                          (item.get_rtf_body, lambda data: rtf.parse_rtf(data, "").text)):
        try:
            data = read()
            if data:
                return as_text(data), len(data)
        except (OSError, ParseError):
            continue
    return "", 0


def _attachments(item) -> Iterator[tuple[str, bytes]]:
    """Files attached by value with their names (an Outlook item attached, or a link, has no bytes here)."""
    for index in range(min(item.number_of_attachments, _MAX_ATTACHMENTS)):
        try:
            attachment = item.get_attachment(index)
            if (_property(attachment, _ATTACH_METHOD) or _BY_VALUE) != _BY_VALUE or not attachment.size:
                continue
            name = (_property(attachment, outlook.ATTACH_LONG_FILENAME)
                    or _property(attachment, outlook.ATTACH_FILENAME)
                    or _property(attachment, outlook.ATTACH_DISPLAY_NAME) or f"attachment {index + 1}")
            yield attachment_name(name, f"attachment {index + 1}"), attachment.read_buffer(attachment.size)
        except OSError:
            continue


def _property(item, tag: int, raw: bool = False):
    """A property of the item's first record set: text, a number, or (raw) its bytes; None when absent."""
    try:
        if item.number_of_record_sets == 0:
            return None
        for entry in item.get_record_set(0).entries:
            if entry.entry_type != tag:
                continue
            if raw:
                return entry.data
            if entry.value_type in (0x001F, 0x001E):
                return _text(entry.get_data_as_string())
            return entry.get_data_as_integer()
    except (OSError, ValueError):
        return None
    return None


def _text(value) -> str:
    """A string property without the control characters Outlook puts before a subject's prefix ("\x01\x05FW: …")."""
    return "".join(ch for ch in str(value or "") if ch >= " " or ch in "\t\n").strip()


def _decoded(data: bytes, codepage: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return data.decode(codepage, "replace")
        except LookupError:
            return data.decode("cp1252", "replace")


def _date(when: dt.datetime | None) -> str:
    return email.utils.format_datetime(when.replace(tzinfo=dt.UTC)) if when else ""
