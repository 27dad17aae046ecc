"""A mailbox (mbox: Thunderbird's Inbox, mutt's, an export) read message by message from a stream, never whole: a
few years of mail is gigabytes, and memory stays bounded by the largest message read (issue 38: a 160 MB mailbox was
skipped whole as over the file limit).

A message begins at a "From " line at the start of the file or after a blank line, as mbox writers keep it; the
"From " line itself is the mailbox's, not the message's. ">From " in a body is unescaped (mboxrd). Where each
message begins and ends is kept (`MailboxMessage.start`, `end`) so that a mailbox grown by appending is read from
its last message on (`appended_only`), and a hit opens its message by reading those bytes alone.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import BinaryIO
from collections.abc import Iterator

# A line longer than this (a body of base64 without line breaks) is taken in pieces, so one line never holds more.
_LINE_LIMIT = 1 << 20
# The bytes that say a mailbox was only appended to since it was read: its first ones and those before the point
# read to. A client that compacts or rewrites the mailbox (deleting a message) changes one or the other.
CHECK_BYTES = 64 * 1024
# What is kept of a message too large to read: enough for its headers, so that it is named and listed.
HEAD_BYTES = 64 * 1024
_FROM_ESCAPED = re.compile(rb"(?m)^>(>*From )")
_BLANK = (b"\n", b"\r\n")


@dataclass(frozen=True)
class MailboxMessage:
    start: int  # where its "From " line begins
    end: int  # just after its last byte (the next message's start)
    raw: bytes  # the message, without the mailbox's "From " line; when too large, its first HEAD_BYTES (headers)
    too_large: bool = False


def messages(stream: BinaryIO, start: int = 0, end: int | None = None,
             max_bytes: int = 512 * 2**20) -> Iterator[MailboxMessage]:
    """The messages of the mailbox `stream` from offset `start` (a message's start, or 0) up to `end` (the size the
    scan saw: what is written after it is read next time). A message over `max_bytes` is passed over, not held,
    and yielded with too_large. Text before the first "From " line is not a message and is left out."""
    stream.seek(start)
    offset = start
    current: int | None = None
    parts: list[bytes] = []
    held = 0
    after_blank = True  # `start` is the beginning of the file or of a message
    whole_line = True  # the line read last ended with a line break: the next piece begins a line
    while end is None or offset < end:
        line = stream.readline(_LINE_LIMIT if end is None else min(_LINE_LIMIT, end - offset))
        if not line:
            break
        if whole_line and after_blank and line.startswith(b"From "):
            if current is not None:
                yield _message(current, offset, parts, held, max_bytes)
            current, parts, held = offset, [], 0
        elif current is not None:
            held += len(line)
            if held <= max_bytes:
                parts.append(line)
            elif held - len(line) <= max_bytes:  # too large from this line on: let go of all but its head
                parts = [b"".join(parts)[:HEAD_BYTES]]
        whole_line = line.endswith(b"\n")
        after_blank = line in _BLANK
        offset += len(line)
    if current is not None:
        yield _message(current, offset, parts, held, max_bytes)


def _message(start: int, end: int, parts: list[bytes], held: int, max_bytes: int) -> MailboxMessage:
    if held > max_bytes:
        return MailboxMessage(start, end, parts[0] if parts else b"", too_large=True)
    return MailboxMessage(start, end, _FROM_ESCAPED.sub(rb"\1", b"".join(parts)))


def check_of(handle: BinaryIO, read_to: int) -> str:
    """What `appended_only` compares: the file's first CHECK_BYTES and the CHECK_BYTES before `read_to`. (`handle`:
    one of its own, not the one `messages` reads, whose place it would move.)"""
    digest = hashlib.sha256(read_to.to_bytes(8, "little"))
    digest.update(_bytes_at(handle, 0, min(CHECK_BYTES, read_to)))
    digest.update(_bytes_at(handle, max(0, read_to - CHECK_BYTES), min(CHECK_BYTES, read_to)))
    return digest.hexdigest()


def appended_only(handle: BinaryIO, size: int, read_to: int, check: str) -> bool:
    """The mailbox still holds, unchanged, what was before `read_to` when it was read: only appended to since."""
    return size >= read_to and check_of(handle, read_to) == check


def fingerprint(handle: BinaryIO, size: int) -> str:
    """A mailbox's content hash without reading gigabytes: its size, first and last CHECK_BYTES. (A change in the
    middle alone, which no mail client makes without changing the size, would go unnoticed until the next append.)"""
    digest = hashlib.sha256(b"mbox" + size.to_bytes(8, "little"))
    digest.update(_bytes_at(handle, 0, CHECK_BYTES))
    digest.update(_bytes_at(handle, max(0, size - CHECK_BYTES), CHECK_BYTES))
    return digest.hexdigest()


def _bytes_at(handle: BinaryIO, offset: int, count: int) -> bytes:
    handle.seek(offset)
    return handle.read(count)
