"""What any OCR engine gives back for a page (Tesseract's in ocr.py, Apple Vision's in ocr_vision.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop_rag.core.text.scripts import UNSPACED_CLASS
from desktop_rag.errors import UserError

# Engines put a space between the "words" they find in Japanese and Chinese, which have none.
_WORD_SPACE_IN_CJK = re.compile(f"(?<=[{UNSPACED_CLASS}]) +(?=[{UNSPACED_CLASS}])")


class OcrUnavailable(UserError):
    """The OCR engine or its language files are missing: scanned pages cannot be read until they are installed."""


@dataclass(frozen=True)
class OcrPage:
    text: str
    confidence: float | None  # the words' mean confidence, 0–1; None when no word was found
    seconds: float


def tidy(text: str) -> str:
    """An engine's text as a person would type it: no spaces inside Japanese, no trailing blanks, no form feed."""
    lines = [_WORD_SPACE_IN_CJK.sub("", line).rstrip() for line in text.replace("\f", "").splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
