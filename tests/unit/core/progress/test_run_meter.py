"""The whole run's share done and time left (core/progress/run_meter.py), from what a run has measured: plain arithmetic,
no files."""

import pytest

from desktop_rag.core.progress import run_meter
from desktop_rag.core.progress.run_meter import PIECES_PER_CHUNK_GUESS, PRIOR_BYTES, RunMeter


@pytest.fixture
def without_priors(monkeypatch):
    """Each kind's yield from its files alone: the arithmetic in round numbers."""
    monkeypatch.setattr(run_meter, "PRIOR_BYTES", 0)


def test_the_estimate_follows_measured_rates_and_expects_text_in_proportion_to_bytes(without_priors):
    meter = RunMeter()
    assert meter.estimate() == (None, None)  # before the files are known: no claim
    assert meter.progress() == (None, None)  # what a view shows meanwhile: not known yet (0% went back on a re-scan)
    meter.plan([(1000, ".txt"), (3000, ".txt")], chunks_waiting=0)
    fraction, left = meter.estimate()
    assert fraction == 0 and left > 0

    meter.stored(10, pieces=900)  # 1 chunk per 100 bytes, 90 pieces each
    meter.file_read(1000, seconds=2.0, kind=".txt")  # 2 ms per byte
    assert meter.chunks_expected() == 40
    meter.batch_embedded(10, pieces=900, seconds=1.0)  # 0.1 s per chunk
    fraction, left = meter.estimate()
    assert left == pytest.approx(3000 * 0.002 + 30 * 0.1)  # the unread file, then its 30 expected chunks
    assert fraction == pytest.approx(3.0 / (3.0 + left))

    meter.stored(30, pieces=2700)
    meter.file_read(3000, seconds=6.0, kind=".txt")
    meter.batch_embedded(30, pieces=2700, seconds=3.0)
    assert meter.estimate() == (1.0, 0.0)


def test_embedding_is_paced_by_word_pieces_so_short_chunks_first_do_not_mislead_it():
    """Files go smallest first, so the first chunks embedded are short. Paced per chunk, a run of 10 minutes said
    "3 min left" (issue 37). A chunk's cost follows its word pieces (bench/embedding_cost.py: 9 ms at 40 pieces,
    53 ms at 227)."""
    meter = RunMeter()
    meter.plan([(1000, ".txt")], chunks_waiting=0)
    meter.stored(10, pieces=400)  # ten mails of 40 pieces
    meter.stored(100, pieces=20_000)  # a book: a hundred chunks of 200
    meter.file_read(1000, seconds=0.0, kind=".txt")
    meter.batch_embedded(10, pieces=400, seconds=1.0)  # the mails: 0.1 s each, 2.5 ms a piece
    assert meter.estimate()[1] == pytest.approx(20_000 * 1.0 / 400)  # 50 s, not 100 chunks × 0.1 s


def test_small_text_files_read_first_do_not_make_the_pdfs_after_them_look_full_of_text():
    """Smallest first, the text files and mails come before the PDFs and pictures, which give a tenth of the text
    per byte or none: expected in the text files' proportion, the embedding left looked several times longer."""
    meter = RunMeter()
    meter.plan([*[(10_000, ".txt")] * 10, (1_000_000, ".pdf"), (1_000_000, ".pdf"), (2_000_000, ".JPG")],
               chunks_waiting=0)
    for _ in range(10):
        meter.stored(12, pieces=2_500)  # 0.25 pieces a byte
        meter.file_read(10_000, seconds=0.01, kind=".txt")
    pdf, photo = run_meter.TEXT_YIELD_PRIORS[".pdf"], run_meter.TEXT_YIELD_PRIORS[".jpg"]

    def pieces_left() -> float:
        return meter.embedding_left()

    assert pieces_left() == pytest.approx(25_000 + 2_000_000 * pdf + 2_000_000 * photo)
    assert pieces_left() < 0.2 * (25_000 + 4_000_000 * 0.25)  # what one proportion for all expected

    meter.stored(40, pieces=8_000)  # the first PDF gave less than its prior: the second is expected to follow it
    meter.file_read(1_000_000, seconds=2.0, kind=".pdf")
    pdf_now = (8_000 + pdf * PRIOR_BYTES) / (1_000_000 + PRIOR_BYTES)
    assert pdf_now < pdf
    assert pieces_left() == pytest.approx(33_000 + 1_000_000 * pdf_now + 2_000_000 * photo)


def test_reading_is_paced_per_kind_once_a_kind_has_been_read(without_priors):
    meter = RunMeter()
    meter.plan([(1000, ".txt"), (1000, ".txt"), (100_000, ".pdf"), (100_000, ".pdf")], chunks_waiting=0)
    meter.file_read(1000, seconds=0.001, kind=".txt")  # a text: a microsecond a byte
    assert meter.estimate()[1] == pytest.approx(201_000 * 1e-6 + meter.embedding_left() * run_meter.EMBED_SECONDS_PER_PIECE_GUESS)
    meter.file_read(100_000, seconds=1.0, kind=".pdf")  # a PDF: 10 µs a byte
    _, left = meter.estimate()
    assert left == pytest.approx(1000 * 1e-6 + 100_000 * 1e-5)


def test_scanned_pages_found_during_the_run_add_their_ocr_time_at_the_measured_rate():
    meter = RunMeter()
    meter.plan([(1000, ".txt")], chunks_waiting=0)
    meter.file_read(1000, seconds=1.0, kind=".txt")  # a scan: read in a second, no text yet
    assert meter.estimate() == (1.0, 0.0)
    meter.plan_ocr(10)
    fraction, left = meter.estimate()
    assert fraction < 0.5 and left == 10 * 2.0  # the first guess: two seconds per page
    meter.page_recognised(0.25)
    fraction, left = meter.estimate()
    assert left == 9 * 0.25 and fraction == 1.25 / (1.25 + left)


def test_the_share_shown_never_goes_back_and_reaches_the_end_with_the_work():
    """Issue 37: a bar read 2% → 67% → 59% → 19% as OCR and embedding started (their real pace far slower than
    the first guess). The shown share holds when more is found left, and moves on at the new time left's pace."""
    meter = RunMeter()
    meter.plan([(1000, ".txt")], chunks_waiting=0)
    meter.file_read(1000, seconds=10.0, kind=".txt")  # read; 100 chunks to embed at the guessed 0.02 s each
    meter.stored(100, pieces=100 * PIECES_PER_CHUNK_GUESS)
    before, left = meter.progress()
    assert before == meter.estimate()[0] > 0.8 and left == 100 * 0.02
    meter.batch_embedded(2, pieces=2 * PIECES_PER_CHUNK_GUESS, seconds=2.0)  # the real pace: 1 s a chunk, 98 s left
    shown, left = meter.progress()
    assert left == pytest.approx(98.0)
    assert meter.estimate()[0] < before  # the arithmetic goes back…
    assert before <= shown < before + 0.01  # …the bar does not, and moves on by what 2 s are of 100
    previous = shown
    for _ in range(97):
        meter.batch_embedded(1, pieces=PIECES_PER_CHUNK_GUESS, seconds=1.0)
        shown, left = meter.progress()
        assert shown >= previous
        previous = shown
    assert left == 1.0 and 0.98 < shown < 1.0  # in step with the time left, close to the end
    meter.batch_embedded(1, pieces=PIECES_PER_CHUNK_GUESS, seconds=1.0)
    assert meter.progress() == (1.0, 0.0)


def test_the_bar_holds_while_no_work_is_done():
    """A first run's 305 small files, their work guessed at seconds, with nothing measured yet: the bar,
    paced by the clock against that guess, read 95% with no file read. It moves by work done, not time passed."""
    meter = RunMeter()
    meter.plan([(2_000, ".txt")] * 305, chunks_waiting=0)
    first, left = meter.progress()
    assert first == 0 and left > 0
    for _ in range(20):  # (however long apart)
        assert meter.progress()[0] == 0
    meter.file_read(2_000, seconds=0.5, kind=".txt")
    assert 0 < meter.progress()[0] < 0.5


def test_work_found_faster_than_expected_moves_the_bar_up_at_once():
    meter = RunMeter()
    meter.plan([(1000, ".txt"), (1000, ".txt")], chunks_waiting=0)
    assert meter.progress()[0] == 0
    meter.file_read(1000, seconds=0.1, kind=".txt")  # far faster than the first guess of a second per MB
    assert meter.progress()[0] == meter.estimate()[0]


def test_the_chunks_still_waiting_are_never_forgotten_when_the_pieces_counted_ran_out(without_priors):
    """The pieces a run expects are counted as documents are stored, contexts estimated; when the embedder read
    more than that, the count ran out with chunks still waiting and the bar said "about 1 s left" for 30 s."""
    meter = RunMeter()
    meter.plan([(1000, ".txt")], chunks_waiting=0)
    meter.stored(100, pieces=10_000)
    meter.file_read(1000, seconds=1.0, kind=".txt")
    meter.batch_embedded(90, pieces=10_800, seconds=90.0)  # 120 pieces a chunk, not the 100 counted
    assert meter.embedding_left() == pytest.approx(10 * 120)  # the ten chunks left, at what a chunk took
    assert meter.estimate()[1] == pytest.approx(10.0)


def test_work_kept_from_earlier_runs_counts_as_done_at_this_runs_rates(without_priors):
    meter = RunMeter()
    meter.plan([(1000, ".txt")], chunks_waiting=0, kept_bytes=9000, kept_chunks=0)
    meter.stored(10, pieces=900)
    meter.file_read(1000, seconds=1.0, kind=".txt")  # 1 ms a byte: the 9,000 kept bytes are 9 s of reading done
    meter.batch_embedded(10, pieces=900, seconds=1.0)
    assert meter.estimate() == (1.0, 0.0)
    meter = RunMeter()
    meter.plan([(1000, ".txt")], chunks_waiting=0, kept_bytes=9000)
    meter.stored(10, pieces=900)
    meter.file_read(1000, seconds=1.0, kind=".txt")
    fraction, left = meter.estimate()  # the 10 chunks to embed at the guess
    assert fraction == pytest.approx(10.0 / (10.0 + left))


def test_a_share_taken_over_holds_and_moves_on_at_the_pace_of_the_work_left():
    """resume_from: the share an interrupted run showed. It is shown at once, holds while nothing is done, and the
    next report moves it by the work since then over the work left (paced by the clock's whole reading, it jumped
    to 100%)."""
    meter = RunMeter()
    meter.plan([(1_000_000, ".txt"), (1_000_000, ".txt")], chunks_waiting=0)
    meter.resume_from(0.6)
    shown, left = meter.progress()
    assert shown == pytest.approx(0.6) and left > 1
    assert meter.progress()[0] == pytest.approx(0.6)
    meter.file_read(1_000_000, seconds=1.0, kind=".txt")
    later, left_later = meter.progress()
    assert 0.6 < later <= 0.6 + 0.4 * 1.0 / (1.0 + left_later) + 1e-9


def test_a_run_taking_over_maps_its_own_work_onto_the_rest_of_the_bar(without_priors):
    """Its own work, not the work kept at its first guessed rates: a service killed at 41% started again at 50%."""
    meter = RunMeter()
    meter.plan([], chunks_waiting=100, kept_bytes=36_000_000, kept_chunks=3_360, pieces_waiting=10_000)
    meter.resume_from(0.41)
    assert meter.estimate()[0] == pytest.approx(0.41)
    meter.batch_embedded(50, pieces=5_000, seconds=10.0)  # half its own work
    assert meter.estimate()[0] == pytest.approx(0.41 + 0.59 * 0.5)
