"""Archives (.zip, .tar and its compressed forms) read entry by entry for containers.py, within the limits that keep
a hostile or broken file from taking the machine: members, inflated bytes and the compression ratio, counted across
every level of nesting of one file on disk (Budget)."""

from __future__ import annotations

import io
import re
import tarfile
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
_OLD_ZIP_METHOD = ("packed by a compression method desktop-rag cannot unpack (an old zip tool's, such as PKWARE "
                   "Implode): unpack it with 7-Zip or unzip, and the files are indexed")

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
            raise ParseError(f"it holds over {MAX_MEMBERS:,} documents, more than one file may")
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
        if entries and all(info.compress_type not in _ZIP_METHODS_READ for info in entries):
            raise ParseError(_OLD_ZIP_METHOD)  # once for the archive, not once for each of its members
        for info in entries:
            budget.take(info.file_size)
            name = _zip_name(info)
            if info.compress_type not in _ZIP_METHODS_READ:
                yield name, b"", _OLD_ZIP_METHOD
                continue
            if info.flag_bits & 0x1:
                yield name, b"", password_protected("archive member")
                continue
            try:
                # zipfile reads no more than the declared size and checks the CRC: a lying entry fails here.
                yield name, archive.read(info), None
            except (zipfile.BadZipFile, EOFError, OSError, RuntimeError, NotImplementedError, ValueError) as exc:
                yield name, b"", unreadable("cannot be extracted", exc).args[0]


def _zip_name(info: zipfile.ZipInfo) -> str:
    """A member's name as its archiver wrote it: zipfile reads a name not flagged UTF-8 as code page 437, but many
    archivers (old macOS, Linux tools) write UTF-8 without the flag ("Ã¼" for "ü"). Names in other code pages (GBK,
    Shift-JIS) are left as zipfile reads them: too short to tell their code page by."""
    if info.flag_bits & 0x800 or info.filename.isascii():
        return info.filename
    try:
        return info.filename.encode("cp437").decode("utf-8")
    except UnicodeError:
        return info.filename


def tar_entries(data: bytes, budget: Budget):
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
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
