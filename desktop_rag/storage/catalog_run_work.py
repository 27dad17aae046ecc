"""What the catalog knows of a run's work beyond the documents: the work kept from earlier runs under a run's
folders, what waits to be embedded in word pieces, and the share the last run over folders showed with the work it
left (core/indexing/run_share.py). A part of Catalog (`catalog.run_work`)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from desktop_rag.storage.catalog_connection import CatalogConnection
from desktop_rag.storage.catalog_files import under

_RUN_LEFT = "run_left"  # the meta key of what the last run over folders showed and left


class CatalogRunWork:
    def __init__(self, connection: CatalogConnection):
        self._connection = connection
        self._db = connection.db

    def count_embedded(self) -> int:
        """Chunks searchable by meaning, in the whole library (all less those waiting: both counts use an index)."""
        return (self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
                - self._db.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 0").fetchone()[0])

    def embedded_chunks_under(self, folders: Sequence[str]) -> int:
        """Chunks of the documents under `folders` (members too) searchable by meaning: a run's work kept."""
        total = 0
        for folder in folders:
            condition, params = under("d.path", folder)
            total += self._db.execute(f"SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.document_id"
                                      f" WHERE c.embedded = 1 AND {condition}", params).fetchone()[0]
        return total

    def pending_pieces(self) -> int:
        """The word pieces the embedder will read of the chunks waiting: each chunk's, and its context's at the
        chunk's own pieces per character. (A run's time left for what an earlier run left was guessed at 200 a
        chunk, and said 50 s of what took 34: issue 60.)"""
        return round(self._db.execute(
            "SELECT COALESCE(SUM(c.token_count * (1.0 + COALESCE(LENGTH(x.text), 0) * 1.0 / MAX(LENGTH(c.text), 1))),"
            " 0) FROM chunks c LEFT JOIN contexts x ON x.chunk_id = c.id WHERE c.embedded = 0").fetchone()[0])

    def run_left(self) -> dict:
        """What the last run over folders showed and left when it last said."""
        return json.loads(self._connection.meta(_RUN_LEFT, "{}"))

    def remember_run_left(self, left: dict) -> None:
        self._connection.set_meta(_RUN_LEFT, json.dumps(left))
