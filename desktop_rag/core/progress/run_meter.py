"""How far an indexing run is, and how long the rest should take, from what the run has measured so far.

A run reads files (parse, chunk, contexts: time grows with a file's size) and embeds their chunks (time grows with
the text embedded, known only once a file is read). The meter plans with the sizes of the files to read, learns
both rates as it goes, and expects the unread files to give text in the proportion the read ones did. One number
for the whole run, where each phase's own bar restarted with every batch and so could give no ETA.

Embedding is paced per character, not per chunk: files are read smallest first, so the first chunks embedded are
short ones (a mail, a note) and a pace per chunk taken from them said "3 min left" of a run that had 10 (issue 37).

The share shown never goes back: when a new measurement says more is left (a slower pace, scanned pages found), the
shown share holds and moves on at the pace the new time left allows, reaching the end with the work; when the
work turns out faster, it catches up. Issue 37: a bar read 2% → 67% → 59% → 19% as OCR and embedding started.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# Before the first measurement (2 cores): ~50 chunks of ~1,000 characters embedded a second; reading runs at
# ~1 MB/s over a mix of PDFs and text. Replaced by what the run measures as soon as it has measured anything.
CHARS_PER_CHUNK_GUESS = 1000
EMBED_SECONDS_PER_CHAR_GUESS = 1 / (50 * CHARS_PER_CHUNK_GUESS)
READ_SECONDS_PER_BYTE_GUESS = 1e-6
CHUNKS_PER_BYTE_GUESS = 1 / 1000
OCR_SECONDS_PER_PAGE_GUESS = 2.0  # a full A4 page at 200 dpi on 2 cores (bench/ocr_indexing.py)


class RunMeter:
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._shown: float | None = None  # the share last reported (never less than before)
        self._shown_at = 0.0
        self.bytes_total = 0
        self.bytes_read = 0
        self.read_seconds = 0.0
        self.chunks_read = 0
        self.chars_read = 0  # of the chunks read: their text and context, what the embedder reads
        self.chunks_waiting_at_start = 0  # left by an earlier run: embedded by this one
        self.chunks_embedded = 0
        self.chars_embedded = 0
        self.embed_seconds = 0.0
        self.ocr_pages_total = 0  # scanned pages the run reads by OCR, once it has found them
        self.ocr_pages_read = 0
        self.ocr_seconds = 0.0
        self.planned = False

    def plan(self, sizes_to_read: list[int], chunks_waiting: int) -> None:
        self.bytes_total = sum(sizes_to_read)
        self.chunks_waiting_at_start = chunks_waiting
        self.planned = True

    def file_read(self, size: int, seconds: float) -> None:
        self.bytes_read += size
        self.read_seconds += seconds

    def stored(self, chunks: int, chars: int) -> None:
        """A document's chunks stored, waiting to be embedded: `chars` of text and context in all."""
        self.chunks_read += chunks
        self.chars_read += chars

    def plan_ocr(self, pages: int) -> None:
        self.ocr_pages_total += pages

    def page_recognised(self, seconds: float) -> None:
        self.ocr_pages_read += 1
        self.ocr_seconds += seconds

    def batch_embedded(self, chunks: int, chars: int, seconds: float) -> None:
        self.chunks_embedded += chunks
        self.chars_embedded += chars
        self.embed_seconds += seconds

    def chunks_expected(self) -> int:
        """Chunks the run will have embedded by its end: those read, and those the unread bytes should give."""
        chunks_per_byte = self.chunks_read / self.bytes_read if self.bytes_read else CHUNKS_PER_BYTE_GUESS
        unread = max(self.bytes_total - self.bytes_read, 0)
        return round(self.chunks_waiting_at_start + self.chunks_read + unread * chunks_per_byte)

    def chars_expected(self) -> float:
        """Characters the run will have embedded by its end, as chunks_expected() counts chunks."""
        chars_per_chunk = self.chars_read / self.chunks_read if self.chunks_read else CHARS_PER_CHUNK_GUESS
        chars_per_byte = self.chars_read / self.bytes_read if self.bytes_read else 1.0
        unread = max(self.bytes_total - self.bytes_read, 0)
        return self.chunks_waiting_at_start * chars_per_chunk + self.chars_read + unread * chars_per_byte

    def estimate(self) -> tuple[float | None, float | None]:
        """(share of the run done, seconds of work left); (None, None) before the run knows its files."""
        if not self.planned:
            return None, None
        read_rate = self.read_seconds / self.bytes_read if self.bytes_read else READ_SECONDS_PER_BYTE_GUESS
        embed_rate = self.embed_seconds / self.chars_embedded if self.chars_embedded else EMBED_SECONDS_PER_CHAR_GUESS
        ocr_rate = self.ocr_seconds / self.ocr_pages_read if self.ocr_pages_read else OCR_SECONDS_PER_PAGE_GUESS
        bytes_left = max(self.bytes_total - self.bytes_read, 0)
        left = (bytes_left * read_rate + max(self.chars_expected() - self.chars_embedded, 0) * embed_rate
                + max(self.ocr_pages_total - self.ocr_pages_read, 0) * ocr_rate)
        done = self.read_seconds + self.embed_seconds + self.ocr_seconds
        if done + left <= 0:
            return 1.0, 0.0
        return done / (done + left), left

    def progress(self) -> tuple[float | None, float | None]:
        """(share done to show, seconds left): the estimate's time left, and a share that only grows; (0, None)
        while the files are being listed (a view falling back on the scan's own count showed 100%, then 0%)."""
        fraction, left = self.estimate()
        if fraction is None or left is None:
            return 0.0, None
        now = self._clock()
        if self._shown is None:
            self._shown = fraction
        else:
            # Of what is left to show, the part that the time since the last report is of the time still left.
            elapsed = now - self._shown_at
            paced = self._shown + (1.0 - self._shown) * (elapsed / (elapsed + left) if elapsed + left > 0 else 1.0)
            self._shown = min(1.0, max(paced, fraction))
        self._shown_at = now
        return self._shown, left
