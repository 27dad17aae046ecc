"""The whole run's share done and time left (core/runs/run_meter.py), from what a run has measured: plain arithmetic,
no files."""

from desktop_rag.core.runs.run_meter import RunMeter


def test_the_estimate_follows_measured_rates_and_expects_chunks_in_proportion_to_bytes():
    meter = RunMeter()
    assert meter.estimate() == (None, None)  # before the files are known: no claim
    meter.plan([1000, 3000], chunks_waiting=0)
    fraction, left = meter.estimate()
    assert fraction == 0 and left > 0

    meter.file_read(1000, chunks=10, seconds=2.0)  # 2 ms per byte, 1 chunk per 100 bytes
    assert meter.chunks_expected() == 40
    meter.batch_embedded(10, seconds=1.0)  # 0.1 s per chunk
    fraction, left = meter.estimate()
    assert left == 3000 * 0.002 + 30 * 0.1  # the unread file, then its 30 expected chunks
    assert fraction == 3.0 / (3.0 + left)

    meter.file_read(3000, chunks=30, seconds=6.0)
    meter.batch_embedded(30, seconds=3.0)
    assert meter.estimate() == (1.0, 0.0)


def test_scanned_pages_found_during_the_run_add_their_ocr_time_at_the_measured_rate():
    meter = RunMeter()
    meter.plan([1000], chunks_waiting=0)
    meter.file_read(1000, chunks=0, seconds=1.0)  # a scan: read in a second, no text yet
    assert meter.estimate() == (1.0, 0.0)
    meter.plan_ocr(10)
    fraction, left = meter.estimate()
    assert fraction < 0.5 and left == 10 * 2.0  # the first guess: two seconds per page
    meter.page_recognised(0.25)
    fraction, left = meter.estimate()
    assert left == 9 * 0.25 and fraction == 1.25 / (1.25 + left)
