"""OCR in an indexing run: whether a file's folder lets it read scanned pages and images (settings, and whether
Tesseract can run here: found once per run), the pages of a content read before (kept by content hash and recipe,
so a copy, a touched file or a killed run never reads a page twice), and one page read now in the reader's child
and kept at once."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.child_process import CallAbandoned, ChildClosed, ChildFailed
from desktop_rag.core.files import ocr, parsers
from desktop_rag.core.files.scan import FoundFile
from desktop_rag.core.indexing.outcomes import FileOutcomes, Target
from desktop_rag.core.indexing.run_state import RunState


class OcrPages:
    def __init__(self, state: RunState, outcomes: FileOutcomes):
        self.state = state
        self.outcomes = outcomes
        self._setup: tuple[str, str] | str | None = None  # (languages, recipe), or why OCR cannot run; None: not yet

    def setup(self) -> tuple[str, str] | str:
        """(languages, recipe) OCR reads with, or the reason it cannot run; found once per run."""
        if self._setup is None:
            try:
                languages = ocr.languages_served(self.state.settings.ocr_languages)
                self._setup = (languages, ocr.recipe(languages))
            except ocr.OcrUnavailable as exc:
                self._setup = f"OCR is not available ({exc})"
                self.state.summary.notices.append(f"Scanned pages and images are not read: {exc}")
        return self._setup

    def allowed(self, path: Path) -> bool:
        return self.why_not(path) is None

    def why_not(self, path: Path) -> str | None:
        settings = self.state.settings
        if not settings.ocr:
            return "OCR is turned off (setting ocr)"
        if any(path.is_relative_to(Path(folder).expanduser()) for folder in settings.ocr_skip_folders):
            return "OCR is skipped in its folder (setting ocr_skip_folders)"
        setup = self.setup()
        return setup if isinstance(setup, str) else None

    def recognised(self, content_hash: str) -> dict[int, ocr.OcrPage]:
        """Pages of this content already read by OCR with the run's recipe (a copy, a touched file, a killed run)."""
        setup = self.setup()
        if isinstance(setup, str):  # OCR cannot run: its reason's second letter was taken for a recipe (mypy)
            return {}
        texts = self.state.catalog.ocr.ocr_texts(content_hash, setup[1])
        return {page: ocr.OcrPage(text, confidence, 0.0) for page, (text, confidence) in texts.items()}

    def recognize_page(self, where: FoundFile | Target, content_hash: str, suffix: str, page: int,
                       data: bytes) -> ocr.OcrPage | None:
        """One page read by OCR and kept; None when the file (or the document inside one, `where`) cannot be (its
        failure is recorded). A pause waits between pages, and cuts a page short (it is read again on resume)."""
        setup = self.setup()
        if isinstance(setup, str):  # OCR cannot run here (callers ask `allowed` first)
            return None
        languages, recipe = setup
        control = self.state.control
        while True:
            control.checkpoint()
            try:
                result = self.state.lib.document_reader.recognize(content_hash, suffix.lower(), page, languages, data,
                                                                  abandon=lambda: control.stopping)
                break
            except CallAbandoned:
                continue  # paused: the checkpoint waits; cancelled: it ends the run
            except ChildClosed:
                raise
            except (parsers.ParseError, ChildFailed, ocr.OcrUnavailable) as exc:
                transient = not isinstance(exc, parsers.ParseError) or isinstance(exc, parsers.TransientReadError)
                self.outcomes.fail(where, content_hash, str(exc), transient=transient)
                return None
        self.state.catalog.ocr.save_ocr_text(content_hash, recipe, page, result.text, result.confidence, result.seconds)
        return result
