"""OCR on macOS: Apple's Vision framework (VNRecognizeTextRequest at its "accurate" level), through `ocrmac` (MIT,
pure Python over pyobjc's Vision binding; wheels for every macOS). tesserocr has no macOS wheel past 2.9, and
Vision comes with the system: nothing to install beside the package, no language files.

The same seam as Tesseract's PageRecognizer (core/files/ocr.py): a greyscale page in, its text and a confidence
0–1 out — here Vision's own figure for each line, averaged over the page weighted by the line's length. Japanese is
read from macOS 13 on (Vision's third revision: ja-JP, ko-KR, zh-Hans, zh-Hant beside the Latin scripts); Vision
finds text at any angle, so no second pass turns the page.

Written and unit-tested on Linux with the Vision call replaced (tests/unit/core/files/test_ocr_vision.py); not yet
run on a Mac (docs/porting.md)."""

from __future__ import annotations

import time
from collections.abc import Callable

from desktop_rag.core.files.ocr_page import OcrPage, OcrUnavailable, tidy

# Tesseract's language codes (the setting ocr_languages) → Vision's.
VISION_LANGUAGES = {
    "eng": "en-US", "jpn": "ja-JP", "fra": "fr-FR", "deu": "de-DE", "spa": "es-ES", "ita": "it-IT", "por": "pt-BR",
    "chi_sim": "zh-Hans", "chi_tra": "zh-Hant", "kor": "ko-KR", "rus": "ru-RU", "ukr": "uk-UA",
}
Observations = list[tuple[str, float, list[float]]]  # (text, confidence, [x, y, width, height]), y from the bottom


def languages_served(languages: str) -> str:
    """The languages of `languages` ("eng+jpn") Vision reads; OcrUnavailable when it reads none of them."""
    served = [lang for lang in languages.split("+") if lang in VISION_LANGUAGES]
    if not served:
        raise OcrUnavailable(f"Apple's Vision reads none of {languages} (it reads "
                             f"{', '.join(sorted(VISION_LANGUAGES))})")
    return "+".join(served)


def engine_version() -> str:
    import platform

    return f"macOS {platform.mac_ver()[0] or '?'}"


def _vision_call() -> Callable[..., Observations]:
    try:
        from ocrmac.ocrmac import text_from_image
    except ImportError as exc:
        raise OcrUnavailable(f"Apple's Vision cannot be reached ({exc}): reinstall desktop-rag, which installs "
                             "ocrmac") from None
    return text_from_image


class VisionRecognizer:
    def __init__(self, languages: str, recognize: Callable[..., Observations] | None = None):
        """`recognize`: ocrmac's text_from_image (the OS call); a test gives its own."""
        self.languages = languages_served(languages)
        self._vision_languages = [VISION_LANGUAGES[lang] for lang in self.languages.split("+")]
        self._recognize = recognize or _vision_call()

    def recognize(self, samples: bytes, width: int, height: int, stride: int) -> OcrPage:
        """A greyscale image (one byte per pixel, `stride` bytes per row)."""
        from PIL import Image

        started = time.perf_counter()
        image = Image.frombytes("L", (width, height), samples, "raw", "L", stride)
        observations = self._recognize(image, recognition_level="accurate",
                                       language_preference=self._vision_languages)
        text, confidence = in_reading_order(observations)
        return OcrPage(text=tidy(text), confidence=confidence, seconds=time.perf_counter() - started)


def in_reading_order(observations: Observations) -> tuple[str, float | None]:
    """Vision's lines as a page reads: top to bottom, and left to right within a row (two boxes whose middles are
    within half a line of each other share a row); the confidence weighted by each line's length."""
    boxes = sorted(observations, key=lambda o: -(o[2][1] + o[2][3] / 2))  # middles, from the top
    rows: list[list[tuple[str, float, list[float]]]] = []
    for observation in boxes:
        middle, tall = observation[2][1] + observation[2][3] / 2, observation[2][3]
        row = rows[-1] if rows else None
        if row and abs(row[0][2][1] + row[0][2][3] / 2 - middle) < max(tall, row[0][2][3]) / 2:
            row.append(observation)
        else:
            rows.append([observation])
    text = "\n".join(" ".join(o[0] for o in sorted(row, key=lambda o: o[2][0])) for row in rows)
    weight = sum(len(o[0]) for o in observations)
    confidence = round(sum(o[1] * len(o[0]) for o in observations) / weight, 3) if weight else None
    return text, confidence
