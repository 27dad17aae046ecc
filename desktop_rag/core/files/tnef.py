"""TNEF, the "winmail.dat" Outlook attaches to mail it sends in its own rich format (MS-OXTNEF): the message's files
travel inside it, and a mail program that does not speak TNEF shows one opaque attachment. Read as binary, it was
skipped ("not text"), and every file in it with it. Here it is a container (containers.py): its files are members
("Budget.eml › winmail.dat › quick.pdf"), and a body sent only as compressed RTF (MS-OXRTFCP) is one too, as
message.rtf.

The format: a signature, then attributes — a level (message or attachment), an id, a length, the bytes, a checksum.
An attachment begins with its rendering attribute; its bytes and short name are attributes of their own; its long
name is among its MAPI properties."""

from __future__ import annotations

import struct

SIGNATURE = b"\x78\x9f\x3e\x22"
_RENDERING, _TITLE, _DATA, _ATTACHMENT_PROPERTIES = 0x00069002, 0x00018010, 0x0006800F, 0x00069005
_MESSAGE_PROPERTIES = 0x00069003
_LONG_FILENAME, _DISPLAY_NAME, _RTF_COMPRESSED = 0x3707, 0x3001, 0x1009
# MAPI property types and the bytes a value of each takes (MS-OXCDATA 2.11.1); the others are counted and padded.
_FIXED = {0x0002: 4, 0x0003: 4, 0x0004: 4, 0x000A: 4, 0x000B: 4, 0x0005: 8, 0x0006: 8, 0x0007: 8, 0x0014: 8,
          0x0040: 8, 0x0048: 16}
_VARIABLE = {0x001E, 0x001F, 0x0102, 0x000D}
_MULTIPLE = 0x1000


def looks_like_tnef(head: bytes) -> bool:
    return head.startswith(SIGNATURE)


def tnef_files(data: bytes) -> list[tuple[str, bytes]]:
    """(name, bytes) of each file in the TNEF stream, the RTF body first when the message has one; what a damaged
    stream still gives before the damage."""
    files: list[tuple[str, bytes]] = []
    attachments: list[dict] = []
    for level, attribute, value in _attributes(data):
        if level == 1 and attribute == _MESSAGE_PROPERTIES:
            rtf = _properties(value).get(_RTF_COMPRESSED)
            if isinstance(rtf, bytes) and (body := decompressed_rtf(rtf)):
                files.append(("message.rtf", body))
        elif level == 2 and attribute == _RENDERING:
            attachments.append({})
        elif level == 2 and attachments:
            if attribute == _DATA:
                attachments[-1]["data"] = value
            elif attribute == _TITLE:
                attachments[-1]["title"] = _text(value)
            elif attribute == _ATTACHMENT_PROPERTIES:
                properties = _properties(value)
                name = properties.get(_LONG_FILENAME) or properties.get(_DISPLAY_NAME)
                if isinstance(name, str) and name:
                    attachments[-1]["name"] = name
    for number, attachment in enumerate(attachments, start=1):
        if "data" in attachment:
            files.append((attachment.get("name") or attachment.get("title") or f"attachment {number}",
                          attachment["data"]))
    return files


def _attributes(data: bytes):
    position = 6  # the signature, and a key no reader needs
    while position + 9 <= len(data):
        level = data[position]
        attribute, length = struct.unpack_from("<II", data, position + 1)
        start = position + 9
        if start + length > len(data):
            return  # cut short: what came before stands
        yield level, attribute, data[start:start + length]
        position = start + length + 2  # and the checksum


def _text(value: bytes) -> str:
    return value.split(b"\x00", 1)[0].decode("cp1252", "replace").strip()


def _properties(block: bytes) -> dict[int, object]:
    """The MAPI properties of a block (MS-OXTNEF 2.1.3.5): id → a str for strings, bytes for binary; numbers and
    the rest skipped. Stops where the block stops making sense."""
    found: dict[int, object] = {}
    try:
        (count,), position = struct.unpack_from("<I", block), 4
        for _ in range(count):
            kind, ident = struct.unpack_from("<HH", block, position)
            position += 4
            if ident >= 0x8000:  # a named property: its GUID, then a number or a name
                named_by = struct.unpack_from("<I", block, position + 16)[0]
                position += 20
                if named_by == 0:
                    position += 4
                else:
                    length = struct.unpack_from("<I", block, position)[0]
                    position += 4 + _padded(length)
            base, values = kind & ~_MULTIPLE, 1
            if kind & _MULTIPLE or base in _VARIABLE:
                values = struct.unpack_from("<I", block, position)[0]
                position += 4
            for _ in range(values):
                if base in _FIXED:
                    position += _FIXED[base]
                    continue
                if base not in _VARIABLE:
                    return found  # a type this reader does not know: the rest cannot be found
                length = struct.unpack_from("<I", block, position)[0]
                value = block[position + 4:position + 4 + length]
                position += 4 + _padded(length)
                if base == 0x001F:
                    found.setdefault(ident, value.decode("utf-16-le", "replace").rstrip("\x00"))
                elif base == 0x001E:
                    found.setdefault(ident, value.rstrip(b"\x00").decode("cp1252", "replace"))
                elif base == 0x0102:
                    found.setdefault(ident, value)
    except struct.error:
        pass
    return found


def _padded(length: int) -> int:
    return (length + 3) // 4 * 4


# MS-OXRTFCP 2.1.2.1: the dictionary's first 207 bytes, which compressed RTF refers back to.
_RTF_PREFIX = (b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript "
               b"\\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par "
               b"\\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx")
_COMPRESSED, _UNCOMPRESSED = 0x75465A4C, 0x414C454D  # "LZFu", "MELA"


def decompressed_rtf(data: bytes) -> bytes:
    """RTF from its compressed form (MS-OXRTFCP); b"" for what is not."""
    if len(data) < 16:
        return b""
    size, raw_size, kind = struct.unpack_from("<III", data)
    body = data[16:4 + size]
    if kind == _UNCOMPRESSED:
        return body[:raw_size]
    if kind != _COMPRESSED:
        return b""
    dictionary = bytearray(_RTF_PREFIX.ljust(4096, b"\x00"))
    write = len(_RTF_PREFIX)
    out = bytearray()
    position = 0
    while position < len(body):
        control = body[position]
        position += 1
        for bit in range(8):
            if position >= len(body):
                break
            if control & (1 << bit):
                if position + 2 > len(body):
                    return bytes(out)
                reference = (body[position] << 8) | body[position + 1]
                position += 2
                offset, length = reference >> 4, (reference & 0xF) + 2
                if offset == write:  # the end
                    return bytes(out)
                for step in range(length):
                    byte = dictionary[(offset + step) % 4096]
                    out.append(byte)
                    dictionary[write] = byte
                    write = (write + 1) % 4096
            else:
                byte = body[position]
                position += 1
                out.append(byte)
                dictionary[write] = byte
                write = (write + 1) % 4096
    return bytes(out)
