"""Pictures inside Word, PowerPoint and Excel files, read by OCR as a PDF's scanned pages are: a screenshot pasted
into a report, a photographed whiteboard on a slide. A .docx whose only words on its topic were in a picture
("Happy New Year") was not found by them; 17 misses on Apache Tika's test documents were such text (issue 51).

A picture is numbered as a page is (its place among the package's pictures, by name), listed in `scanned_pages`
until OCR has read it, under the same setting (`ocr`), folders skipped, cache (by the file's content and the
picture's number) and wait (after the run's other files) as a scan; its text then ends the document, under "Text
in pictures". Only pictures that may hold text worth a search are taken: raster images (not the vector drawings
Office keeps as EMF/WMF, whose words are the document's own) of MIN_PICTURE_BYTES or more — an icon, a logo, a
bullet image is smaller — at most MAX_PICTURES a document.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Mapping
from pathlib import PurePosixPath

from desktop_rag.core.files.ocr import OcrPage
from desktop_rag.core.files.parsers.packages import natural_order, with_section
from desktop_rag.documents import ParsedDocument

_MEDIA = re.compile(r"(?:word|ppt|xl)/media/[^/]+")
_RASTER = frozenset(".png .jpg .jpeg .gif .bmp .tif .tiff .webp".split())
MIN_PICTURE_BYTES = 12_000  # a screenshot of a few lines is 20 KB and more as PNG; logos and icons are under 10
MAX_PICTURES = 40
SUFFIXES = frozenset(".docx .docm .dotx .dotm .pptx .pptm .ppsx .ppsm .potx .potm .xlsx .xlsm .xltx .xltm".split())
TEXT_IN_PICTURES = "Text in pictures"


def picture_names(data: bytes) -> list[str]:
    """The package's pictures worth reading, in their order (their numbers are their places here, from 1)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            found = [info.filename for info in package.infolist()
                     if _MEDIA.fullmatch(info.filename) and PurePosixPath(info.filename).suffix.lower() in _RASTER
                     and info.file_size >= MIN_PICTURE_BYTES]
    except (zipfile.BadZipFile, OSError, ValueError):
        return []
    return sorted(found, key=natural_order)[:MAX_PICTURES]


def picture_bytes(data: bytes, number: int) -> bytes:
    """Picture `number` (from 1) of picture_names."""
    names = picture_names(data)
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        return package.read(names[number - 1])


def with_pictures(parser: Callable[[bytes, str], ParsedDocument]):
    """`parser`, its document given its pictures' OCR text (or listing them as pages for OCR to read)."""

    def read(data: bytes, stem: str, ocr: Mapping[int, OcrPage] | None = None) -> ParsedDocument:
        document = parser(data, stem)
        pictures = range(1, len(picture_names(data)) + 1)
        ocr = ocr or {}
        texts = [ocr[n].text.strip() for n in pictures if n in ocr and ocr[n].text.strip()]
        document = with_section(document, TEXT_IN_PICTURES, texts)
        # (No ocr_confidence by picture: a slide's number would be taken for the picture's, its chunks judged by it.)
        document.scanned_pages = [n for n in pictures if n not in ocr]
        return document

    read.__name__ = parser.__name__
    return read

