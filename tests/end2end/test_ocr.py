"""Scanned pages and images, read by real OCR (Tesseract through tesserocr, the packaged English and Japanese
language files): pages are rendered from known text in the test, turned a little and grained like a scanner's."""

from __future__ import annotations

import os
import shutil
import signal

import pytest

from desktop_rag.config import Settings
from desktop_rag.documents import MEMBER_SEPARATOR
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.contexts.rules import RulesContextualizer
from desktop_rag.core.dense.tokens import default_embedding_model_path
from desktop_rag.core.files import ocr, parsers
from desktop_rag.core.files.reading import DocumentReader, ReaderProcess
from desktop_rag.core.indexing.run import Indexer
from desktop_rag.core.progress.control import RunControl
from desktop_rag.documents import RULES_FOR_LOW_OCR
from documents import LEASE, LEASE_JA, RECEIPT, png_bytes, recognise, scanned_image, write_pdf, write_scanned_pdf

# -- the engine ---------------------------------------------------------------------------------------------------


def test_english_and_japanese_scans_are_read_nearly_letter_for_letter():
    english = recognise(scanned_image(LEASE))
    assert "monthly rent is 1,450 euros" in " ".join(english.text.split())
    assert english.confidence > 0.85
    japanese = recognise(scanned_image(LEASE_JA, japanese=True))
    assert "毎月末日までに翌月分の家賃を支払う" in japanese.text  # no spaces left between the words
    assert japanese.confidence > 0.75


# -- parsing: which pages are scans ---------------------------------------------------------------------------------

def test_scanned_pdf_pages_are_listed_until_their_ocr_text_is_given(tmp_path):
    scan = write_scanned_pdf(tmp_path / "lease.pdf", [(LEASE, False), (LEASE_JA, True)])
    first = parsers.parse(scan, scan.read_bytes())
    assert first.scanned_pages == [1, 2] and first.text.strip() == ""
    read = {1: ocr.OcrPage("the English page", 0.93, 0.1), 2: ocr.OcrPage("日本語のページ", 0.88, 0.1)}
    second = parsers.parse(scan, scan.read_bytes(), read)
    assert second.scanned_pages == [] and second.ocr_confidence == {1: 0.93, 2: 0.88}
    assert second.text[second.page_starts[1]:] == "日本語のページ"
    typed = write_pdf(tmp_path / "typed.pdf", ["A typed page about herons and the fish they hunt."])
    assert parsers.parse(typed, typed.read_bytes()).scanned_pages == []


# -- indexing -------------------------------------------------------------------------------------------------------

@pytest.fixture
def scans(tmp_path):
    folder = tmp_path / "scans"
    folder.mkdir()
    write_scanned_pdf(folder / "lease.pdf", [(LEASE, False), (LEASE_JA, True)])
    scanned_image(RECEIPT, width_pt=220, height_pt=300, fontsize=11).save(folder / "receipt.png")
    from PIL import Image

    Image.new("RGB", (800, 600), "white").save(folder / "blank.png")
    (folder / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"not a photo" * 50)
    (folder / "notes.txt").write_text("Plain notes about the garden shed and its blue paint.", encoding="utf-8")
    return folder


def test_scans_and_images_are_found_by_their_words_at_their_page(make_library, scans):
    library = make_library(Settings(contexts="rules", llm_upgrade_when_idle=False))
    summary = library.index([scans])
    assert summary.indexed == 4, summary.failed  # lease, receipt, blank, notes
    assert [(os.path.basename(f.path), f.reason.split(":")[0]) for f in summary.failed] == \
        [("broken.jpg", "corrupt or unreadable image")]

    english = library.search("monthly rent 1,450 euros", k=3).hits[0]
    assert english.path.endswith("lease.pdf") and english.page == 1 and english.ocr_confidence > 0.85
    japanese = library.search("ペットの飼育は禁止", k=3).hits[0]
    assert japanese.path.endswith("lease.pdf") and japanese.page == 2 and japanese.ocr_confidence > 0.75
    receipt = library.search("TOTAL 11.70", k=3, mode="bm25").hits[0]
    assert receipt.path.endswith("receipt.png") and receipt.page == 1
    assert library.search("garden shed", k=1).hits[0].ocr_confidence is None  # typed text is not a scan

    blank = library.catalog.document(str(scans / "blank.png"))
    assert blank.status == "indexed" and blank.error is None
    assert library.catalog.ocr.ocr_confidence(blank.id) == {1: None}  # read, no word found
    totals = library.catalog.ocr.ocr_totals()
    assert totals["documents"] == 3 and totals["pages"] == 4 and totals["unread_pages"] == 0
    assert [r.ocr_confidence is not None for r in library.catalog.review.review_rows("scanned")] == [True] * 3


class ReaderRefusingOcr:
    """A fault injected for the test: reads files as the real reader does, but fails any OCR it is asked for."""

    def __init__(self, real):
        self.real = real
        self.counter = real.counter

    def read(self, *args, **kwargs):
        return self.real.read(*args)

    def recognize(self, *args, **kwargs):
        raise AssertionError("OCR ran again on a page already read")


def test_the_same_scan_is_never_read_by_ocr_twice(make_library, scans, tmp_path):
    library = make_library(Settings(contexts="rules", llm_upgrade_when_idle=False))
    library.index([scans])
    real = library.document_reader
    library.__dict__["document_reader"] = ReaderRefusingOcr(real)
    copies = tmp_path / "copies"
    copies.mkdir()
    shutil.copy(scans / "lease.pdf", copies / "lease-copy.pdf")  # a copy: the same content, a new file
    summary = library.index([copies])
    assert summary.indexed == 1 and not summary.failed
    assert library.search("ペットの飼育は禁止", k=5).hits[0].path in (str(scans / "lease.pdf"),
                                                                 str(copies / "lease-copy.pdf"))


class CancellingAfterOnePage:
    """A fault injected for the test: the run is cancelled (as by the person, or a kill) once one page is read."""

    def __init__(self, real, control: RunControl):
        self.real, self.control, self.pages = real, control, 0
        self.counter = real.counter

    def read(self, *args, **kwargs):
        return self.real.read(*args)

    def recognize(self, *args, **kwargs):
        self.pages += 1
        result = self.real.recognize(*args, **kwargs)
        self.control.cancel()
        return result


class CountingOcr(CancellingAfterOnePage):
    def recognize(self, *args, **kwargs):
        self.pages += 1
        return self.real.recognize(*args, **kwargs)


def test_a_run_stopped_during_ocr_keeps_its_pages_and_the_next_reads_only_the_rest(make_library, tmp_path):
    folder = tmp_path / "long-scan"
    folder.mkdir()
    write_scanned_pdf(folder / "minutes.pdf", [(f"Minutes of meeting number {n}: the roof repair costs {n}00 "
                                                "euros." , False) for n in range(1, 4)])
    library = make_library(Settings(contexts="rules", llm_upgrade_when_idle=False))
    real = library.document_reader
    control = RunControl()
    library.__dict__["document_reader"] = CancellingAfterOnePage(real, control)
    stopped = Indexer(library, RulesContextualizer(), control=control).run([folder])
    assert stopped.cancelled and library.catalog.document(str(folder / "minutes.pdf")) is None
    counting = CountingOcr(real, RunControl())
    library.__dict__["document_reader"] = counting
    summary = Indexer(library, RulesContextualizer()).run([folder])
    assert summary.indexed == 1 and counting.pages == 2  # pages 2 and 3; page 1 was kept
    library.indexes.sync()
    assert library.search("roof repair costs 300 euros", k=1).hits[0].page == 3


def test_ocr_off_or_skipped_folder_leaves_scans_unread_until_it_is_on(make_library, scans):
    library = make_library(Settings(contexts="rules", llm_upgrade_when_idle=False, ocr=False))
    summary = library.index([scans])
    assert summary.indexed == 1 and summary.skipped == 3  # notes.txt; the three images, not opened
    reasons = {os.path.basename(f.path): f.reason for f in summary.failed}
    assert reasons == {"lease.pdf": "only scanned pages, not read: OCR is turned off (setting ocr)"}
    assert library.catalog.ocr.ocr_totals()["unread_pages"] == 2

    library.settings.ocr = True
    library.settings.ocr_skip_folders = [str(scans)]
    assert library.index([scans]).indexed == 0  # still not here
    library.settings.ocr_skip_folders = []
    summary = library.index([scans])
    assert summary.indexed == 3 and summary.unchanged == 1  # lease, receipt, blank read now; notes as it was
    assert library.search("TOTAL 11.70", k=1, mode="bm25").hits[0].path.endswith("receipt.png")
    assert library.catalog.ocr.ocr_totals()["unread_pages"] == 0


class ContextualizerRecordingQuestions(Contextualizer):
    """A fake for orchestration: rules contexts, and a record of which chunks a model would have been asked about."""

    name = "llm"

    def __init__(self):
        self.rules = RulesContextualizer()
        self.asked: list = []

    def contextualize(self, document, chunks, only=None):
        self.asked.append(list(range(len(chunks))) if only is None else list(only))
        return self.rules.contextualize(document, chunks)


def test_garbled_ocr_text_gets_rules_contexts_that_no_upgrade_asks_about(make_library, tmp_path):
    folder = tmp_path / "faded"
    folder.mkdir()
    scan = write_scanned_pdf(folder / "faded.pdf", [(LEASE, False)])
    library = make_library(Settings(contexts="rules", llm_upgrade_when_idle=False))
    # The page as a faded carbon copy reads: what OCR would give, stored as its result for this content.
    import hashlib

    content_hash = hashlib.sha256(scan.read_bytes()).hexdigest()
    _, languages = ocr.find_languages(library.settings.ocr_languages)
    library.catalog.ocr.save_ocr_text(content_hash, ocr.recipe(languages), 1, "Lcase agrccmcnt bctwccn Hnrbor Lofts",
                                  0.41, 0.1)
    contextualizer = ContextualizerRecordingQuestions()
    Indexer(library, contextualizer).run([folder])
    assert contextualizer.asked == [[]]  # the model is asked about nothing
    [row] = library.catalog.review.review_rows()
    assert row.source == "rules" and row.ocr_confidence == 0.41
    assert library.catalog.contexts_awaiting_upgrade() == 0
    assert library.catalog.contexts.documents_with_rules_contexts() == []
    prompt_version = library.catalog._db.execute("SELECT prompt_version FROM contexts").fetchone()[0]
    assert prompt_version == RULES_FOR_LOW_OCR


class OcrCrashingReader(DocumentReader):
    """A fault injected for the test: OCR of a file named crash-* kills the reader's process, as a crash in the
    engine's C code would."""

    def recognize(self, content_hash, suffix, page, languages, data=None, abandon=None):
        if data is not None and b"CRASH-ME" in data[-64:]:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().recognize(content_hash, suffix, page, languages, data, abandon)


def test_ocr_in_the_reader_child_and_a_crash_costs_one_file(make_library, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    scanned_image(RECEIPT, width_pt=220, height_pt=300, fontsize=11).save(folder / "receipt.png")
    (folder / "crash-photo.png").write_bytes(png_bytes(scanned_image("Anything")) + b"CRASH-ME")
    library = make_library(Settings(contexts="rules", llm_upgrade_when_idle=False))
    library.__dict__["document_reader"] = ReaderProcess(default_embedding_model_path(), reader=OcrCrashingReader)
    try:
        summary = library.index([folder])
    finally:
        library.document_reader.close()
    assert summary.indexed == 1
    [failure] = summary.failed
    assert failure.path.endswith("crash-photo.png") and "the OCR engine crashed on page 1" in failure.reason
    assert library.search("TOTAL 11.70", k=1, mode="bm25").hits[0].path.endswith("receipt.png")


def test_the_cli_names_the_corrupt_image_and_shows_hits_on_scans_as_such(scans, data_dir):
    from cli_runner import cli, cli_json

    indexed = cli(data_dir, "index", str(scans), "--contexts", "rules")
    assert "4 files indexed" in indexed.stdout and "1 failed" in indexed.stdout
    assert "broken.jpg: corrupt or unreadable image" in indexed.stdout
    found = cli(data_dir, "search", "TOTAL 11.70", "--mode", "bm25", "-k", "1").stdout
    assert "receipt.png  page 1  (scanned page, OCR 0." in found
    top = cli_json(data_dir, "search", "monthly rent", "-k", "1", "--json")["results"][0]
    assert top["path"].endswith("lease.pdf") and top["page"] == 1 and top["ocr_confidence"] > 0.85
    assert "OCR:           4 scanned pages read in 3 files, mean confidence 0." in cli(data_dir, "stats").stdout


def test_a_phone_photo_in_heic_is_read(tmp_path):
    from pillow_heif import register_heif_opener

    register_heif_opener()  # to write one here: the app only reads them
    photo = tmp_path / "IMG_0042.HEIC"
    scanned_image(RECEIPT, width_pt=220, height_pt=300, fontsize=11).save(photo, format="HEIF", quality=90)
    document = parsers.parse(photo, photo.read_bytes())
    assert document.scanned_pages == [1]
    reader = DocumentReader(default_embedding_model_path())
    page = reader.recognize("heic-photo", ".heic", 1, "eng+jpn", photo.read_bytes())
    assert "TOTAL 11.70" in page.text and page.confidence > 0.8


def test_a_page_scanned_sideways_or_upside_down_is_read_the_right_way_up():
    upright = scanned_image(LEASE)
    for degrees in (90, 180):
        page = recognise(upright.rotate(degrees, expand=True, fillcolor="white"))
        assert "monthly rent is 1,450 euros" in " ".join(page.text.split()), degrees
        assert page.confidence > 0.85


def test_a_picture_inside_a_zip_and_one_attached_to_a_mail_are_read_by_ocr(make_library, tmp_path):
    from office_documents import message, write_zip

    folder = tmp_path / "docs"
    folder.mkdir()
    picture = png_bytes(scanned_image(RECEIPT, width_pt=220, height_pt=300, fontsize=11))
    write_zip(folder / "receipts.zip", {"2025/receipt.png": picture})
    (folder / "scan.eml").write_bytes(message("Your receipt", "The scan is attached.",
                                              attachments=[("receipt.png", picture)]))
    library = make_library(Settings(contexts="rules"))
    summary = library.index([folder])
    assert summary.failed == [] and summary.inside == 2
    hits = library.search('"Sourdough loaf"', k=5, mode="bm25").hits
    # Both read; the same picture in two places is one hit, the other place said under it (issue 60, 8).
    assert len(hits) == 1 and {hits[0].path, *hits[0].copies} == {
        f"{folder / 'receipts.zip'}{MEMBER_SEPARATOR}2025/receipt.png",
        f"{folder / 'scan.eml'}{MEMBER_SEPARATOR}receipt.png"}
    off = make_library(Settings(contexts="rules", ocr=False), folder=tmp_path / "data-ocr-off")
    assert off.index([folder]).failed == []  # with OCR off a picture inside is left out, not a failure


def test_a_picture_pasted_into_a_word_file_and_a_slide_is_read_by_ocr(make_library, tmp_path):
    """Issue 51, 2: a .docx whose only words on its topic were in a screenshot was not found by them."""
    import io

    import docx
    from docx.shared import Inches
    from pptx import Presentation
    from pptx.util import Inches as SlideInches

    folder = tmp_path / "office"
    folder.mkdir()
    screenshot = io.BytesIO()
    scanned_image("Happy New Year from the harbour office", width_pt=400, height_pt=120, fontsize=16).save(
        screenshot, format="PNG")
    report = docx.Document()
    report.add_paragraph("Greetings sent this week.")
    report.add_picture(io.BytesIO(screenshot.getvalue()), width=Inches(4))
    report.save(folder / "greetings.docx")
    whiteboard = io.BytesIO()
    scanned_image("Kayak rentals doubled in July", width_pt=400, height_pt=120, fontsize=16).save(
        whiteboard, format="PNG")
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Season review"
    slide.shapes.add_picture(io.BytesIO(whiteboard.getvalue()), SlideInches(1), SlideInches(2), SlideInches(6))
    deck.save(folder / "review.pptx")

    library = make_library(Settings(contexts="rules", llm_upgrade_when_idle=False))
    summary = library.index([folder])
    assert summary.indexed == 2 and summary.failed == []
    assert library.search("Happy New Year harbour", k=3, mode="bm25").hits[0].path.endswith("greetings.docx")
    assert library.search("kayak rentals doubled", k=3, mode="bm25").hits[0].path.endswith("review.pptx")
    assert library.catalog.ocr.ocr_totals()["unread_pages"] == 0
