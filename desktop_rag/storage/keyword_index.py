"""The keyword index: bm25s over every chunk's context + text, in segments (issue 64), swapped atomically.

bm25s has no incremental add, and rebuilding it whole after each saved file took 21–35 s at 160k passages. So the
index is a large segment, made by a full build or a merge, and a small one holding only what changed since (its
passages; the large segment's rows of every chunk changed or removed since are masked), made anew by each batch
of changes; keyword_segments.py scores them as one index and merges them without reading a text again. A save
tokenizes and writes only the changes' segment: each of its texts is tokenized once and kept (in this process)
until the next merge.

Each segment goes into a generation folder of its own; a one-line CURRENT file names the live ones (the large
first) and is replaced atomically, so a reader sees either the old or the new index, never half of one. A reader
in another process may read CURRENT just before a writer replaces it: the generations named before are kept until
the next write, and ones gone while they were loaded are left for those CURRENT names now (issue 61: a search
during a run was told the index was broken and to repair it).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from dataclasses import replace
from array import array
from pathlib import Path
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from desktop_rag.errors import IndexDamaged
from desktop_rag.storage.catalog_filters import in_sorted
from desktop_rag.storage.disk_space import full_disk_said
from desktop_rag.storage.keyword_segments import EMPTY, Merged, Segment, collection_average, expanded, merge, scores
from desktop_rag import remedies

CURRENT = "CURRENT"
_IDS_FILE = "chunk_ids.npy"
_LENGTHS_FILE = "lengths.npy"  # each row's words: for scoring with other segments, and merging (since issue 64)
_MASKED_FILE = "masked_ids.npy"  # a changes' segment's: the chunks whose rows in the large segment are stale
# What bm25s writes (and we add) for one generation: all must be there for it to load.
_GENERATION_FILES = (_IDS_FILE, "params.index.json", "vocab.index.json", "data.csc.index.npy",
                     "indices.csc.index.npy", "indptr.csc.index.npy")
_PREFIX_WORDS = 50  # at most this many indexed words per `word*`
_PART_WORDS = 500  # at most this many indexed words per part (a common kanji is in thousands of pairs)


# How often a build asks whether it should stop: ~10 ms of tokenizing (~100 µs a text), so that a pause, a
# Ctrl-C or a file saved is heard within a second even while 110k chunks are tokenized (~10 s; issue 51, 9).
_STOP_CHECK_EVERY = 100


class RebuildStopped(Exception):
    """A rebuild given up because its run was paused or cancelled: the index is as it was, and still to be
    rebuilt."""


class KeywordIndex:
    def __init__(self, folder: Path, tokenize: Callable[[str], list[str]]):
        self.folder = folder
        self._tokenize = tokenize
        self._loaded_generation: str | None = None
        # The segments CURRENT named, replaced whole: a search takes them once, so an index replaced meanwhile
        # never gives it one generation's scores with another's ids.
        self._loaded: list[Segment] = []
        self._average = 1.0  # their passages' average length (keyword_segments.collection_average)
        self._segments: dict[str, Segment] = {}  # by generation, as loaded
        self._loading = threading.Lock()
        self._tokens_by_text: dict[int, list[str]] = {}  # hash(text) → words, for the changes' segment's texts
        self.tokenizing_s = 0.0  # of the last build, the time spent on texts new to it (a run's own work)
        self.merging = False  # a merge is under way (a save applied meanwhile updates the changes' segment)

    # -- building -------------------------------------------------------------------------------------------

    def rebuild(self, items: Iterable[tuple[int, str]], stopped: Callable[[], bool] = lambda: False) -> int:
        """The index made anew from `items` (chunk id, text), one segment, swapped in whole; `stopped()` is asked
        now and then (RebuildStopped: nothing changed)."""
        ids, corpus, vocabulary = self._tokenized(items, stopped, keep=False)
        with full_disk_said(self.folder):
            self._swap_in([self._write_segment(ids, corpus, vocabulary)] if ids else [])
        return len(ids)

    def update(self, items: Iterable[tuple[int, str]], changed: Sequence[int],
               stopped: Callable[[], bool] = lambda: False) -> int:
        """The changes' segment made anew: `items`, the texts of the chunks that changed since the large segment
        was made and still are; `changed`, every chunk changed or removed since (their rows there are masked).
        Returns the passages it holds."""
        ids, corpus, vocabulary = self._tokenized(items, stopped, keep=True)
        large = self._generations()[:1]
        with full_disk_said(self.folder):
            if not large:  # nothing to add to: the changes are the index
                self._swap_in([self._write_segment(ids, corpus, vocabulary)])
                return len(ids)
            delta = self._write_segment(ids, corpus, vocabulary, masked=changed) if ids or changed else None
            self._swap_in(large + ([delta] if delta else []))
        return len(ids)

    def merge(self, changes_since: Callable[[], tuple[Iterable[tuple[int, str]], Sequence[int]]],
              stopped: Callable[[], bool] = lambda: False) -> int:
        """The segments CURRENT names merged into one large segment (no text read or tokenized again), then
        `changes_since()` — (texts, changed ids) of what changed after the changes' segment was made, asked once
        the merge is done, as `update` takes them — made the new changes' segment; both swapped in at once.
        RebuildStopped: given up, nothing changed. Returns the passages of the large segment."""
        segments = self._ensure_loaded()
        if len(segments) < 2:
            return len(self)
        self.merging = True
        try:
            merged = merge(segments, segments[0].retriever.k1, segments[0].retriever.b, stopped)
        except StopIteration:
            raise RebuildStopped("the keyword index's merge was given up") from None
        finally:
            self.merging = False
        self._tokens_by_text = {}
        items, changed = changes_since()
        # Not stopped from here to the swap: a save applied at a stop's checkpoint would be left out of both (a few
        # passages' tokens: milliseconds).
        ids, corpus, vocabulary = self._tokenized(items, lambda: False, keep=True)
        with full_disk_said(self.folder):
            large = self._write_merged(merged)
            delta = self._write_segment(ids, corpus, vocabulary, masked=changed) if ids or changed else None
            self._swap_in([large] + ([delta] if delta else []))
        return len(merged.ids)

    def _tokenized(self, items: Iterable[tuple[int, str]], stopped: Callable[[], bool],
                   keep: bool) -> tuple[list[int], list[array], dict[str, int]]:
        """(chunk ids, each text's words as numbers, the numbers' words). `keep`: the texts' words are kept for
        the next build (a changes' segment's few); a full build's are not (~500 MB at 1M passages)."""
        ids: list[int] = []
        corpus: list[array] = []
        kept: dict[int, list[str]] = {}
        vocabulary: dict[str, int] = {}
        self.tokenizing_s = 0.0
        for number, (chunk_id, text) in enumerate(items):
            if number % _STOP_CHECK_EVERY == 0 and stopped():
                raise RebuildStopped("the keyword index's rebuild was given up")
            key = hash(text)
            words = self._tokens_by_text.get(key)
            if words is None:
                started = time.perf_counter()
                words = self._tokenize(text) or [EMPTY]
                self.tokenizing_s += time.perf_counter() - started
            if keep:
                kept[key] = words
            ids.append(chunk_id)
            corpus.append(array("i", (vocabulary.setdefault(w, len(vocabulary)) for w in words)))
        if stopped():
            raise RebuildStopped("the keyword index's rebuild was given up")
        self._tokens_by_text = kept
        return ids, corpus, vocabulary

    def _write_segment(self, ids: list[int], corpus: list[array], vocabulary: dict[str, int],
                       masked: Sequence[int] = ()) -> str:
        import bm25s

        target = self._new_generation()
        retriever = bm25s.BM25()
        if corpus:
            # A copy: bm25s adds its own empty token to the dictionary it is given.
            retriever.index((corpus, dict(vocabulary)), show_progress=False)
        else:  # a changes' segment of removals alone: no rows, only its mask
            retriever.scores, retriever.vocab_dict, retriever.nonoccurrence_array = _no_scores(), {}, None
        return self._saved(target, retriever, np.asarray(ids, dtype=np.int64),
                           np.asarray([len(words) for words in corpus], dtype=np.int32), masked)

    def _write_merged(self, merged: Merged) -> str:
        import bm25s

        retriever = bm25s.BM25()
        retriever.scores = {"data": merged.data, "indices": merged.indices, "indptr": merged.indptr,
                            "num_docs": len(merged.ids)}
        retriever.vocab_dict, retriever.nonoccurrence_array = merged.vocabulary, None
        return self._saved(self._new_generation(), retriever, merged.ids, merged.lengths, ())

    def _new_generation(self) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder / f"g{time.time_ns()}"

    @staticmethod
    def _saved(target: Path, retriever, ids: np.ndarray, lengths: np.ndarray, masked: Sequence[int]) -> str:
        try:
            retriever.save(str(target), show_progress=False)
            np.save(target / _IDS_FILE, ids)
            np.save(target / _LENGTHS_FILE, lengths)
            if len(masked):
                np.save(target / _MASKED_FILE, np.unique(np.asarray(masked, dtype=np.int64)))
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)  # its room back (a full disk), nothing half there
            raise
        return target.name

    def _swap_in(self, generations: list[str]) -> None:
        """CURRENT names `generations` (written whole by _saved, or not at all) from now on."""
        before = self._generations()
        tmp = self.folder / (CURRENT + ".tmp")
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp.write_text(" ".join(generations), encoding="utf-8")
        os.replace(tmp, self.folder / CURRENT)
        self._remove_old_generations(keep=set(generations) | set(before))

    def _remove_old_generations(self, keep: set[str]) -> None:
        for entry in self.folder.iterdir():
            if entry.is_dir() and entry.name not in keep:
                # A reader may still map the old files; on Windows that blocks deletion, so try again next time.
                shutil.rmtree(entry, ignore_errors=True)

    # -- reading ------------------------------------------------------------------------------------------

    def _current_generation(self) -> str | None:
        try:
            return (self.folder / CURRENT).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None

    def _generations(self) -> list[str]:
        return (self._current_generation() or "").split()

    @property
    def exists(self) -> bool:
        return self._current_generation() is not None

    @property
    def segment_count(self) -> int:
        return len(self._generations())

    def damage(self) -> str | None:
        """What is wrong with the files on disk, or None: CURRENT names a generation whose files are gone or
        incomplete (a folder copied in part, a disk error, a person tidying up)."""
        for generation in self._generations():
            target = self.folder / generation
            missing = [name for name in _GENERATION_FILES if not (target / name).is_file()]
            if missing:
                return f"its current generation {generation} lacks {', '.join(missing)}"
        return None

    def chunk_ids(self) -> set[int]:
        found: set[int] = set()
        for segment in self._ensure_loaded():
            found.update(int(i) for i in (segment.ids if segment.masked is None else segment.ids[~segment.masked]))
        return found

    @property
    def loaded(self) -> bool:
        """Its current generation is in memory (a search needs no loading)."""
        return self._loaded_generation is not None and self._loaded_generation == self._current_generation()

    def load_if_readable(self) -> None:
        """Loaded now, ahead of a first search (which took 0.47 s more loading it at 110k chunks); one that cannot
        be read is left for the search to say so, with what to do."""
        try:
            self._ensure_loaded()
        except IndexDamaged:
            pass

    def _ensure_loaded(self) -> list[Segment]:
        """The current generations' segments, loaded once: fifty searches arriving together after a rebuild
        loaded it fifty times at once, and numpy's header parsing, run so in threads, failed one of them in
        CPython 3.11 ("AST constructor recursion depth mismatch")."""
        current = self._current_generation()
        if current == self._loaded_generation:
            return self._loaded
        with self._loading:
            current = self._current_generation()  # (a build may have finished while this one waited)
            if current == self._loaded_generation:  # loaded by the search that held the lock
                return self._loaded
            loaded: list[Segment] = []
            while current:
                try:
                    loaded = [self._segment(g) for g in current.split()]
                    break
                except (OSError, ValueError) as exc:
                    if (now := self._current_generation()) != current:  # replaced while it was loaded
                        current = now
                        continue
                    raise IndexDamaged(f"the keyword index cannot be read ({self.damage() or exc}): "
                                       f"{remedies.REPAIR_INDEXES} to rebuild it from the catalog") from exc
            for later in loaded[1:]:
                if later.masks is not None and len(later.masks):  # (a copy: a search in hand keeps its own)
                    loaded[0] = replace(loaded[0], masked=np.isin(loaded[0].ids, later.masks))
            self._average = collection_average(loaded)
            self._loaded, self._loaded_generation = loaded, current
            return loaded

    def _segment(self, generation: str) -> Segment:
        """A generation's segment, loaded once: the large one stays while each save replaces the small one (loading
        its vocabulary again was most of a save's 0.5 s at 1M passages)."""
        kept = self._segments.get(generation)
        if kept is None:
            kept = _load_segment(self.folder / generation)
            current = set(self._generations())
            self._segments = {g: s for g, s in self._segments.items() if g in current}
            self._segments[generation] = kept
        return replace(kept, masked=None)

    def __len__(self) -> int:
        return sum(segment.live_rows for segment in self._ensure_loaded())

    def search(self, query: str, n: int, prefixes: Sequence[str] = (),
               allowed: np.ndarray | None = None, parts: Sequence[str] = ()) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) best first; chunks without any query word are left out. Each of `prefixes`
        (already as the tokenizer would write them) adds the indexed words it begins, at most _PREFIX_WORDS; each
        of `parts` the indexed words it is part of (a lone kanji, whose chunks hold the pairs it is in), at most
        _PART_WORDS. `allowed`: the sorted chunk ids a filter leaves; no other chunk is scored above zero."""
        segments = self._ensure_loaded()
        if not segments:
            return []
        words = self._tokenize(query) + expanded(segments, prefixes, parts, _PREFIX_WORDS, _PART_WORDS)
        if not words:
            return []
        scored = scores(segments, words, self._average if segments is self._loaded else None)
        all_scores = np.concatenate(scored)
        chunk_ids = np.concatenate([segment.ids for segment in segments])
        if allowed is not None:
            all_scores = np.where(in_sorted(chunk_ids, allowed), all_scores, 0)
        n = min(n, len(all_scores))
        if n <= 0:
            return []
        top = np.argpartition(-all_scores, n - 1)[:n]
        top = top[np.argsort(-all_scores[top], kind="stable")]
        return [(int(chunk_ids[i]), float(all_scores[i])) for i in top if all_scores[i] > 0]


def _load_segment(target: Path) -> Segment:
    import bm25s

    ids = np.load(target / _IDS_FILE)
    if len(ids):
        retriever = bm25s.BM25.load(str(target), mmap=True, show_progress=False)
    else:  # (an empty file cannot be mapped)
        retriever = bm25s.BM25()
        retriever.scores, retriever.vocab_dict, retriever.nonoccurrence_array = _no_scores(), {}, None
    lengths_file = target / _LENGTHS_FILE
    # A library indexed before segments (issue 64) has no lengths: searched alone until its rebuild.
    lengths = np.load(lengths_file) if lengths_file.is_file() else np.ones(len(ids), dtype=np.int32)
    masked_file = target / _MASKED_FILE
    return Segment(retriever, ids, lengths, masks=np.load(masked_file) if masked_file.is_file() else None)


def _no_scores() -> dict[str, Any]:
    return {"data": np.zeros(0, np.float32), "indices": np.zeros(0, np.int32), "indptr": np.zeros(1, np.int64),
            "num_docs": 0}
