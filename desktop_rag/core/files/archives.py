"""Archives (.zip, .tar and its compressed forms) read entry by entry for containers.py, within the limits that keep
a hostile or broken file from taking the machine: members, inflated bytes and the compression ratio, counted across
every level of nesting of one file on disk (Budget)."""

from __future__ import annotations

import io
import locale
import lzma
import os
import re
import struct
import tarfile
import unicodedata
import zipfile
import zlib

from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.core.files.parsers.packages import password_protected

MAX_MEMBERS = 10_000
MAX_INFLATED_BYTES = 512 * 2**20  # all members of one file together, as for an Office package
MAX_DEPTH = 4  # Inbox › a message › its attached zip › a member: four levels
# A member inflating over this many times its compressed size, once past MIN_RATIO_BYTES, is a bomb: text compresses
# ~3–10×, a sheet of repeated rows ~50×; the classic 42.zip reaches ~10^6.
MAX_RATIO = 200
MIN_RATIO_BYTES = 4 * 2**20

# Zip's compression methods Python unpacks: stored, deflate, bzip2, lzma. Others are older (PKWARE's Shrink, Reduce,
# Implode: 1980s-90s archives) or rare (Deflate64, PPMd).
_ZIP_METHODS_READ = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
_OLD_ZIP_METHOD = ("packed by an old zip tool's compression method that desktop-rag cannot unpack: unpack it with "
                   "7-Zip or unzip, and the files are indexed")

# WinZip's AES encryption, said as a compression method: a password-protected member, not an old one.
_WINZIP_AES = 99
_SPLIT = ("the last part of a split archive (its files are in the parts beside it, .z01, .z02…): join the parts "
          "with 7-Zip or `zip -s 0` to have the files indexed")

# Names that are never documents: the resource forks macOS adds to zips, folders' metadata.
_NOISE = re.compile(r"(^|/)(__MACOSX|\.DS_Store|Thumbs\.db|desktop\.ini)(/|$)|(^|/)\._")


class Budget:
    """What one file on disk may hold, across every level of nesting: members, inflated bytes, and inflated bytes
    against its own size — a 1.3 KB .tgz of 72 identical 320 KB members (each member within the zip rule, tar has
    none) inflated 18,500-fold into 80% of a library's chunks (issue 38)."""

    def __init__(self, packed: int):
        self.packed = max(packed, 1)
        self.members = 0
        self.inflated = 0

    def take(self, size: int) -> None:
        self.members += 1
        self.inflated += size
        if self.members > MAX_MEMBERS:
            raise ParseError(f"it holds over {MAX_MEMBERS:,} documents, more than desktop-rag reads from one file "
                             "(unpack it into a folder to have them indexed)")
        if self.inflated > MAX_INFLATED_BYTES:
            raise ParseError(f"its contents would inflate to over {MAX_INFLATED_BYTES // 2**20} MB, more than one "
                             "file may take (a damaged file, or a zip bomb)")
        if self.inflated > MIN_RATIO_BYTES and self.inflated > MAX_RATIO * self.packed:
            raise ParseError(f"its contents inflate over {self.inflated // self.packed:,} times its size: a "
                             "decompression bomb, not opened")


def zip_entries(data: bytes, budget: Budget):
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise unreadable("not a readable zip archive", exc) from None
    with archive:
        entries = [info for info in archive.infolist() if not info.is_dir() and not _NOISE.search(info.filename)]
        declared = sum(info.file_size for info in entries)
        if declared > MAX_INFLATED_BYTES:
            raise ParseError(f"its contents would inflate to {declared / 2**20:,.0f} MB, over the "
                             f"{MAX_INFLATED_BYTES // 2**20} MB one file may take (a damaged file, or a zip bomb)")
        for info in entries:
            if info.file_size > MIN_RATIO_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                raise ParseError(f"{info.filename} would inflate {info.file_size // max(info.compress_size, 1):,} "
                                 "times over: a zip bomb, not opened")
        if any(info.volume for info in entries):  # its members' data is in the other parts (.z01, .z02…)
            raise ParseError(_SPLIT)
        if entries and all(info.compress_type not in _ZIP_METHODS_READ | {_WINZIP_AES} for info in entries):
            raise ParseError(_OLD_ZIP_METHOD)  # once for the archive, not once for each of its members
        code_page = names_code_page(entries)
        for info in entries:
            budget.take(info.file_size)
            name = _zip_name(info, code_page)
            if info.compress_type not in _ZIP_METHODS_READ and info.compress_type != _WINZIP_AES:
                yield name, b"", _OLD_ZIP_METHOD
                continue
            if info.flag_bits & 0x1 or info.compress_type == _WINZIP_AES:
                yield name, b"", password_protected("archive member")
                continue
            try:
                # zipfile reads no more than the declared size and checks the CRC: a lying entry fails here.
                yield name, archive.read(info), None
            except (zipfile.BadZipFile, EOFError, OSError, RuntimeError, NotImplementedError, ValueError) as exc:
                yield name, b"", unreadable("cannot be extracted", exc).args[0]


def _zip_name(info: zipfile.ZipInfo, code_page: str = "cp437") -> str:
    """A member's name as its archiver wrote it. zipfile reads a name not flagged UTF-8 as code page 437, but many
    archivers write it in UTF-8 without the flag (old macOS, Linux tools: "Ã¼" for "ü"), give it in UTF-8 in an
    extra field beside (Info-ZIP's Unicode Path: 7-Zip, WinRAR), or write the code page of the Windows they ran on
    (GBK, Shift-JIS: `code_page`, as names_code_page guessed it for the archive)."""
    if info.flag_bits & 0x800 or info.filename.isascii():
        return info.filename
    if (unicode_path := _unicode_path(info)) is not None:
        return unicode_path
    raw = info.filename.encode("cp437")  # the bytes as written: zipfile decoded them as cp437, which maps all 256
    try:
        return raw.decode("utf-8")
    except UnicodeError:
        return raw.decode(code_page, "replace")


_UNICODE_PATH_FIELD = 0x7075


def _unicode_path(info: zipfile.ZipInfo) -> str | None:
    """The name in Info-ZIP's Unicode Path extra field (id, size, version 1, the CRC of the name it stands for, the
    name in UTF-8), when it is there."""
    extra, at = info.extra, 0
    while at + 4 <= len(extra):
        field_id, size = struct.unpack_from("<HH", extra, at)
        body = extra[at + 4:at + 4 + size]
        if field_id == _UNICODE_PATH_FIELD and len(body) > 5 and body[0] == 1:
            try:
                return body[5:].decode("utf-8")
            except UnicodeError:
                return None
        at += 4 + size
    return None


# The code pages archivers wrote names in before UTF-8, by the Windows they ran on: DOS Western (the zip format's
# own), then Chinese (simplified, traditional), Japanese, Korean, and DOS Cyrillic.
_CODE_PAGES = ("cp437", "gbk", "big5", "shift_jis", "cp949", "cp866")
_LOCALE_CODE_PAGES = {"zh_CN": "gbk", "zh_SG": "gbk", "zh_TW": "big5", "zh_HK": "big5", "ja": "shift_jis",
                      "ko": "cp949", "ru": "cp866", "uk": "cp866", "be": "cp866"}


def names_code_page(infos: list[zipfile.ZipInfo]) -> str:
    """The code page an archive's names not in UTF-8 were written in: the one that reads all of them as letters
    (a GBK name read as cp437 is box-drawing signs: "╓╨╬─"). Where several do — GB2312, Big5 and Korean share one
    byte layout, and two short names do not tell them apart — the person's own language decides, as unzip and
    7-Zip take the system's code page; then the order above."""
    raw = [info.filename.encode("cp437") for info in infos
           if not info.flag_bits & 0x800 and not info.filename.isascii() and _unicode_path(info) is None]
    raw = [name for name in raw if not _is_utf8(name)]
    if not raw:
        return "cp437"
    scores = {}
    for code_page in _CODE_PAGES:
        try:
            text = "".join(name.decode(code_page) for name in raw)
        except UnicodeError:
            continue
        wide = [ch for ch in text if ord(ch) > 127] or ["a"]
        letters = sum(unicodedata.category(ch).startswith("L") for ch in wide) / len(wide)
        scores[code_page] = (letters, sum(_common(ch, code_page) for ch in wide) / len(wide))
    if not scores:
        return "cp437"
    preferred = _locale_code_page()
    return max(scores, key=lambda page: (*scores[page], page == preferred, -_CODE_PAGES.index(page)))


# The most used characters of each CJK code page, by where its standard put them: GB2312's level 1 (3,755 hanzi),
# Big5's frequent characters (5,401), JIS level 1 (2,965 kanji) with the kana, the Hangul syllables. Japanese read
# as GBK is rare hanzi ("資料" → "帒椏"): names of a code page read as another fall outside these.
_COMMON_RANGES = {"gbk": ("gb2312", 0xB0A1, 0xD7F9), "big5": ("big5", 0xA440, 0xC67E),
                  "shift_jis": ("shift_jis", 0x829F, 0x9872)}


def _common(ch: str, code_page: str) -> bool:
    if code_page == "cp949":
        return "\uac00" <= ch <= "\ud7a3"
    if code_page not in _COMMON_RANGES:
        return unicodedata.category(ch).startswith("L")
    encoding, low, high = _COMMON_RANGES[code_page]
    try:
        code = int.from_bytes(ch.encode(encoding), "big")
    except UnicodeError:
        return False
    return low <= code <= high


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
        return True
    except UnicodeError:
        return False


def _locale_code_page() -> str | None:
    language = locale.getlocale()[0] or os.environ.get("LANG", "")
    return _LOCALE_CODE_PAGES.get(language[:5]) or _LOCALE_CODE_PAGES.get(language[:2])


_DECOMPRESSORS = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}
_READ_AT_ONCE = 1 << 20


def compressed_entry(name: str, data: bytes, budget: Budget):
    """One file compressed alone ("notes.txt.gz"): the file inside, named without the compression's suffix, read a
    megabyte at a time so that a bomb stops at the budget, not in memory."""
    import importlib

    stem, _, suffix = name.rpartition(".")
    module = importlib.import_module(_DECOMPRESSORS[f".{suffix.lower()}"])
    parts, taken = [], 0
    try:
        with module.open(io.BytesIO(data)) as stream:
            while chunk := stream.read(_READ_AT_ONCE):
                parts.append(chunk)
                taken += len(chunk)
                if taken > MAX_INFLATED_BYTES or (taken > MIN_RATIO_BYTES and taken > MAX_RATIO * len(data)):
                    raise ParseError(f"it inflates over {taken // max(len(data), 1):,} times its size (over "
                                     f"{taken // 2**20:,} MB and going): a decompression bomb, not opened")
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
        raise unreadable(f"not a readable .{suffix} file", exc) from None
    budget.take(taken)
    yield stem or "file", b"".join(parts), None


def tar_entries(data: bytes, budget: Budget):
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115 — `with archive` below
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise unreadable("not a readable tar archive", exc) from None
    with archive:
        try:
            while (info := archive.next()) is not None:  # one header at a time: a bomb stops at its first giant
                if not info.isfile() or _NOISE.search(info.name):
                    continue
                budget.take(info.size)
                handle = archive.extractfile(info)
                yield info.name.removeprefix("./"), handle.read() if handle else b"", None
        except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error) as exc:
            raise unreadable("not a readable tar archive", exc) from None
