"""Office packages in forms the readers (python-docx, python-pptx, openpyxl) do not take, rewritten in memory into
the form they do (the file is never touched). Each was a whole file failed:

- **Strict Open XML** (ISO/IEC 29500 Strict: Office's "Strict Open XML" save-as choice) differs, for reading text,
  in its namespaces and relationship types only: no main part was found ("no relationship of type
  …/officeDocument"; pandoc's test file command/7691.docx, calamine's strict_iso_paths.xlsx).
- **Part names in another case** than the relationships give them ("xl/SharedStrings.xml" for sharedStrings.xml):
  Open Packaging Conventions §6.2.2.3 compares part names without case, Excel opens such a file, zipfile does not
  (calamine's issue_419.xlsx).
- **Backslashes in part names** ("xl\\workbook.xml"), as some Windows programs zip them (calamine's issue_530.xlsx).
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
import zlib

_STRICT = re.compile(rb"http://purl\.oclc\.org/ooxml/(\w+)/([\w/]+)")
# Where the transitional name is not the strict one with "2006/" put in.
_RENAMED = {b"extendedProperties": b"extended-properties", b"customProperties": b"custom-properties"}
_XML_PARTS = (".xml", ".rels", ".vml")
_TARGET = re.compile(rb"""\bTarget\s*=\s*["']([^"']+)["']""")
_EXTERNAL = re.compile(rb"""TargetMode\s*=\s*["']External["']""")
_PART_NAME = re.compile(rb"""\bPartName\s*=\s*["']/([^"']+)["']""")


def _read(package: zipfile.ZipFile, name: str) -> bytes:
    try:
        return package.read(name)
    except (KeyError, zipfile.BadZipFile, OSError, RuntimeError, EOFError):
        return b""


def is_strict(package: zipfile.ZipFile, names: dict[str, str]) -> bool:
    return b"purl.oclc.org/ooxml/" in _read(package, names.get("_rels/.rels", "_rels/.rels"))


def _transitional_name(match: re.Match[bytes]) -> bytes:
    area, rest = match.group(1), match.group(2)
    *path, last = rest.split(b"/")
    path.append(_RENAMED.get(last, last))
    return b"http://schemas.openxmlformats.org/" + area + b"/2006/" + b"/".join(path)


def _referenced(package: zipfile.ZipFile, names: dict[str, str]) -> set[str]:
    """The part names the package's relationships and content types give (its own spelling of each)."""
    found: set[str] = set()
    for name, stored in names.items():
        if name.endswith(".rels"):
            source_folder = posixpath.dirname(posixpath.dirname(name))  # "xl/_rels/workbook.xml.rels" → "xl"
            for line in re.split(rb"<Relationship\b", _read(package, stored)):
                if (target := _TARGET.search(line)) and not _EXTERNAL.search(line):
                    path = target.group(1).decode("utf-8", "replace")
                    joined = path.lstrip("/") if path.startswith("/") else posixpath.join(source_folder, path)
                    found.add(posixpath.normpath(joined))
    for part in _PART_NAME.finditer(_read(package, names.get("[Content_Types].xml", "[Content_Types].xml"))):
        found.add(part.group(1).decode("utf-8", "replace"))
    return found


def _fitting_names(package: zipfile.ZipFile) -> dict[str, str]:
    """Each member's name as the readers will look it up → its name in the zip: '/' for '\\', and the case the
    relationships give."""
    names = {entry.filename.replace("\\", "/"): entry.filename for entry in package.infolist()}
    by_folded = {name.lower(): name for name in names}
    for wanted in _referenced(package, names):
        if wanted not in names and (present := by_folded.get(wanted.lower())) is not None:
            names[wanted] = names.pop(present)
            by_folded[wanted.lower()] = wanted
    return names


def as_readers_expect(data: bytes) -> bytes:
    """The package in the form the readers take (this module's docstring); a package already so, as it is."""
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return data  # the reader says what is wrong with it
    with package:
        names = _fitting_names(package)
        strict = is_strict(package, names)
        if not strict and all(name == stored for name, stored in names.items()):
            return data
        rewritten = io.BytesIO()
        try:
            with zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as target:
                for name, stored in names.items():
                    content = package.read(stored)
                    if strict and name.lower().endswith(_XML_PARTS):
                        content = _STRICT.sub(_transitional_name, content)
                    target.writestr(name, content)
        except (zipfile.BadZipFile, OSError, RuntimeError, EOFError, zlib.error):
            return data  # a damaged member: the reader says so, as for any damaged file
    return rewritten.getvalue()
