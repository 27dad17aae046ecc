"""How far an indexing run is, and how long the rest should take, from what the run has measured so far.

A run reads files (parse, chunk, contexts: time grows with a file's size) and embeds their chunks (time grows with
the text embedded, known only once a file is read). The meter plans with the sizes and kinds of the files to read,
learns both rates as it goes, and expects the unread files to give text as the read ones of their kind did. One number
for the whole run, where each phase's own bar restarted with every batch and so could give no ETA.

Embedding is paced per word piece the embedder reads (what it costs: bench/embedding_cost.py, 2 cores, idle:
9.1 ms for a chunk of 40 pieces, 53 ms for one of 227, no fixed cost per chunk to speak of). Files are read
smallest first, so the first chunks embedded are short ones (a mail, a note): a pace per chunk taken from them said
"3 min left" of a run that had 10 (issue 37). Pieces, not characters: a Japanese character is a piece, an English
one a quarter of one.

The text to come is expected per kind of file (its extension): a megabyte of PDF gives a tenth of the word pieces
a megabyte of plain text does, a photo none. The small files read first are mostly text and mail; expecting the
PDFs after them to give text in the same proportion made the embedding left look several times longer than it was.
Each kind starts from a prior (TEXT_YIELD_PRIORS) worth PRIOR_BYTES of reading and follows what its files gave.

The share shown never goes back: when a new measurement says more is left (a slower pace, scanned pages found), the
shown share holds and moves on by the work done against the new time left, reaching the end with the work; when
the work turns out faster, it catches up. Issue 37: a bar read 2% → 67% → 59% → 19% as OCR and embedding started.
Work done, not time passed: paced by the clock against a first run's guessed seconds, the bar read 95% with none of
its 305 files read, as long as nothing was measured yet (a model loading, a first big file parsing).

Nor does it go back when a run starts over what an earlier one kept (issue 60: 0% after a re-scan and after a
service restart, with most of the work done): the files of the run's folders read before and unchanged, and their
passages already searchable by meaning, count as done (`kept`), timed at this run's rates; and a run that takes over
an interrupted one's work, nothing added, starts at the share that one showed (`resume_from`).
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_rag.core.files.parsers.formats import DENSE, MARKUP, PLAIN, text_yields

# Before the first measurement (2 cores): ~50 chunks of ~200 word pieces embedded a second; reading runs at
# ~1 MB/s over a mix of PDFs and text. Replaced by what the run measures as soon as it has measured anything.
PIECES_PER_CHUNK_GUESS = 200
READ_SECONDS_PER_BYTE_GUESS = 1e-6
OCR_SECONDS_PER_PAGE_GUESS = 2.0  # a full A4 page at 200 dpi on 2 cores (bench/ocr_indexing.py)
EMBED_SECONDS_PER_PIECE_GUESS = 1 / (50 * PIECES_PER_CHUNK_GUESS)
# Word pieces a byte of a file gives, by kind, before the run has read any of that kind: each format's own
# (core/files/parsers/formats.py), and those of files no format reads by its name — text sniffed as such, markup
# read as text, archives and mailboxes (their members count as their own kinds once read).
TEXT_YIELD_PRIORS = {
    **dict.fromkeys((".json", ".log", ".tex", ".org"), PLAIN), **dict.fromkeys((".xml", ".svg"), MARKUP),
    **dict.fromkeys((".mbox", ".zip", ".tar", ".gz", ".7z"), DENSE), **text_yields(),
}
TEXT_YIELD_OTHER = 0.05
PRIOR_BYTES = 256_000  # how much reading a prior is worth: the first 250 KB of a kind move it halfway


@dataclass
class _Kind:
    """What the files of one kind (extension) planned and read have given so far."""
    bytes_total: int = 0
    bytes_read: int = 0
    read_seconds: float = 0.0
    chunks: int = 0
    pieces: int = 0

    def unread(self) -> int:
        return max(self.bytes_total - self.bytes_read, 0)


def _moved(prior: float, measured: float, bytes_read: int) -> float:
    """A rate per byte: the prior, worth PRIOR_BYTES, moved by what `bytes_read` bytes measured."""
    weight = bytes_read + PRIOR_BYTES
    return (measured + prior * PRIOR_BYTES) / weight if weight else prior


class RunMeter:
    def __init__(self) -> None:
        self._shown: float | None = None  # the share last reported (never less than before)
        self._shown_after = 0.0  # seconds of work measured when it was reported
        self._kinds: dict[str, _Kind] = {}
        self.bytes_total = 0
        self.bytes_read = 0
        self.read_seconds = 0.0
        self.chunks_read = 0
        self.pieces_read = 0  # of the chunks read: the word pieces of their text and context, what the embedder reads
        self._file_chunks = self._file_pieces = 0  # of the file being read, until file_read says its kind
        self.chunks_waiting_at_start = 0  # left by an earlier run: embedded by this one
        self.pieces_waiting_at_start: int | None = None  # their word pieces, when the catalog counted them
        self.chunks_embedded = 0
        self.pieces_embedded = 0
        self.embed_seconds = 0.0
        self.ocr_pages_total = 0  # scanned pages the run reads by OCR, once it has found them
        self.ocr_pages_read = 0
        self.ocr_seconds = 0.0
        self.kept_bytes = 0  # of the run's files, those read before and unchanged: done before the run began
        self.kept_chunks = 0  # and their chunks already embedded
        self._resumed: float | None = None  # the share an interrupted run showed, taken over (resume_from)
        self.planned = False

    def plan(self, files_to_read: list[tuple[int, str]], chunks_waiting: int, kept_bytes: int = 0,
             kept_chunks: int = 0, pieces_waiting: int | None = None) -> None:
        """The files the run reads, as (size, kind: the name's extension), the chunks an earlier run left (and
        their word pieces, when known), and the work earlier runs did on the run's files (bytes of the files
        unchanged, their chunks embedded)."""
        for size, kind in files_to_read:
            self._kind(kind).bytes_total += size
        self.bytes_total = sum(size for size, _ in files_to_read)
        self.chunks_waiting_at_start = chunks_waiting
        self.pieces_waiting_at_start = pieces_waiting
        self.kept_bytes, self.kept_chunks = kept_bytes, kept_chunks
        self.planned = True

    def resume_from(self, share: float) -> None:
        """The share an interrupted run showed of the work this one takes over: shown from the start, and this
        run's own work is the rest of the bar. (Counted with the work kept, at this run's first guessed rates, a
        service killed at 41% started again at 50%.)"""
        self._resumed = min(share, 1.0)
        self._shown = max(self._shown or 0.0, self._resumed)
        self._shown_after = self._work_done()

    def work_left(self) -> tuple[int, int]:
        """(bytes not read yet, chunks expected still to embed): what a run interrupted now leaves to the next."""
        return (max(self.bytes_total - self.bytes_read, 0),
                max(self.chunks_expected() - self.chunks_embedded, 0))

    def _kind(self, kind: str) -> _Kind:
        return self._kinds.setdefault(kind.lower(), _Kind())

    def file_read(self, size: int, seconds: float, kind: str = "") -> None:
        """A file read: what was stored since the last one (stored) was its text."""
        self.bytes_read += size
        self.read_seconds += seconds
        read = self._kind(kind)
        read.bytes_read += size
        read.read_seconds += seconds
        read.chunks += self._file_chunks
        read.pieces += self._file_pieces
        self._file_chunks = self._file_pieces = 0

    def stored(self, chunks: int, pieces: int) -> None:
        """A document's chunks stored, waiting to be embedded: `pieces` word pieces of text and context in all."""
        self.chunks_read += chunks
        self.pieces_read += pieces
        self._file_chunks += chunks
        self._file_pieces += pieces

    def plan_ocr(self, pages: int) -> None:
        self.ocr_pages_total += pages

    def page_recognised(self, seconds: float) -> None:
        self.ocr_pages_read += 1
        self.ocr_seconds += seconds

    def batch_embedded(self, chunks: int, pieces: int, seconds: float) -> None:
        self.chunks_embedded += chunks
        self.pieces_embedded += pieces
        self.embed_seconds += seconds

    def _pieces_per_chunk(self) -> float:
        return self.pieces_read / self.chunks_read if self.chunks_read else PIECES_PER_CHUNK_GUESS

    def _unread_yield(self) -> tuple[float, float]:
        """(chunks, word pieces) the unread files should give: each kind at its prior, moved by what its files gave."""
        chunks = pieces = 0.0
        per_chunk = self._pieces_per_chunk()
        for name, kind in self._kinds.items():
            if not kind.unread():
                continue
            prior = TEXT_YIELD_PRIORS.get(name, TEXT_YIELD_OTHER)
            pieces += kind.unread() * _moved(prior, kind.pieces, kind.bytes_read)
            chunks += kind.unread() * _moved(prior / per_chunk, kind.chunks, kind.bytes_read)
        return chunks, pieces

    def chunks_expected(self) -> int:
        """Chunks the run will have embedded by its end: those read, and those the unread files should give."""
        return round(self.chunks_waiting_at_start + self.chunks_read + self._unread_yield()[0])

    def embedding_left(self) -> float:
        """The word pieces left to embed: of the text expected, what is not embedded yet — but never less than
        the chunks still waiting at the pieces a chunk has taken so far. A document's pieces are counted before
        its contexts are (theirs estimated), so the count ran out before the chunks did: the bar said "100%, about
        1 s left" for the run's last 30 s (issue 49's first hour, ETA error 100% there)."""
        unread_chunks, unread_pieces = self._unread_yield()
        waiting = (self.pieces_waiting_at_start if self.pieces_waiting_at_start is not None
                   else self.chunks_waiting_at_start * self._pieces_per_chunk())
        pieces = waiting + self.pieces_read + unread_pieces
        chunks_left = self.chunks_waiting_at_start + self.chunks_read + unread_chunks - self.chunks_embedded
        if chunks_left <= 0:  # (the pieces of the chunks an earlier run left are a guess: nothing waits, none left)
            return 0.0
        per_chunk = self.pieces_embedded / self.chunks_embedded if self.chunks_embedded else 0.0
        return max(pieces - self.pieces_embedded, chunks_left * per_chunk, 0)

    def _read_seconds_left(self) -> float:
        """The unread files' reading, each kind at its own pace once it has one (a PDF's parse is slower per
        byte than a text's), the run's pace over all kinds until then."""
        overall = self.read_seconds / self.bytes_read if self.bytes_read else READ_SECONDS_PER_BYTE_GUESS
        return sum(kind.unread() * _moved(overall, kind.read_seconds, kind.bytes_read) for kind in self._kinds.values())

    def _work_done(self) -> float:
        return self.read_seconds + self.embed_seconds + self.ocr_seconds

    def estimate(self) -> tuple[float | None, float | None]:
        """(share of the run done, seconds of work left); (None, None) before the run knows its files. The share
        counts the work kept from earlier runs as done, at this run's rates."""
        if not self.planned:
            return None, None
        embedded = self.pieces_embedded
        embed_rate = self.embed_seconds / embedded if embedded else EMBED_SECONDS_PER_PIECE_GUESS
        ocr_rate = self.ocr_seconds / self.ocr_pages_read if self.ocr_pages_read else OCR_SECONDS_PER_PAGE_GUESS
        left = (self._read_seconds_left() + self.embedding_left() * embed_rate
                + max(self.ocr_pages_total - self.ocr_pages_read, 0) * ocr_rate)
        done = self._work_done()
        if self._resumed is not None:  # an interrupted run's work taken over: this run's is the rest of the bar
            own = done / (done + left) if done + left > 0 else 1.0
            return self._resumed + (1.0 - self._resumed) * own, left
        read_rate = self.read_seconds / self.bytes_read if self.bytes_read else READ_SECONDS_PER_BYTE_GUESS
        done += self.kept_bytes * read_rate + self.kept_chunks * self._pieces_per_chunk() * embed_rate
        if done + left <= 0:
            return 1.0, 0.0
        return done / (done + left), left

    def progress(self) -> tuple[float | None, float | None]:
        """(share done to show, seconds left): the estimate's time left, and a share that only grows; (None, None)
        while the files are being listed: not known yet. (It said 0% then, and a re-scan's bar went back to 0%
        before it found its work done; a view must not fall back on the scan's own count: 100%, then 0%.)"""
        fraction, left = self.estimate()
        if fraction is None or left is None:
            return None, None
        worked = self._work_done()
        if self._shown is None:
            self._shown = fraction
        else:
            # Of what is left to show, the part that the work since the last report is of the work still left.
            since = worked - self._shown_after
            paced = self._shown + (1.0 - self._shown) * (since / (since + left) if since + left > 0 else 1.0)
            self._shown = min(1.0, max(paced, fraction))
        self._shown_after = worked
        return self._shown, left
