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
