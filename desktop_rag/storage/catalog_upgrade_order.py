"""Which document the background LLM upgrade takes next: what a person uses before the rest.

At ~5 s per chunk on 2 cores, a 100,000-chunk library needs days of upgrade; in indexing order, the documents a
person searches may be the last to get their contexts. So the next document is, in this order: one in a folder
marked "upgrade first" (a person asked), one opened from a search result, one among recent search hits (most
recent first), one modified lately (newest first), then the rest in indexing order. bench/upgrade_priority.py
measures what this buys: the share of top-5 hits with LLM contexts after an hour of upgrade.
"""

from __future__ import annotations

import time
from collections.abc import Sequence, Set

from desktop_rag.storage.catalog_contexts import RULES_NOT_TRIED
from desktop_rag.storage.catalog_files import under
from desktop_rag.storage.catalog_connection import CatalogConnection

RECENT_S = 30 * 86400.0  # searches, openings and changes older than this no longer put a document first
# Why a document comes when it does, by tier: the progress panel and `stats` say it.
REASONS = ("in a folder marked upgrade first", "opened from a search result", "among recent search hits",
           "modified in the last 30 days", "in indexing order")


def upgrade_order_sentence(queue: dict[str, int]) -> str:
    """`upgrade_queue()` in words: "2 documents opened from a search result, then 40 in indexing order"."""
    counts = list(queue.items())
    if not counts:
        return ""
    (reason, count), rest = counts[0], counts[1:]
    return (f"{count:,} document{'' if count == 1 else 's'} {reason}"
            + "".join(f", then {n:,} {why}" for why, n in rest))


class CatalogUpgradeOrder:
    """What a person used, the folders marked "upgrade first", and the order the upgrade takes."""

    def __init__(self, connection: CatalogConnection):
        self._connection = connection
        self._db = connection.db
        self._transaction = connection.transaction

    # -- what a person did ----------------------------------------------------------------------------------

    def note_hits(self, chunk_ids: Sequence[int], at: float | None = None) -> None:
        """These chunks were among a search's results: their documents count as used."""
        if not chunk_ids:
            return
        with self._transaction():
            self._db.execute(
                f"INSERT INTO document_use(document_id, hit_at, hits) SELECT DISTINCT document_id, ?, 1 FROM chunks"
                f" WHERE id IN ({','.join('?' * len(chunk_ids))})"
                f" ON CONFLICT(document_id) DO UPDATE SET hit_at = excluded.hit_at, hits = hits + 1",
                (time.time() if at is None else at, *chunk_ids))

    def note_opened(self, chunk_id: int, at: float | None = None) -> None:
        """A person opened this chunk's document from a result."""
        with self._transaction():
            self._db.execute(
                "INSERT INTO document_use(document_id, opened_at) SELECT document_id, ? FROM chunks WHERE id = ?"
                " ON CONFLICT(document_id) DO UPDATE SET opened_at = excluded.opened_at",
                (time.time() if at is None else at, chunk_id))

    def upgrade_first_folders(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT path FROM upgrade_first_folders ORDER BY path")]

    def mark_upgrade_first(self, folder: str, marked: bool = True) -> None:
        with self._transaction():
            if marked:
                self._db.execute("INSERT OR IGNORE INTO upgrade_first_folders(path, added_at) VALUES (?, ?)",
                                 (folder, time.time()))
            else:
                self._db.execute("DELETE FROM upgrade_first_folders WHERE path = ?", (folder,))

    # -- the order ------------------------------------------------------------------------------------------

    def next_upgrade(self, attempted_by: tuple[str, str] | None = None,
                     skip: Set[int] = frozenset()) -> tuple[int, str] | None:
        """The document to upgrade next and its reason (one of REASONS), leaving out `skip` (documents already
        taken whose chunks all fell back stay candidates); None when none waits."""
        return next(((d, r) for d, r in self.next_upgrades(attempted_by, len(skip) + 1) if d not in skip), None)

    def next_upgrades(self, attempted_by: tuple[str, str] | None = None, limit: int = 20,
                      now: float | None = None) -> list[tuple[int, str]]:
        """The next documents to upgrade, first first, each with its reason (one of REASONS)."""
        waiting, values = self._waiting_by_tier(attempted_by, now)
        rows = self._db.execute(
            f"{waiting} ORDER BY tier, CASE tier WHEN 1 THEN -u.opened_at WHEN 2 THEN -u.hit_at"
            f" WHEN 3 THEN -d.mtime_ns ELSE w.id END, w.id LIMIT ?", (*values, limit)).fetchall()
        return [(doc_id, REASONS[tier]) for doc_id, tier in rows]

    def upgrade_queue(self, attempted_by: tuple[str, str] | None = None, now: float | None = None) -> dict[str, int]:
        """Documents waiting for the upgrade, by reason, in the upgrade's order (reasons with none left out)."""
        waiting, values = self._waiting_by_tier(attempted_by, now)
        counts = dict(self._db.execute(f"SELECT tier, COUNT(*) FROM ({waiting}) GROUP BY tier", values).fetchall())
        return {REASONS[t]: counts[t] for t in sorted(counts)}

    def _waiting_by_tier(self, attempted_by: tuple[str, str] | None, now: float | None) -> tuple[str, tuple]:
        """SELECT (id, tier) of every document with a chunk waiting for the upgrade (the tier: REASONS' index),
        with its parameters; `d`, `u` and `w` are there to order by."""
        since = (time.time() if now is None else now) - RECENT_S
        marked, folder_values = ["0"], list[str]()
        for folder in self.upgrade_first_folders():
            sql, values = under("d.path", folder)
            marked.append(sql)
            folder_values.extend(values)
        model, version = attempted_by or (None, None)
        return (f"WITH waiting AS (SELECT DISTINCT c.document_id AS id FROM contexts x"
                f" JOIN chunks c ON c.id = x.chunk_id WHERE {RULES_NOT_TRIED})"
                f" SELECT w.id AS id, CASE WHEN {' OR '.join(marked)} THEN 0 WHEN u.opened_at >= ? THEN 1"
                f" WHEN u.hit_at >= ? THEN 2 WHEN d.mtime_ns >= ? THEN 3 ELSE 4 END AS tier"
                f" FROM waiting w JOIN documents d ON d.id = w.id LEFT JOIN document_use u ON u.document_id = w.id",
                (model, version, model, *folder_values, since, since, int(since * 1e9)))
