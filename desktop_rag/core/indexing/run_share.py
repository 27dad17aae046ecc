"""A run over folders picks up the bar where the last one left it (issue 60: the bar went back to 0% after a service
restart and after a re-scan, although the work done was kept).

Two things carry over. The work kept: the run's files read before and unchanged, and their passages already
searchable by meaning, count as done (RunMeter.plan's `kept`). And the share shown: while it runs, a run keeps in
the catalog the share it shows and the work it has left; a run that starts with no more than that left (its
files to read no more bytes, its passages to embed no more than expected) takes over that share (RunMeter.resume_from)
— a service killed at 60% starts again at 60%, not at the share its guessed rates would give the kept work. A run
that finds work added starts from the kept work alone, and so may show less.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from desktop_rag.core.progress.run_meter import RunMeter
from desktop_rag.storage.catalog import Catalog

# The state is kept at most this often while a run goes (a write of a few bytes to the catalog): a kill loses at
# most this much of the share, which the next run makes up at its own pace.
REMEMBER_EVERY_S = 2.0
# Passages made since the share was last kept (≤ REMEMBER_EVERY_S of reading, beyond what the unread files were
# expected to give) are the same work, not work added: a margin over the kept count, so that a kill mid-reading
# still takes the share over.
PASSAGES_MARGIN = 1.25
PASSAGES_MARGIN_ABOVE = 50
# A share taken over stays below the end while anything waits: 100% is said only when nothing of the run is left.
SHARE_TAKEN_AT_MOST = 0.99


class RunShare:
    """The bridge between one run's meter and the next run's: what the catalog keeps of the share shown."""

    def __init__(self, catalog: Catalog, meter: RunMeter, clock: Callable[[], float] = time.monotonic):
        self._catalog = catalog
        self._meter = meter
        self._clock = clock
        self._kept_at: float | None = None
        self._folders: list[str] = []

    def plan(self, files_to_read: list[tuple[int, str]], chunks_waiting: int, kept_bytes: int,
             folders: Sequence[str]) -> None:
        """The meter planned with the work kept under `folders`, and the last run's share taken over if this run
        has no more to do than that one left."""
        work = self._catalog.run_work
        self._meter.plan(files_to_read, chunks_waiting, kept_bytes=kept_bytes,
                         kept_chunks=work.embedded_chunks_under(folders),
                         pieces_waiting=work.pending_pieces() if chunks_waiting else 0)
        self._folders = sorted(folders)
        last = work.run_left()
        bytes_left, passages_left = last.get("bytes_left", 0), last.get("passages_left", 0)
        if not (bytes_left or passages_left):
            return  # the last run ended with nothing left (or there was none): the kept work says it all
        if not set(last.get("folders", ())) <= set(folders):
            return  # another folder's run: its share is not this one's (a catch-up covers every folder)
        if (self._meter.bytes_total <= bytes_left
                and chunks_waiting <= passages_left * PASSAGES_MARGIN + PASSAGES_MARGIN_ABOVE):
            self._meter.resume_from(min(float(last.get("share", 0.0)), SHARE_TAKEN_AT_MOST))

    def shown(self, share: float | None) -> None:
        """The share the run shows now: kept every REMEMBER_EVERY_S."""
        if share is None or not self._meter.planned:
            return
        now = self._clock()
        if self._kept_at is None or now - self._kept_at >= REMEMBER_EVERY_S:
            self._kept_at = now
            self._remember(share, *self._meter.work_left())

    def cancelled(self, share: float | None) -> None:
        """Cancelled (or paused and quit): the share and work left as they are now, for the run that goes on."""
        if share is not None and self._meter.planned:
            self._remember(share, *self._meter.work_left())

    def ended(self, share: float | None) -> None:
        """The run came to its end: with nothing waiting, the next run starts from the work kept alone; with
        passages left to embed (no embedding model), it takes over this share."""
        waiting = self._catalog.count_pending_embeddings()
        self._remember(share or 0.0, 0, waiting) if waiting else self._remember(1.0, 0, 0)

    def _remember(self, share: float, bytes_left: int, passages_left: int) -> None:
        self._catalog.run_work.remember_run_left({"share": round(share, 4), "bytes_left": bytes_left,
                                                  "passages_left": passages_left, "folders": self._folders})
