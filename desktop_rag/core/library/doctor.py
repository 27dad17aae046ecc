"""Do the catalog and the two indexes agree? Find what disagrees and rebuild it from the catalog.

The catalog is the source of truth; Chroma and the keyword index are derived from it. They can part ways without
any bug of ours: a person deletes the `chroma` folder, a disk loses a file, a copy of the data folder is partial.
Left alone, search by meaning then answers "No results" silently. Two depths:
- `lost_indexes`: counts and file checks only (milliseconds), run before the first write of every library, so
  an index run (and the app, which runs one at start) repairs a lost index by itself and says so;
- `examine`: every chunk id compared, and SQLite's own check of the catalog's pages (`desktop-rag doctor`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass, field

from desktop_rag.core.indexing.keyword_upkeep import whole_build_due
from desktop_rag.storage.catalog_connection import damaged_message

if TYPE_CHECKING:
    from desktop_rag.core.indexing.run_state import IndexParts
    from desktop_rag.core.library.library import Library
    from desktop_rag.core.progress.control import RunControl
    from desktop_rag.core.indexing.report import ProgressCallback


@dataclass
class Checkup:
    catalog_damage: str | None = None  # SQLite's quick_check; only a person can act on it (the source of truth)
    damage_advice: str | None = None  # what to do about it, in words
    vectors_missing: set[int] = field(default_factory=set)  # embedded, says the catalog, but no vector
    vectors_orphaned: set[int] = field(default_factory=set)  # a vector for a chunk the catalog does not have
    keyword_problem: str | None = None  # the keyword index's files, or its chunks, disagree with the catalog
    # What each holds: an empty dense index agrees with a catalog whose chunks all wait to be embedded, and meaning
    # search still finds nothing (issue 50): what waits is said apart from damage (`waiting`), and --repair does it.
    catalog_chunks: int = 0
    dense_chunks: int = 0
    keyword_chunks: int | None = None  # None: no keyword index (missing, or to be rebuilt)
    waiting_to_embed: int = 0
    keyword_index_to_build: bool = False  # marked for rebuilding (a run cut short): the next sync builds it
    keyword_changes_waiting: int = 0  # passages changed that the keyword index does not hold yet (the next sync)

    @property
    def healthy(self) -> bool:
        return not (self.catalog_damage or self.vectors_missing or self.vectors_orphaned or self.keyword_problem)

    def waiting(self) -> list[str]:
        """Work a run cut short left (nothing damaged): what search lacks until the next sync, or --repair, does it."""
        left = []
        if self.waiting_to_embed:
            left.append(f"{self.waiting_to_embed:,} of {self.catalog_chunks:,} passages wait to be made searchable by "
                        "meaning: meaning search does not find them until they are")
        if self.keyword_index_to_build:
            left.append("the keyword index waits to be built: keyword search finds nothing until it is")
        elif self.keyword_changes_waiting:
            left.append(f"{self.keyword_changes_waiting:,} passages changed wait to be made searchable by their "
                        "words: keyword search finds them as they were until they are")
        return left

    def holdings(self) -> str | None:
        """What each holds, in a sentence; None for a damaged catalog (nothing was counted in it: not "0 passages")."""
        if self.catalog_damage:
            return None
        keywords = "no keyword index" if self.keyword_chunks is None else f"the keyword index {self.keyword_chunks:,}"
        return (f"the catalog holds {self.catalog_chunks:,} passages, the meaning index "
                f"{self.dense_chunks:,}, {keywords}")

    def findings(self) -> list[str]:
        found = []
        if self.catalog_damage:
            found.append(f"the catalog is damaged: {self.catalog_damage}")
        if self.vectors_missing:
            found.append(f"{len(self.vectors_missing):,} passages are missing from the meaning index although the "
                         "catalog says they were put there")
        if self.vectors_orphaned:
            found.append(f"the meaning index holds {len(self.vectors_orphaned):,} passages the catalog no "
                         "longer has")
        if self.keyword_problem:
            found.append(f"the keyword index {self.keyword_problem}")
        return found


def lost_indexes(library: IndexParts) -> list[str]:
    """The cheap check: an index gone or broken as a whole. Marks what must be rebuilt (the next sync does it)
    and returns why, for the run's summary."""
    catalog, notices = library.catalog, []
    embedded = catalog.run_work.count_embedded()
    if embedded and library.vectors.count() == 0:
        catalog.mark_all_unembedded()
        notices.append(f"the meaning index was empty although {embedded:,} passages had been put there (was its "
                       "folder removed?): every passage is made searchable by meaning again")
    problem = _keyword_files_problem(library)
    if problem and not catalog.keyword_changes.rebuild_asked:
        catalog.mark_keyword_index_dirty()
        notices.append(f"the keyword index {problem}: it is built again")
    return notices


def examine(library: Library) -> Checkup:
    catalog = library.catalog
    damage = catalog.damage()
    # The advice names the file and the remedy; what SQLite found is the finding's (up to 20 lines: said once).
    checkup = Checkup(catalog_damage=damage, damage_advice=damaged_message(catalog.path) if damage else None)
    if checkup.catalog_damage:
        return checkup  # nothing read from a damaged catalog can be trusted
    stored, in_catalog = library.vectors.chunk_ids(), catalog.chunk_ids()
    checkup.vectors_missing = catalog.chunk_ids(embedded=True) - stored
    checkup.catalog_chunks, checkup.dense_chunks = len(in_catalog), len(stored)
    checkup.waiting_to_embed = catalog.count_pending_embeddings()
    # A chunk replaced or removed keeps its vector until the next sync drops it (dense_deletions): not an orphan.
    checkup.vectors_orphaned = stored - in_catalog - set(catalog.pending_dense_deletions())
    checkup.keyword_problem = _keyword_files_problem(library)
    if checkup.keyword_problem is None and library.keywords.exists:  # (a damaged one cannot be counted)
        checkup.keyword_chunks = len(library.keywords)
    changes = catalog.keyword_changes
    to_build = changes.waiting and whole_build_due(library)
    checkup.keyword_index_to_build = checkup.keyword_problem is None and to_build
    checkup.keyword_changes_waiting = 0 if to_build else changes.count(waiting_only=True)
    if checkup.keyword_problem is None and not catalog.keyword_index_dirty and library.keywords.exists:
        in_index = library.keywords.chunk_ids()
        if in_index != in_catalog:
            checkup.keyword_problem = (f"disagrees with the catalog ({len(in_catalog - in_index):,} passages "
                                       f"missing, {len(in_index - in_catalog):,} unknown)")
    return checkup


def repair(library: Library, checkup: Checkup, on_progress: ProgressCallback | None = None,
           control: RunControl | None = None) -> list[str]:
    """Rebuild what the checkup found wrong, from the catalog; returns what was done. A damaged catalog is not
    repaired here: it is the source of truth, and a person decides what becomes of it. `on_progress`, `control`:
    the rebuild's (a cancel keeps what was embedded; the rest waits for the next sync)."""
    done: list[str] = []
    if checkup.catalog_damage:
        return done
    with library.writer.writing():
        if checkup.vectors_missing:
            library.catalog.mark_unembedded(sorted(checkup.vectors_missing))
            done.append(f"{len(checkup.vectors_missing):,} passages made searchable by meaning again")
        if checkup.vectors_orphaned:
            library.vectors.delete(sorted(checkup.vectors_orphaned))
            done.append(f"{len(checkup.vectors_orphaned):,} unknown passages removed from the meaning index")
        if checkup.keyword_problem:
            library.catalog.mark_keyword_index_dirty()
            done.append("keyword index rebuilt")
        if checkup.waiting_to_embed:  # (the sync embeds every chunk waiting, and builds a marked keyword index)
            done.append(f"{checkup.waiting_to_embed:,} passages waiting were embedded")
        if checkup.keyword_index_to_build:
            done.append("keyword index built")
        elif checkup.keyword_changes_waiting:
            done.append(f"{checkup.keyword_changes_waiting:,} passages changed made searchable by their words")
        if done:
            library.indexes.sync_now(on_progress, control)
    return done


def _keyword_files_problem(library: IndexParts) -> str | None:
    keywords, catalog = library.keywords, library.catalog
    damage = keywords.damage()
    if damage:
        return f"is damaged ({damage})"
    if not keywords.exists and catalog.chunk_count() and not catalog.keyword_index_dirty:  # (dirty: a run builds it)
        return "is missing"
    return None
