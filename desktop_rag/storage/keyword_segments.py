"""The keyword index's segments scored as one index (issue 64): a large one made at the last merge and a small one of
what changed since, each a bm25s index on disk.

bm25s stores each (word, passage) pair's whole BM25 score (its "lucene" variant: idf(word) × tf / (tf + K), where
K = k1 (1 − b + b × length / average length)), computed with its own segment's statistics. To score several as one,
each stored score is taken apart again: divided by the segment's idf (its document frequencies are its columns'
lengths), it is the term-frequency part alone, which is weighted by the idf of all segments together (document
frequencies and passage counts summed), and recomputed for the average length of all segments together (from each
passage's length, kept beside it), so a passage scores as in one index. Removed and changed passages are masked in
the large segment but still counted in the statistics until the next merge, as Lucene counts deleted documents: one
saved file moves document frequencies by a few passages in ~10⁵. With one segment the stored scores are used as
they are: bm25s's own.

A merge makes one segment of them without reading or tokenizing a text again: each stored score gives back its term
frequency (tf = c K / (1 − c), c the term-frequency part; an integer, so rounded), and the merged segment's scores
are computed from the frequencies with its new statistics — what bm25s would have computed from the texts
(tests/unit/storage/test_keyword_segments.py holds both to that).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Postings a merge holds in memory at once (~40 bytes each while scored): ~160 MB at most, whatever the library.
_MERGE_BLOCK = 4_000_000

EMPTY = ""  # the tokenizer never yields it: the one token of a text without words



@dataclass
class Segment:
    retriever: Any  # a bm25s.BM25 of the "lucene" method, memory-mapped
    ids: np.ndarray  # the chunk id of each of its rows
    lengths: np.ndarray  # each row's words (bm25s's document length)
    masked: np.ndarray | None = None  # rows whose chunk changed or went since this segment was made (bool)
    masks: np.ndarray | None = None  # a changes' segment's: the chunk ids whose rows in the large one it masks
    _sorted_words: list[str] | None = field(default=None, repr=False)

    def words_beginning(self, prefix: str) -> list[str]:
        """Its words that begin with `prefix`, found in its words sorted (made once: ~0.1 s for 160k words) by
        bisection. Scanning them all took 35–220 ms of a `word*` search at 1M passages (docs/benchmarks.md)."""
        if self._sorted_words is None:
            self._sorted_words = sorted(word for word in self.retriever.vocab_dict if word != EMPTY)
        words = self._sorted_words
        start = bisect_left(words, prefix)
        end = start
        while end < len(words) and words[end].startswith(prefix):
            end += 1
        return words[start:end]

    @property
    def rows(self) -> int:
        return len(self.ids)

    @property
    def live_rows(self) -> int:
        """Its rows not masked."""
        return self.rows - (int(self.masked.sum()) if self.masked is not None else 0)

    @property
    def average_length(self) -> float:
        return float(self.lengths.mean()) if len(self.lengths) else 1.0

    def column(self, word: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The rows holding `word`, and each one's stored score."""
        token = self.retriever.vocab_dict.get(word)
        if token is None:
            return None
        scores = self.retriever.scores
        start, end = int(scores["indptr"][token]), int(scores["indptr"][token + 1])
        if start == end:
            return None
        return scores["indices"][start:end], scores["data"][start:end]

    def saturation(self, rows: np.ndarray, average: float) -> np.ndarray:
        """K of each row: k1 (1 − b + b × length / average)."""
        k1, b = self.retriever.k1, self.retriever.b
        return k1 * (1 - b + b * self.lengths[rows] / average)


def idf(document_frequency: Any, passages: int) -> Any:
    """bm25s's "lucene" idf."""
    return np.log1p((passages - document_frequency + 0.5) / (document_frequency + 0.5))


def collection_average(segments: Sequence[Segment]) -> float:
    """The average passage length of all segments together (masked rows counted, as in the frequencies)."""
    rows = sum(segment.rows for segment in segments)
    return float(sum(int(segment.lengths.sum()) for segment in segments)) / rows if rows else 1.0


def scores(segments: Sequence[Segment], words: Sequence[str], average: float | None = None) -> list[np.ndarray]:
    """Each segment's BM25 score of each of its rows for `words` (a word twice counts twice, as in bm25s), with
    the statistics of all segments together; masked rows score 0. `average`: collection_average(segments), if
    known."""
    out = [np.zeros(segment.rows, dtype=np.float64) for segment in segments]
    if not segments:
        return out
    passages = sum(segment.rows for segment in segments)
    average = collection_average(segments) if average is None else average
    for word, count in Counter(words).items():
        columns = [segment.column(word) for segment in segments]
        frequency = sum(len(column[0]) for column in columns if column is not None)
        if not frequency:
            continue
        weight = count * idf(frequency, passages)
        for segment, column, scored in zip(segments, columns, out):
            if column is None:
                continue
            rows, stored = column
            part = stored / idf(len(rows), segment.rows)  # tf / (tf + K), the segment's K
            if abs(segment.average_length - average) > 1e-9 * average:
                own = segment.saturation(rows, segment.average_length)
                part = part * own / (segment.saturation(rows, average) * (1 - part) + part * own)
            scored[rows] += weight * part
    for segment, scored in zip(segments, out):
        if segment.masked is not None:
            scored[segment.masked] = 0
    return out


def expanded(segments: Sequence[Segment], prefixes: Sequence[str], parts: Sequence[str], prefix_words: int,
             part_words: int) -> list[str]:
    """The indexed words each prefix begins (at most `prefix_words`, the shortest first: "tomato" before
    "tomatoesauce"; a 2-letter prefix must not add half the index) and each part is in (at most `part_words`,
    those in most passages first: the cap should cost the fewest passages that hold the part)."""
    words: list[str] = []
    for prefix in filter(None, prefixes):
        matches = {word for segment in segments for word in segment.words_beginning(prefix)}
        words += sorted(matches, key=lambda word: (len(word), word))[:prefix_words]
    vocabularies = [segment.retriever.vocab_dict for segment in segments]
    for part in filter(None, parts):
        held = {word for vocabulary in vocabularies for word in vocabulary if part in word and word != part}
        words += sorted(held, key=lambda word: (-_frequency(segments, word), word))[:part_words]
    return words


def _frequency(segments: Sequence[Segment], word: str) -> int:
    return sum(len(column[0]) for segment in segments if (column := segment.column(word)) is not None)


# -- merging --------------------------------------------------------------------------------------------------------

@dataclass
class Merged:
    """A segment's arrays as bm25s saves them, and ours beside them."""
    vocabulary: dict[str, int]
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    ids: np.ndarray
    lengths: np.ndarray


def merge(segments: Sequence[Segment], k1: float, b: float,
          stopped: Callable[[], bool] = lambda: False) -> Merged:
    """See _merged; StopIteration when `stopped()` says so."""
    try:
        return _merged(segments, k1, b, stopped)
    except _Stopped:
        raise StopIteration from None


def _merged(segments: Sequence[Segment], k1: float, b: float, stopped: Callable[[], bool]) -> Merged:
    """One segment holding every unmasked row of `segments`, in their order, scored as bm25s would score their
    texts. `stopped()` is asked between blocks (~0.5 s of work each at most); when it says so, StopIteration.

    Two passes over the postings: the first counts each word's kept postings (its place in the merged index), the
    second scores each posting straight into its place. Gathering every posting's (word, row, frequency) and
    interleaving the segments' took 2.7 GB at a million passages (79M postings; 3.2 GB before the gathering was
    made one array); the merged index's own arrays are 8 bytes a posting."""
    kept = [np.ones(s.rows, dtype=bool) if s.masked is None else ~s.masked for s in segments]
    ids = np.concatenate([s.ids[k] for s, k in zip(segments, kept)]) if segments else np.zeros(0, np.int64)
    lengths = (np.concatenate([s.lengths[k] for s, k in zip(segments, kept)]) if segments
               else np.zeros(0, np.int32))
    new_row = []  # each segment's row → its row in the merged one (−1: dropped)
    offset = 0
    for keep in kept:
        numbers = np.full(len(keep), -1, dtype=np.int64)
        numbers[keep] = np.arange(offset, offset + int(keep.sum()))
        new_row.append(numbers)
        offset += int(keep.sum())
    vocabulary: dict[str, int] = {}
    local_to_merged = []
    for segment in segments:
        words = _words_by_token(segment.retriever.vocab_dict)
        local_to_merged.append(np.fromiter((vocabulary.setdefault(w, len(vocabulary)) for w in words),
                                           dtype=np.int64, count=len(words)))
    frequency = np.zeros(len(vocabulary), dtype=np.int64)
    for number, segment in enumerate(segments):
        for block in _blocks(segment, stopped):
            keep = new_row[number][block.rows] >= 0
            frequency += np.bincount(local_to_merged[number][block.tokens[keep]], minlength=len(vocabulary))
    used = frequency > 0  # words whose every passage went are dropped
    renumber = np.cumsum(used) - 1
    words = _words_by_token(vocabulary)
    vocabulary = {word: int(renumber[i]) for i, word in enumerate(words) if used[i]}
    frequency = frequency[used]
    indptr = np.concatenate([[0], np.cumsum(frequency)]).astype(np.int64)
    passages, average = len(ids), float(lengths.mean()) if len(lengths) else 1.0
    word_idf = idf(frequency.astype(np.float64), passages)
    rows, data = np.empty(int(indptr[-1]), dtype=np.int32), np.empty(int(indptr[-1]), dtype=np.float32)
    placed = indptr[:-1].copy()  # each word's next free place: a segment's postings after the earlier ones'
    for number, segment in enumerate(segments):
        for block in _blocks(segment, stopped):
            keep = new_row[number][block.rows] >= 0
            tokens, merged_rows = block.tokens[keep], new_row[number][block.rows[keep]]
            tf = block.frequencies(segment)[keep].astype(np.float64)
            if not len(tokens):
                continue
            # A word's postings in a block are one run (a segment is ordered by word): each goes to its word's next
            # place plus its rank in the run.
            starts = np.flatnonzero(np.concatenate([[True], tokens[1:] != tokens[:-1]]))
            run_lengths = np.diff(np.append(starts, len(tokens)))
            word = renumber[local_to_merged[number][tokens[starts]]]
            at = np.repeat(placed[word] - starts, run_lengths) + np.arange(len(tokens))
            placed[word] += run_lengths
            saturation = k1 * (1 - b + b * lengths[merged_rows] / average)
            rows[at] = merged_rows
            data[at] = np.repeat(word_idf[word], run_lengths) * tf / (tf + saturation)
    return Merged(vocabulary, data, rows, indptr, ids, lengths)


def _words_by_token(vocabulary: dict[str, int]) -> list[str]:
    words = [""] * len(vocabulary)
    for word, token in vocabulary.items():
        words[token] = word
    return words


class _Stopped(Exception):
    pass


@dataclass
class _Block:
    """Postings start:end of a segment (at most _MERGE_BLOCK): each one's word (the segment's own number) and row."""
    start: int
    end: int
    tokens: np.ndarray
    rows: np.ndarray
    word_frequencies: np.ndarray  # the segment's passages per word

    def frequencies(self, segment: Segment) -> np.ndarray:
        """Each posting's term frequency, given back from its stored score (float32, as bm25s counts them)."""
        scores = segment.retriever.scores
        part = scores["data"][self.start:self.end] / idf(self.word_frequencies[self.tokens].astype(np.float64),
                                                         segment.rows)
        own = segment.saturation(self.rows, segment.average_length)
        return np.rint(part * own / (1 - part)).astype(np.float32)


def _blocks(segment: Segment, stopped: Callable[[], bool]) -> Iterator[_Block]:
    """The segment's postings block by block; _Stopped when `stopped()` (a generator may not raise StopIteration:
    Python makes it a RuntimeError)."""
    scores = segment.retriever.scores
    indptr = np.asarray(scores["indptr"], dtype=np.int64)
    word_frequencies = np.diff(indptr)
    total = int(indptr[-1])
    for start in range(0, total, _MERGE_BLOCK):
        if stopped():
            raise _Stopped
        end = min(start + _MERGE_BLOCK, total)
        # The word of each posting: the column whose range holds it.
        tokens = np.searchsorted(indptr, np.arange(start, end), side="right") - 1
        yield _Block(start, end, tokens, np.asarray(scores["indices"][start:end], dtype=np.int64), word_frequencies)
