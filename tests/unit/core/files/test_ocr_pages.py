"""Scanned pages and images, one page at a time: frames as pages, a blank page, transparency, the render scale,
tidying OCR's spaces, a missing language file (real Tesseract; the scans in an indexing run: end2end/test_ocr.py)."""

from __future__ import annotations

import io

import pytest

from desktop_rag.core.files import ocr, parsers
from desktop_rag.core.files.parsers import ParseError, images
from documents import RECEIPT, png_bytes, recognise, scanned_image

def test_tidy_joins_japanese_words_and_keeps_english_and_korean_spaces():
    assert ocr.tidy("賃借 人 は 、 毎月 末日 まで に\n\fThe monthly  rent \n\n\n\nend") == \
        "賃借人は、毎月末日までに\nThe monthly  rent\n\nend"
    assert ocr.tidy("한국어 문장 입니다") == "한국어 문장 입니다"


def test_render_scale_bounds_pixels_and_enlarges_small_images():
    assert ocr.render_scale(595, 842) == pytest.approx(ocr.PAGE_DPI / 72)  # an A4 page at 200 dpi
    huge = ocr.render_scale(595 * 10, 842 * 10)  # a poster-sized page
    assert 595 * 10 * 842 * 10 * huge ** 2 == pytest.approx(ocr.MAX_PIXELS, rel=0.01)
    assert ocr.render_scale(400, 120, native_px=(400, 120)) == pytest.approx(3.0)  # a cropped line, enlarged
    assert ocr.render_scale(3000, 2000, native_px=(3000, 2000)) == 1.0  # a photo: its own pixels


def test_a_page_without_text_gives_no_text_and_no_confidence():
    from PIL import Image

    blank = recognise(Image.new("L", (1200, 1600), 255))
    assert blank.text == "" and blank.confidence is None


def test_missing_language_files_are_a_clear_error():
    with pytest.raises(ocr.OcrUnavailable, match="no OCR language files for xyz"):
        ocr.find_languages("xyz")
    folder, languages = ocr.find_languages("eng+xyz+jpn")  # those found are used
    assert languages == "eng+jpn" and (folder / "jpn.traineddata").is_file()


# -- parsing: which pages are scans ---------------------------------------------------------------------------------


def test_images_are_documents_whose_frames_are_pages(tmp_path):
    from PIL import Image

    frame = Image.new("RGB", (400, 300), "white")
    tiff = io.BytesIO()
    frame.save(tiff, format="TIFF", save_all=True, append_images=[frame, frame])
    document = parsers.parse(tmp_path / "fax.tiff", tiff.getvalue())
    assert document.parser == "image" and document.scanned_pages == [1, 2, 3] and document.title == "fax"
    webp = io.BytesIO()
    frame.save(webp, format="WEBP")
    assert parsers.parse(tmp_path / "photo.webp", webp.getvalue()).scanned_pages == [1]
    with pytest.raises(ParseError, match="corrupt or unreadable image"):
        parsers.parse(tmp_path / "broken.png", b"\x89PNG\r\n\x1a\n" + b"junk" * 100)
    with pytest.raises(ParseError, match="corrupt or unreadable image"):
        parsers.parse(tmp_path / "cut.png", png_bytes(scanned_image(RECEIPT, width_pt=220, height_pt=300))[:5000])


def test_a_transparent_image_is_read_on_white():
    from PIL import Image

    transparent = Image.new("RGBA", (300, 200), (0, 0, 0, 0))  # a transparent black background
    pixels, _width, _height, _ = images.frame_pixels(transparent, 1)
    assert min(pixels) == 255  # white, not black: text drawn on it stays readable


# -- indexing -------------------------------------------------------------------------------------------------------


def test_old_ocr_text_of_content_no_document_has_is_dropped_and_recent_text_kept(tmp_path):
    from desktop_rag.storage.catalog import Catalog

    catalog = Catalog(tmp_path / "catalog.sqlite3")
    catalog.ocr.save_ocr_text("old-version", "recipe", 1, "the scan before it was edited", 0.9, 0.2)
    catalog.ocr.save_ocr_text("killed-run", "recipe", 1, "a page a killed run finished", 0.9, 0.2)
    catalog._db.execute("UPDATE ocr_pages SET created_at = created_at - 40 * 86400 WHERE content_hash = 'old-version'")
    assert catalog.ocr.forget_old_ocr_texts() == 1
    assert catalog.ocr.ocr_texts("killed-run", "recipe") == {1: ("a page a killed run finished", 0.9)}
    assert catalog.ocr.ocr_texts("old-version", "recipe") == {}
    catalog.close()
