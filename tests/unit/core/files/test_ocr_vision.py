"""macOS's OCR engine (core/files/ocr_vision.py, issue 52) on Linux: Apple's Vision call replaced by a fake that
answers as ocrmac's text_from_image does (lines with a confidence and a box whose y counts from the bottom)."""

import sys
import types

import pytest

from desktop_rag.core.files import ocr
from desktop_rag.core.files.ocr import OcrUnavailable
from desktop_rag.core.files.ocr_vision import VisionRecognizer, in_reading_order, languages_served


def fake_vision(observations, asked):
    def text_from_image(image, recognition_level, language_preference):
        asked.append((image.size, image.mode, recognition_level, language_preference))
        return observations
    return text_from_image


def test_a_page_comes_back_in_reading_order_with_a_length_weighted_confidence():
    asked = []
    observations = [  # as Vision may list them: not in reading order
        ("second line of the receipt", 0.5, [0.1, 0.70, 0.6, 0.05]),
        ("RECEIPT", 1.0, [0.1, 0.85, 0.3, 0.06]),
        ("¥1,200", 1.0, [0.7, 0.71, 0.2, 0.05]),  # on the second line's row, to its right
        ("東京 都 千代田区", 1.0, [0.1, 0.50, 0.5, 0.05]),
    ]
    recognizer = VisionRecognizer("eng+jpn", recognize=fake_vision(observations, asked))
    page = recognizer.recognize(bytes(300 * 200), 300, 200, 300)
    assert page.text == "RECEIPT\nsecond line of the receipt ¥1,200\n東京都千代田区"  # no spaces inside Japanese
    lengths = [len(o[0]) for o in observations]
    assert page.confidence == pytest.approx(round((0.5 * lengths[0] + sum(lengths[1:])) / sum(lengths), 3))
    assert asked == [((300, 200), "L", "accurate", ["en-US", "ja-JP"])]


def test_a_padded_row_stride_and_an_empty_page():
    asked = []
    recognizer = VisionRecognizer("jpn", recognize=fake_vision([], asked))
    page = recognizer.recognize(bytes(304 * 10), 300, 10, 304)  # rows padded to 304 bytes
    assert (page.text, page.confidence) == ("", None) and asked[0][0] == (300, 10)
    assert in_reading_order([]) == ("", None)


def test_languages_vision_does_not_read_are_left_out_or_said():
    assert languages_served("eng+jpn+heb") == "eng+jpn"
    with pytest.raises(OcrUnavailable, match="reads none of heb"):
        languages_served("heb")


def test_on_macos_the_ocr_seam_hands_out_vision_and_names_it_in_the_recipe(monkeypatch):
    asked = []
    fake_ocrmac = types.ModuleType("ocrmac.ocrmac")  # the package as installed on a Mac, faked here
    fake_ocrmac.text_from_image = fake_vision([("Hello", 1.0, [0, 0.5, 0.2, 0.1])], asked)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ocrmac", types.ModuleType("ocrmac"))
    monkeypatch.setitem(sys.modules, "ocrmac.ocrmac", fake_ocrmac)
    monkeypatch.setattr(ocr, "SYSTEM", "darwin")
    assert ocr.languages_served("eng+jpn") == "eng+jpn"
    assert ocr.recipe("eng+jpn").startswith("apple-vision macOS ")
    assert ocr.page_recognizer("eng").recognize(bytes(100), 10, 10, 10).text == "Hello"
    monkeypatch.setattr(ocr, "SYSTEM", "linux")
    assert ocr.recipe("eng").startswith("tesseract 5.")
    assert type(ocr.page_recognizer("eng")).__name__ == "PageRecognizer"
