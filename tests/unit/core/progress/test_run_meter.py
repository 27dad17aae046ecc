"""The whole run's share done and time left (core/progress/run_meter.py), from what a run has measured: plain arithmetic,
no files."""

from desktop_rag.core.progress.run_meter import CHARS_PER_CHUNK_GUESS, RunMeter


def test_the_estimate_follows_measured_rates_and_expects_text_in_proportion_to_bytes():
    meter = RunMeter()
    assert meter.estimate() == (None, None)  # before the files are known: no claim
    assert meter.progress() == (0.0, None)  # what a view shows meanwhile: nothing done, no time promised
    meter.plan([1000, 3000], chunks_waiting=0)
    fraction, left = meter.estimate()
    assert fraction == 0 and left > 0

    meter.file_read(1000, seconds=2.0)  # 2 ms per byte
    meter.stored(10, chars=900)  # 1 chunk per 100 bytes, 90 characters each
    assert meter.chunks_expected() == 40
    meter.batch_embedded(10, chars=900, seconds=1.0)  # 0.1 s per chunk
    fraction, left = meter.estimate()
    assert left == 3000 * 0.002 + 30 * 0.1  # the unread file, then its 30 expected chunks
    assert fraction == 3.0 / (3.0 + left)

    meter.file_read(3000, seconds=6.0)
    meter.stored(30, chars=2700)
    meter.batch_embedded(30, chars=2700, seconds=3.0)
    assert meter.estimate() == (1.0, 0.0)


def test_embedding_is_paced_by_the_text_left_so_short_chunks_first_do_not_make_it_look_quick():
    """Issue 37: files go smallest first, so the first chunks embedded are short; paced per chunk, a run of 10
    minutes said "3 min left"."""
    meter = RunMeter()
    meter.plan([1000, 100_000], chunks_waiting=0)
    meter.file_read(1000, seconds=0.0)
    meter.stored(10, chars=1000)  # ten mails of 100 characters
    meter.file_read(100_000, seconds=0.0)
    meter.stored(100, chars=100_000)  # a book: a hundred chunks of 1,000
    meter.batch_embedded(10, chars=1000, seconds=1.0)  # the mails: 0.1 s each, 1 ms per character
    assert meter.estimate()[1] == 100_000 * 0.001  # not 100 chunks × 0.1 s


def test_scanned_pages_found_during_the_run_add_their_ocr_time_at_the_measured_rate():
    meter = RunMeter()
    meter.plan([1000], chunks_waiting=0)
    meter.file_read(1000, seconds=1.0)  # a scan: read in a second, no text yet
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
    from fake_models import FakeClock

    clock = FakeClock()
    meter = RunMeter(clock=clock)
    meter.plan([1000], chunks_waiting=0)
    meter.file_read(1000, seconds=10.0)  # read; 100 chunks to embed at the guessed 0.02 s each
    meter.stored(100, chars=100 * CHARS_PER_CHUNK_GUESS)
    clock.now += 10
    before, left = meter.progress()
    assert before == meter.estimate()[0] > 0.8 and left == 100 * 0.02
    meter.batch_embedded(2, chars=2 * CHARS_PER_CHUNK_GUESS, seconds=2.0)  # the real pace: 1 s a chunk, 98 s left
    clock.now += 2
    shown, left = meter.progress()
    assert left == 98.0
    assert meter.estimate()[0] < before  # the arithmetic goes back…
    assert before <= shown < before + 0.01  # …the bar does not, and moves on by what 2 s are of 100
    previous = shown
    for _ in range(97):
        meter.batch_embedded(1, chars=CHARS_PER_CHUNK_GUESS, seconds=1.0)
        clock.now += 1
        shown, left = meter.progress()
        assert shown >= previous
        previous = shown
    assert left == 1.0 and 0.98 < shown < 1.0  # in step with the time left, close to the end
    meter.batch_embedded(1, chars=CHARS_PER_CHUNK_GUESS, seconds=1.0)
    clock.now += 1
    assert meter.progress() == (1.0, 0.0)


def test_work_found_faster_than_expected_moves_the_bar_up_at_once():
    from fake_models import FakeClock

    clock = FakeClock()
    meter = RunMeter(clock=clock)
    meter.plan([1000, 1000], chunks_waiting=0)
    assert meter.progress()[0] == 0
    meter.file_read(1000, seconds=0.1)  # far faster than the first guess of a second per MB
    clock.now += 0.1
    assert meter.progress()[0] == meter.estimate()[0]
