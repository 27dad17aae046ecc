"""Zip member names as their archivers wrote them (core/files/archives.py): zips made in the test with names in
the code pages of the Windows they came from, which Python's zipfile cannot write (it writes UTF-8), so the bytes
of each name are put in place after."""

import struct
import zipfile
from pathlib import Path

import pytest

from desktop_rag.core.files import archives, containers


def zip_with_raw_names(path: Path, names: list[bytes], unicode_paths: dict[bytes, str] | None = None) -> Path:
    """A zip whose members are named by these bytes, without the UTF-8 flag, as an old archiver wrote them; a name
    in `unicode_paths` also carries Info-ZIP's Unicode Path field with the name in UTF-8."""
    placeholders = ["QRSTUVWXYZ"[index] * len(raw) for index, raw in enumerate(names)]  # none inside another
    with zipfile.ZipFile(path, "w") as archive:
        for raw, placeholder in zip(names, placeholders):
            info = zipfile.ZipInfo(placeholder)
            if unicode_paths and raw in unicode_paths:
                name = unicode_paths[raw].encode("utf-8")
                body = b"\x01" + struct.pack("<I", zipfile.crc32(raw)) + name
                info.extra = struct.pack("<HH", 0x7075, len(body)) + body
            archive.writestr(info, b"text of " + raw)
    data = path.read_bytes()
    for raw, placeholder in zip(names, placeholders):
        data = data.replace(placeholder.encode("ascii"), raw)
    path.write_bytes(data)
    return path


def names_in(path: Path) -> list[str]:
    return [member.chain[0] for member in containers.members(path.name, path.read_bytes())]


def test_names_in_chinese_and_japanese_code_pages_are_read_as_written(tmp_path):
    chinese = ["报告.txt", "会议纪要.txt", "附件 合同.txt"]
    assert names_in(zip_with_raw_names(tmp_path / "gbk.zip", [n.encode("gbk") for n in chinese])) == chinese
    japanese = ["資料.txt", "議事録.txt"]
    assert names_in(zip_with_raw_names(tmp_path / "sjis.zip", [n.encode("shift_jis") for n in japanese])) == japanese
    traditional = ["報告.txt", "會議記錄.txt"]
    assert names_in(zip_with_raw_names(tmp_path / "big5.zip", [n.encode("big5") for n in traditional])) == \
        traditional


def test_western_names_stay_in_the_zip_formats_own_code_page_and_utf8_without_its_flag_is_utf8(tmp_path):
    western = ["Müller.txt", "Résumé.txt"]
    assert names_in(zip_with_raw_names(tmp_path / "dos.zip", [n.encode("cp437") for n in western])) == western
    assert names_in(zip_with_raw_names(tmp_path / "mac.zip", ["Grüße.txt".encode()])) == ["Grüße.txt"]
    russian = ["Отчёт.txt"]
    assert names_in(zip_with_raw_names(tmp_path / "ru.zip", [n.encode("cp866") for n in russian])) == russian


def test_the_unicode_path_field_says_the_name_whatever_the_code_page(tmp_path):
    raw = "会议.txt".encode("gbk")
    path = zip_with_raw_names(tmp_path / "7z.zip", [raw], unicode_paths={raw: "会议.txt"})
    assert names_in(path) == ["会议.txt"]


@pytest.mark.parametrize("names, code_page", [
    (["보고서.txt", "회의록.txt"], "cp949"),  # Korean reads as Chinese as well (one byte layout)
    (["議事録.txt"], "shift_jis"),  # these bytes read as Western letters too: "ïcÄûÿ^"
])
def test_names_that_read_as_letters_in_two_code_pages_follow_the_persons_language(tmp_path, monkeypatch, names,
                                                                                   code_page):
    path = zip_with_raw_names(tmp_path / "names.zip", [n.encode(code_page) for n in names])
    monkeypatch.setattr(archives, "_locale_code_page", lambda: None)  # fake: a desktop in English…
    assert names_in(path) != names  # …cannot tell
    monkeypatch.setattr(archives, "_locale_code_page", lambda: code_page)  # fake: a Korean or Japanese desktop
    assert names_in(path) == names
