"""What the keyword index's changes' segment holds (issue 64): the chunks whose keyword text changed since its large
segment was made, noted by the catalog's triggers (migration 0020), in order, and how far the index has taken them.
A part of Catalog (`catalog.keyword_changes`)."""

from __future__ import annotations

from desktop_rag.documents import keyword_text
from desktop_rag.storage.catalog_connection import KEYWORD_INDEX_DIRTY, CatalogConnection

_INDEXED = "keyword_changes_indexed"  # the meta key: the last change the index holds
# From the changes to their chunks (CROSS JOIN: SQLite keeps that order). Left to the planner it walked every chunk
# in id order, looking each up among the changes: 300-450 ms of each save's at a million passages, 0.1 ms now.
CHANGED_TEXTS = ("SELECT c.id, COALESCE(x.text, ''), c.text, COALESCE(x.questions, '') FROM keyword_changes k"
                 " CROSS JOIN chunks c ON c.id = k.chunk_id LEFT JOIN contexts x ON x.chunk_id = c.id"
                 " WHERE k.seq > ? ORDER BY c.id")


class CatalogKeywordChanges:
    def __init__(self, connection: CatalogConnection):
        self._connection = connection
        self._db = connection.db

    def latest(self) -> int:
        """The last change noted (0: none since the last merge)."""
        return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM keyword_changes").fetchone()[0])

    def indexed(self) -> int:
        return int(self._connection.meta(_INDEXED, "0"))

    @property
    def rebuild_asked(self) -> bool:
        """The index is to be made anew from every text (lost, damaged, another tokenizer, a re-index)."""
        return self._connection.meta(KEYWORD_INDEX_DIRTY, "0") == "1"

    @property
    def waiting(self) -> bool:
        """A change the index does not hold yet, or a rebuild asked."""
        return self.rebuild_asked or self.latest() > self.indexed()

    def count(self, waiting_only: bool = False) -> int:
        """The chunks the changes' segment holds or masks; `waiting_only`: those it does not hold yet."""
        after = self.indexed() if waiting_only else 0
        return int(self._db.execute("SELECT COUNT(*) FROM keyword_changes WHERE seq > ?", (after,)).fetchone()[0])

    def changed(self, after: int = 0) -> tuple[int, list[tuple[int, str]], list[int]]:
        """(the last change, the keyword texts of the chunks changed after change `after` that are still there,
        every chunk changed after it)."""
        with self._connection.transaction():  # one moment's view: no change between the three
            latest = self.latest()
            rows = self._db.execute(CHANGED_TEXTS, (after,)).fetchall()
            changed = [r[0] for r in self._db.execute(
                "SELECT chunk_id FROM keyword_changes WHERE seq > ? ORDER BY chunk_id", (after,))]
        return latest, [(r[0], keyword_text(r[1], r[2], r[3])) for r in rows], changed

    def held_up_to(self, seq: int) -> None:
        """The index holds every change up to `seq` (in its changes' segment)."""
        self._connection.set_meta(_INDEXED, str(seq))

    def merged_up_to(self, seq: int) -> None:
        """The large segment holds every change up to `seq`: those notes are done with (one noted again since has
        a later seq and stays)."""
        with self._connection.transaction():
            self._forget(seq)

    def rebuilt_up_to(self, seq: int) -> None:
        """Made anew from every text as of change `seq`."""
        with self._connection.transaction():
            self._forget(seq)
            self._connection.set_meta(KEYWORD_INDEX_DIRTY, "0")

    def _forget(self, seq: int) -> None:
        self._db.execute("DELETE FROM keyword_changes WHERE seq <= ?", (seq,))
        if seq > self.indexed():
            self.held_up_to(seq)
