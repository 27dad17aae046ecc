"""Images (a photographed receipt, a phone's HEIC photo, a scanned letter saved as PNG, a multi-page TIFF fax): read
by Pillow (HEIC through pillow-heif), one page per frame, their text from OCR. Without OCR text yet, every page is
listed in `scanned_pages` for the indexer."""

from __future__ import annotations

import io
import warnings
from collections.abc import Mapping

from desktop_rag.core.files.ocr import OcrPage
from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.documents import ParsedDocument

EXTENSIONS = frozenset(".png .jpg .jpeg .tif .tiff .webp .bmp .gif .heic .heif".split())
PAGE_SEPARATOR = "\n\n"
# Pillow refuses images above twice this many pixels as "decompression bombs" and warns above it: a 200 MP
# panorama is still read (scaled down for OCR), a crafted 40,000² PNG is refused.
MAX_IMAGE_PIXELS = 200_000_000


def open_image(data: bytes):
    """The image, checked: decoding it fully finds a damaged file now, not in the middle of OCR."""
    from PIL import Image, UnidentifiedImageError

    _read_heif()
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            image.load()
    except UnidentifiedImageError:
        # (Said of its content, not its name: a .heic that pillow-heif could not decode was told ".heic is not a
        # picture format desktop-rag reads", a format it claims: issue 61.)
        raise ParseError("corrupt or unreadable image: its content is not a picture desktop-rag can decode (a "
                         "damaged file, or a variant of its format the picture reader does not know; save it as PNG "
                         "or JPEG to have its text read)") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ParseError(f"image too large to read (over {MAX_IMAGE_PIXELS // 1_000_000} million pixels)") from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:  # what Pillow raises for a truncated or damaged file
        raise unreadable("corrupt or unreadable image", exc) from None
    return image


def _read_heif() -> None:
    """Pillow reads HEIC and HEIF once pillow-heif has registered them (idempotent)."""
    try:
        from pillow_heif import register_heif_opener
    except ImportError:  # HEIC photos then fail as pictures it cannot decode
        return
    register_heif_opener()


def parse_image(data: bytes, stem: str, ocr: Mapping[int, OcrPage] | None = None) -> ParsedDocument:
    ocr = ocr or {}
    image = open_image(data)
    pages = getattr(image, "n_frames", 1)
    parts: list[str] = []
    page_starts: list[int] = []
    scanned: list[int] = []
    confidence: dict[int, float | None] = {}
    length = 0
    for number in range(1, pages + 1):
        if parts:
            parts.append(PAGE_SEPARATOR)
            length += len(PAGE_SEPARATOR)
        page_starts.append(length)
        if number in ocr:
            text, confidence[number] = ocr[number].text, ocr[number].confidence
        else:
            text = ""
            scanned.append(number)
        parts.append(text)
        length += len(text)
    # An image has no title of its own: its name says more than whatever OCR reads first.
    return ParsedDocument(text="".join(parts), title=stem, parser="image", page_starts=page_starts,
                          scanned_pages=scanned, ocr_confidence=confidence)


def frame_pixels(image, number: int):
    """Page `number` (1-based) of an opened image as greyscale pixels, upright (a phone's EXIF rotation applied),
    scaled for OCR: (bytes, width, height, stride)."""
    from PIL import Image, ImageOps

    from desktop_rag.core.files.ocr import render_scale

    image.seek(number - 1)
    frame = ImageOps.exif_transpose(image)
    if frame.mode in ("RGBA", "LA", "PA") or "transparency" in frame.info:
        # On white, as a viewer shows it: dropping the alpha turns a transparent background black, like the text.
        frame = frame.convert("RGBA")
        background = Image.new("RGBA", frame.size, (255, 255, 255, 255))
        frame = Image.alpha_composite(background, frame)
    frame = frame.convert("L")
    scale = render_scale(frame.width, frame.height, native_px=(frame.width, frame.height))
    if abs(scale - 1) > 0.01:
        frame = frame.resize((max(1, round(frame.width * scale)), max(1, round(frame.height * scale))),
                             Image.Resampling.LANCZOS)
    return frame.tobytes(), frame.width, frame.height, frame.width
