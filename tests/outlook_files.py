"""Outlook .msg files made in the tests: no Python package writes them, so this writes the two layers by their
specifications — an OLE compound file (MS-CFB, version 3: 512-byte sectors, streams under 4,096 bytes in the
mini stream) holding the message's MAPI properties (MS-OXMSG) — as Outlook lays them out. olefile, an independent
reader, reads what this writes (test_office_formats.py checks the layer below the parser too)."""

from __future__ import annotations

import datetime as dt
import struct
from pathlib import Path

SECTOR, MINI_SECTOR, MINI_CUTOFF = 512, 64, 4096
FREE, END, FAT_SECTOR, NO_STREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
STORAGE, STREAM, ROOT = 1, 2, 5


class _Entry:
    def __init__(self, name: str, kind: int, data: bytes = b""):
        self.name, self.kind, self.data = name, kind, data
        self.children: list[_Entry] = []
        self.left = self.right = self.child = NO_STREAM
        self.start, self.size = END, 0


def compound_file(tree: dict) -> bytes:
    """tree: name → bytes (a stream) or dict (a storage), nested."""
    root = _Entry("Root Entry", ROOT)
    entries = [root]

    def add(parent: _Entry, items: dict) -> None:
        for name, value in items.items():
            storage = isinstance(value, dict)
            entry = _Entry(name, STORAGE if storage else STREAM, b"" if storage else value)
            entries.append(entry)
            parent.children.append(entry)
            if isinstance(value, dict):
                add(entry, value)

    add(root, tree)
    ids = {id(entry): number for number, entry in enumerate(entries)}

    def balanced(children: list[_Entry]) -> int:
        """Siblings as a binary search tree by (name length, upper-cased name), as MS-CFB orders them."""
        if not children:
            return NO_STREAM
        middle = len(children) // 2
        node = children[middle]
        node.left, node.right = balanced(children[:middle]), balanced(children[middle + 1:])
        return ids[id(node)]

    for entry in entries:
        entry.children.sort(key=lambda e: (len(e.name), e.name.upper()))
        entry.child = balanced(entry.children)

    # Small streams into the mini stream, 64-byte mini sectors chained by the mini FAT.
    mini_stream, mini_fat = bytearray(), []
    for entry in entries:
        if entry.kind == STREAM and len(entry.data) < MINI_CUTOFF:
            entry.size = len(entry.data)
            if not entry.data:
                continue
            entry.start = len(mini_stream) // MINI_SECTOR
            count = -(-len(entry.data) // MINI_SECTOR)
            mini_fat += [entry.start + i + 1 for i in range(count - 1)] + [END]
            mini_stream += entry.data.ljust(count * MINI_SECTOR, b"\0")
    big = [e for e in entries if e.kind == STREAM and len(e.data) >= MINI_CUTOFF]

    def sectors(n_bytes: int) -> int:
        return -(-n_bytes // SECTOR)

    directory_sectors = sectors(len(entries) * 128)
    mini_fat_sectors = sectors(len(mini_fat) * 4)
    mini_stream_sectors = sectors(len(mini_stream))
    big_sectors = sum(sectors(len(e.data)) for e in big)
    others = directory_sectors + mini_fat_sectors + mini_stream_sectors + big_sectors
    fat_sectors = 1
    while fat_sectors * (SECTOR // 4) < fat_sectors + others:
        fat_sectors += 1
    assert fat_sectors <= 109, "the test writer keeps to the header's 109 FAT sector slots"

    fat = [FAT_SECTOR] * fat_sectors
    body = bytearray()

    def chain(data: bytes) -> int:
        first = len(fat)
        count = sectors(len(data))
        fat.extend([first + i + 1 for i in range(count - 1)] + [END])
        body.extend(bytes(data).ljust(count * SECTOR, b"\0"))
        return first

    for entry in big:
        entry.start, entry.size = chain(entry.data), len(entry.data)
    mini_fat_start = chain(b"".join(struct.pack("<I", v) for v in mini_fat)) if mini_fat else END
    if mini_stream:
        root.start, root.size = chain(bytes(mini_stream)), len(mini_stream)
    directory = bytearray()
    for entry in entries:
        name = entry.name.encode("utf-16-le") + b"\0\0"
        directory += struct.pack("<64sHBBIII16sIQQIQ", name, len(name), entry.kind, 1, entry.left, entry.right,
                                 entry.child, bytes(16), 0, 0, 0, entry.start, entry.size)
    directory += (b"\0" * 64 + struct.pack("<HBBIII", 0, 0, 0, NO_STREAM, NO_STREAM, NO_STREAM) + b"\0" * 52) * (
        (-len(entries)) % 4)
    directory_start = chain(bytes(directory))
    fat += [FREE] * ((-len(fat)) % (SECTOR // 4))
    fat_bytes = b"".join(struct.pack("<I", v) for v in fat)
    header = struct.pack("<8s16sHHHHH6sIIIIIIIII", bytes.fromhex("D0CF11E0A1B11AE1"), bytes(16), 0x3E, 3, 0xFFFE, 9, 6,
                         bytes(6), 0, fat_sectors, directory_start, 0, MINI_CUTOFF, mini_fat_start,
                         sectors(len(mini_fat) * 4) if mini_fat else 0, END, 0)
    header += b"".join(struct.pack("<I", i if i < fat_sectors else FREE) for i in range(109))
    return header + fat_bytes + bytes(body)


def _unicode(text: str) -> bytes:
    return text.encode("utf-16-le") + b"\0\0"


def _properties(header: bytes, strings: dict[int, bytes], fixed: list[tuple[int, bytes]]) -> bytes:
    """A __properties_version1.0 stream: the header, then 16 bytes a property (a string's entry holds its size)."""
    out = bytearray(header)
    for tag, data in strings.items():
        out += struct.pack("<III4s", tag, 0x6, len(data), bytes(4))
    for tag, value in fixed:
        out += struct.pack("<II8s", tag, 0x6, value.ljust(8, b"\0"))
    return bytes(out)


def write_msg(path: Path, subject: str, body: str, sender_name: str = "Anna Berg",
              sender_email: str = "anna@example.org", to: str = "Ben", date: dt.datetime | None = None,
              attachments: list[tuple[str, bytes]] = (), html_body: str = "",
              internet_code_page: int | None = None,
              attached_items: list[tuple[str, str, str]] = ()) -> Path:
    """An Outlook message: subject, plain-text body (or only an HTML one), sender, recipients, submit time, and
    attached files. `internet_code_page`: its subject and body as 8-bit strings in that code page, which only the
    message's internet code page property names (as Outlook saves mail received in Big5, say). `attached_items`:
    Outlook messages (subject, body, sender name) attached to it as items, not files."""
    date = date or dt.datetime(2025, 3, 14, 8, 30)
    strings = {0x001A001F: _unicode("IPM.Note"), 0x0037001F: _unicode(subject), 0x0C1A001F: _unicode(sender_name),
               0x0C1F001F: _unicode(sender_email), 0x0E04001F: _unicode(to)}
    if body:
        strings[0x1000001F] = _unicode(body.replace("\n", "\r\n"))
    fixed = []
    if internet_code_page:
        for tag in (0x0037001F, 0x1000001F):
            if tag in strings:
                text = strings.pop(tag).decode("utf-16-le").rstrip("\x00")
                strings[tag - 1] = text.encode(f"cp{internet_code_page}") + b"\x00"  # type 001E: an 8-bit string
        fixed.append((0x3FDE0003, struct.pack("<I", internet_code_page)))
    binaries = {0x10130102: html_body.encode("utf-8")} if html_body else {}
    ticks = int((date - dt.datetime(1601, 1, 1)).total_seconds() * 10_000_000)
    tree: dict = {f"__substg1.0_{tag:08X}": data for tag, data in {**strings, **binaries}.items()}
    count = len(attachments) + len(attached_items)
    header = struct.pack("<8sIIII8s", bytes(8), 0, count, 0, count, bytes(8))
    tree["__properties_version1.0"] = _properties(header, {**strings, **binaries},
                                                  [(0x00390040, struct.pack("<Q", ticks)), *fixed])
    tree["__nameid_version1.0"] = {}
    for number, (name, data) in enumerate(attachments):
        attachment = {"__substg1.0_3707001F": _unicode(name), "__substg1.0_37010102": data}
        attachment["__properties_version1.0"] = _properties(
            bytes(8), {0x3707001F: _unicode(name), 0x37010102: data}, [(0x37050003, struct.pack("<I", 1))])
        tree[f"__attach_version1.0_#{number:08X}"] = attachment
    for number, (subject_inner, body_inner, sender_inner) in enumerate(attached_items, start=len(attachments)):
        # An Outlook item attached as one (attach method 5): the message kept as a storage in the attachment's.
        inner = {0x001A001F: _unicode("IPM.Note"), 0x0037001F: _unicode(subject_inner),
                 0x0C1A001F: _unicode(sender_inner), 0x1000001F: _unicode(body_inner)}
        item: dict = {f"__substg1.0_{tag:08X}": value for tag, value in inner.items()}
        item["__properties_version1.0"] = _properties(bytes(24), inner, [(0x00390040, struct.pack("<Q", ticks))])
        tree[f"__attach_version1.0_#{number:08X}"] = {
            "__substg1.0_3001001F": _unicode(subject_inner), "__substg1.0_3701000D": item,
            "__properties_version1.0": _properties(bytes(8), {0x3001001F: _unicode(subject_inner)},
                                                   [(0x37050003, struct.pack("<I", 5))])}
    path.write_bytes(compound_file(tree))
    return path
