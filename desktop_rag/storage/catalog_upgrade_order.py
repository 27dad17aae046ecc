"""Which document the background LLM upgrade takes next: what a person uses before the rest.

At ~5 s per chunk on 2 cores, a 100,000-chunk library needs days of upgrade; in indexing order, the documents a
person searches may be the last to get their contexts. So the next document is, in this order: one in a folder
marked "upgrade first" (a person asked), one opened from a search result, one among recent search hits (most
recent first), one modified lately (newest first), then the rest in indexing order. bench/upgrade_priority.py
measures what this buys: the share of top-5 hits with LLM contexts after an hour of upgrade.
"""

from __future__ import annotations

import time
from typing import Sequence

from desktop_rag.storage.catalog_contexts import RULES_NOT_TRIED
from desktop_rag.storage.catalog_files import under

RECENT_S = 30 * 86400.0  # searches, openings and changes older than this no longer put a document first
# Why a document comes when it does, by tier: the progress panel and `stats` say it.
REASONS = ("in a folder marked upgrade first", "opened from a search result", "among recent search hits",
           "modified in the last 30 days", "in indexing order")


def upgrade_order_sentence(queue: dict[str, int]) -> str:
    """`upgrade_queue()` in words: "2 documents opened from a search result, then 40 in indexing order"."""
    parts = [f"{count:,} {reason}" for reason, count in queue.items()]
    if not parts:
        return ""
    first = parts[0].split(" ", 1)
    return f"{first[0]} document{'s' if first[0] != '1' else ''} {first[1]}" + "".join(f", then {p}" for p in parts[1:])


class CatalogUpgradeOrder:
    """Methods of Catalog that need its _db and _transaction()."""

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

    def next_upgrades(self, attempted_by: tuple[str, str] | None = None, limit: int = 20,
                      now: float | None = None) -> list[tuple[int, str]]:
        """The next documents to upgrade, first first, each with its reason (one of REASONS)."""
        tier, values = self._tier(now)
        model, version = attempted_by or (None, None)
        rows = self._db.execute(
            f"WITH waiting AS (SELECT DISTINCT c.document_id AS id FROM contexts x JOIN chunks c ON c.id = x.chunk_id"
            f" WHERE {RULES_NOT_TRIED})"
            f" SELECT w.id, {tier} AS tier FROM waiting w JOIN documents d ON d.id = w.id"
            f" LEFT JOIN document_use u ON u.document_id = w.id"
            f" ORDER BY tier, CASE tier WHEN 1 THEN -u.opened_at WHEN 2 THEN -u.hit_at WHEN 3 THEN -d.mtime_ns"
            f" ELSE w.id END, w.id LIMIT ?",
            (model, version, model, *values, limit)).fetchall()
        return [(doc_id, REASONS[tier]) for doc_id, tier in rows]

    def upgrade_queue(self, attempted_by: tuple[str, str] | None = None, now: float | None = None) -> dict[str, int]:
        """Documents waiting for the upgrade, by reason, in the upgrade's order (reasons with none left out)."""
        tier, values = self._tier(now)
        model, version = attempted_by or (None, None)
        counts = dict(self._db.execute(
            f"WITH waiting AS (SELECT DISTINCT c.document_id AS id FROM contexts x JOIN chunks c ON c.id = x.chunk_id"
            f" WHERE {RULES_NOT_TRIED})"
            f" SELECT {tier} AS tier, COUNT(*) FROM waiting w JOIN documents d ON d.id = w.id"
            f" LEFT JOIN document_use u ON u.document_id = w.id GROUP BY tier",
            (model, version, model, *values)).fetchall())
        return {REASONS[t]: counts[t] for t in sorted(counts)}

    def _tier(self, now: float | None) -> tuple[str, tuple]:
        since = (time.time() if now is None else now) - RECENT_S
        marked, values = ["0"], []
        for folder in self.upgrade_first_folders():
            sql, folder_values = under("d.path", folder)
            marked.append(sql)
            values.extend(folder_values)
        return (f"CASE WHEN {' OR '.join(marked)} THEN 0 WHEN u.opened_at >= ? THEN 1 WHEN u.hit_at >= ? THEN 2"
                f" WHEN d.mtime_ns >= ? THEN 3 ELSE 4 END", (*values, since, since, int(since * 1e9)))
