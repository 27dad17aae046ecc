"""The keyword index: bm25s over every chunk's context + text, rebuilt from the catalog and swapped atomically.

bm25s has no incremental add, so the index is rebuilt after a batch of changes, never per query. Tokenizing is
three quarters of a rebuild (measured at 10k chunks: 1.3 s of 1.8), so each chunk text's tokens are kept, as ids
into one vocabulary, between rebuilds in this process: after a file watcher's batch only the changed chunks are
tokenized again. Each build goes into a new generation folder; a one-line CURRENT file names the live one and is
replaced atomically, so a reader sees either the old or the new index, never half of one. A reader in another
process may read CURRENT just before a rebuild replaces it: the generation before the current one is kept until
the next rebuild, and a generation gone while it was being loaded is left for the one CURRENT names now (issue 61:
a search during a run was told the index was broken and to repair it).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from array import array
from pathlib import Path
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from desktop_rag.errors import IndexDamaged
from desktop_rag.storage.catalog_filters import in_sorted
from desktop_rag.storage.disk_space import full_disk_said
from desktop_rag import remedies

CURRENT = "CURRENT"
_IDS_FILE = "chunk_ids.npy"
# What bm25s writes (and we add) for one generation: all must be there for it to load.
_GENERATION_FILES = (_IDS_FILE, "params.index.json", "vocab.index.json", "data.csc.index.npy",
                     "indices.csc.index.npy", "indptr.csc.index.npy")
_EMPTY = ""  # the tokenizer never yields it: the one token of a text without words
_MAX_VOCABULARY = 2_000_000  # words of removed texts stay in the vocabulary; past this, start afresh
_PREFIX_WORDS = 50  # at most this many indexed words per `word*`
_PART_WORDS = 500  # at most this many indexed words per part (a common kanji is in thousands of pairs)


# How often a rebuild asks whether it should stop: ~10 ms of tokenizing (~100 µs a text), so that a pause, a
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
        # (bm25s.BM25 or None, its chunk ids), replaced whole: a search takes the pair once, so an index rebuilt
        # meanwhile never gives it one generation's scores with another's ids.
        self._loaded: tuple[Any, np.ndarray] = (None, np.zeros(0, dtype=np.int64))
        self._loading = threading.Lock()
        self._vocabulary: dict[str, int] = {}
        self._tokens_by_text: dict[int, array] = {}  # hash(text) → token ids, for the texts of the last build
        self.tokenizing_s = 0.0  # of the last rebuild, the time spent on texts new to it (a run's own work)

    # -- building -------------------------------------------------------------------------------------------

    def rebuild(self, items: Iterable[tuple[int, str]], stopped: Callable[[], bool] = lambda: False) -> int:
        """The index made anew from `items` (chunk id, text) and swapped in whole; `stopped()` is asked now and then
        (RebuildStopped: nothing changed)."""
        if len(self._vocabulary) > _MAX_VOCABULARY:
            self._vocabulary, self._tokens_by_text = {}, {}
        ids, corpus, kept = [], [], {}
        self.tokenizing_s = 0.0
        for number, (chunk_id, text) in enumerate(items):
            if number % _STOP_CHECK_EVERY == 0 and stopped():
                raise RebuildStopped("the keyword index's rebuild was given up")
            key = hash(text)
            tokens = self._tokens_by_text.get(key)
            if tokens is None:
                started = time.perf_counter()
                words = self._tokenize(text) or [_EMPTY]
                tokens = array("i", (self._vocabulary.setdefault(w, len(self._vocabulary)) for w in words))
                self.tokenizing_s += time.perf_counter() - started
            kept[key] = tokens
            ids.append(chunk_id)
            corpus.append(tokens)
        if stopped():
            raise RebuildStopped("the keyword index's rebuild was given up")
        self._tokens_by_text = kept
        with full_disk_said(self.folder):
            return self._write_generation(ids, corpus)

    def _write_generation(self, ids: list[int], corpus: list[array]) -> int:
        import bm25s

        self.folder.mkdir(parents=True, exist_ok=True)
        generation = f"g{time.time_ns()}"
        if ids:
            target = self.folder / generation
            retriever = bm25s.BM25()
            # A copy: bm25s adds its own empty token to the dictionary it is given.
            retriever.index((corpus, dict(self._vocabulary)), show_progress=False)
            try:
                retriever.save(str(target), show_progress=False)
                np.save(target / _IDS_FILE, np.asarray(ids, dtype=np.int64))
            except BaseException:
                shutil.rmtree(target, ignore_errors=True)  # its room back (a full disk), nothing half there
                raise
        else:
            generation = ""  # nothing to search
        before = self._current_generation()
        tmp = self.folder / (CURRENT + ".tmp")
        tmp.write_text(generation, encoding="utf-8")
        os.replace(tmp, self.folder / CURRENT)
        self._remove_old_generations(keep={generation, before or ""})
        return len(ids)

    def _remove_old_generations(self, keep: set[str]) -> None:
        for entry in self.folder.iterdir():
            if entry.is_dir() and entry.name not in keep:
                # A reader may still map the old files; on Windows that blocks deletion, so try again next time.
                shutil.rmtree(entry, ignore_errors=True)

    # -- searching ------------------------------------------------------------------------------------------

    def _current_generation(self) -> str | None:
        try:
            return (self.folder / CURRENT).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None

    @property
    def exists(self) -> bool:
        return self._current_generation() is not None

    def damage(self) -> str | None:
        """What is wrong with the files on disk, or None: CURRENT names a generation whose files are gone or
        incomplete (a folder copied in part, a disk error, a person tidying up)."""
        generation = self._current_generation()
        if not generation:
            return None
        target = self.folder / generation
        missing = [name for name in _GENERATION_FILES if not (target / name).is_file()]
        if missing:
            return f"its current generation {generation} lacks {', '.join(missing)}"
        return None

    def chunk_ids(self) -> set[int]:
        return {int(i) for i in self._ensure_loaded()[1]}

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

    def _ensure_loaded(self) -> tuple[Any, np.ndarray]:
        """The current generation's (retriever, chunk ids), loaded once: fifty searches arriving together after a
        rebuild loaded it fifty times at once, and numpy's header parsing, run so in threads, failed one of them
        in CPython 3.11 ("AST constructor recursion depth mismatch")."""
        generation = self._current_generation()
        if generation == self._loaded_generation:
            return self._loaded
        with self._loading:
            generation = self._current_generation()  # (a rebuild may have finished while this one waited)
            if generation == self._loaded_generation:  # loaded by the search that held the lock
                return self._loaded
            import bm25s

            loaded = (None, np.zeros(0, dtype=np.int64))
            while generation:
                target = self.folder / generation
                try:
                    loaded = (bm25s.BM25.load(str(target), mmap=True, show_progress=False),
                              np.load(target / _IDS_FILE))
                    break
                except (OSError, ValueError) as exc:
                    if (now := self._current_generation()) != generation:  # replaced while it was loaded
                        generation = now
                        continue
                    raise IndexDamaged(f"the keyword index cannot be read ({self.damage() or exc}): "
                                       f"{remedies.REPAIR_INDEXES} to rebuild it from the catalog") from exc
            self._loaded, self._loaded_generation = loaded, generation
            return loaded

    def _prefix_ids(self, retriever, prefixes: Sequence[str]) -> list[int]:
        ids: list[int] = []
        for prefix in prefixes:
            if not prefix:
                continue
            matches = [(word, i) for word, i in retriever.vocab_dict.items()
                       if word.startswith(prefix) and word != _EMPTY]
            # The shortest words first: "tomato" before "tomatoesauce"; a 2-letter prefix must not add half the index.
            ids += [i for _, i in sorted(matches, key=lambda pair: (len(pair[0]), pair[0]))[:_PREFIX_WORDS]]
        return ids

    def _part_ids(self, retriever, parts: Sequence[str]) -> list[int]:
        ids: list[int] = []
        indptr = retriever.scores["indptr"]  # a word's chunks: indptr[i] to indptr[i + 1]
        for part in parts:
            if not part:
                continue
            matches = [i for word, i in retriever.vocab_dict.items() if part in word and word != part]
            # The words in most chunks first: the cap should cost the fewest chunks that hold the part.
            ids += sorted(matches, key=lambda i: int(indptr[i]) - int(indptr[i + 1]))[:_PART_WORDS]
        return ids

    def __len__(self) -> int:
        return len(self._ensure_loaded()[1])

    def search(self, query: str, n: int, prefixes: Sequence[str] = (),
               allowed: np.ndarray | None = None, parts: Sequence[str] = ()) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) best first; chunks without any query word are left out. Each of `prefixes`
        (already as the tokenizer would write them) adds the indexed words it begins, at most _PREFIX_WORDS; each
        of `parts` the indexed words it is part of (a lone kanji, whose chunks hold the pairs it is in), at most
        _PART_WORDS. `allowed`: the sorted chunk ids a filter leaves; no other chunk is scored above zero."""
        retriever, chunk_ids = self._ensure_loaded()
        if retriever is None:
            return []
        token_ids = retriever.get_tokens_ids(self._tokenize(query))
        token_ids += self._prefix_ids(retriever, prefixes) + self._part_ids(retriever, parts)
        if not token_ids:
            return []
        scores = retriever.get_scores_from_ids(token_ids)
        if allowed is not None:
            scores = np.where(in_sorted(chunk_ids, allowed), scores, 0)
        n = min(n, len(scores))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(chunk_ids[i]), float(scores[i])) for i in top if scores[i] > 0]

