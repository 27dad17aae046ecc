"""What a search filter allows (core/search/filters.py), and the stored vectors a filtered search scores exactly.
A part of Catalog (`catalog.filters`).

Measured at 100k chunks (10k documents): the chunk ids of a filter allowing 30% of them come back in ~9 ms; the
vectors of 5,000 chunks, read and scored, ~13 ms.
"""

from __future__ import annotations

import os
from collections import Counter
from itertools import chain
from collections.abc import Mapping, Sequence

import numpy as np

from desktop_rag.storage.catalog_files import under
from desktop_rag.storage.catalog_connection import CatalogConnection

VECTOR_TYPE = np.float16  # half the size of float32; cosines move by ~1e-3, below any rank that matters
_PARAMETERS_PER_QUERY = 500  # SQLite limits bound parameters; far below every build's limit
_VECTORS_TO_COPY = "vectors_to_copy"  # set by migration 0011 when chunks were embedded before it
# Documents first, then their chunks through the (document_id, idx) index: CROSS JOIN keeps SQLite to that order.
# Left to itself it scanned every chunk row (their text too) and looked up each one's document: 60–130 ms at
# 110k chunks for a folder, a date or a sender, against ~10 ms this way.
_DOCUMENTS_THEN_CHUNKS = "documents d CROSS JOIN chunks c ON c.document_id = d.id"
_FEW_DOCUMENTS = 1000
_FILTERS_KEPT = 2  # the chunks a filter allows, kept for so many filters (a folder's 2/3 of a million: 5 MB)


def in_sorted(ids: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """For each of `ids`, whether it is in `allowed` (sorted ids, as filtered_chunk_ids gives them): a binary search
    each, ~2 ms for 100k ids."""
    if not len(allowed):
        return np.zeros(len(ids), dtype=bool)
    places = np.minimum(np.searchsorted(allowed, ids), len(allowed) - 1)
    return allowed[places] == ids


def filter_condition(filters) -> tuple[str, list]:
    """The SQL condition on `documents d` that `filters` (a SearchFilters) make, with its parameters. (No
    `status = 'indexed'`: a failed document has no chunks, and reading the status reads the row, text and all.)"""
    parts: list[str] = []
    args: list = []
    folder_parts = []
    for folder in filters.folders:
        if os.path.isabs(folder):
            sql, values = under("d.path", folder)
            folder_parts.append(sql)
            args += values
        else:  # a folder's name, anywhere in the path (a member's folders inside an archive too)
            folder_parts.append("(lower(d.path) LIKE ? ESCAPE '\\' OR lower(d.path) LIKE ? ESCAPE '\\')")
            name = _like_escaped(folder.lower())
            args += [f"%/{name}/%", f"%\\\\{name}\\\\%"]
    if folder_parts:
        parts.append("(" + " OR ".join(folder_parts) + ")")
    if filters.types:
        parts.append(f"d.family IN ({','.join('?' * len(filters.types))})")
        args += list(filters.types)
    if filters.after is not None:
        parts.append("d.dated >= ?")
        args.append(filters.after)
    if filters.before is not None:
        parts.append("d.dated < ?")
        args.append(filters.before)
    if filters.sender:  # "IS NOT NULL" lets SQLite read the partial index documents_by_sender alone
        parts.append("d.sender IS NOT NULL AND d.sender LIKE ? ESCAPE '\\'")
        args.append(f"%{_like_escaped(filters.sender)}%")
    return " AND ".join(parts) or "1", args


def _like_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class CatalogFilters:
    """What a filter allows, and the vectors the catalog keeps for exact filtered scoring."""

    def __init__(self, connection: CatalogConnection):
        self._connection = connection
        self._db = connection.db
        self._transaction = connection.transaction
        # Kept while nothing a filter sees changes (the version migration 0021's triggers keep), read before what
        # is kept: a change committed meanwhile makes the next search read again.
        self._chunk_map: tuple[int, np.ndarray, np.ndarray] | None = None
        self._allowed: dict[tuple[str, tuple], tuple[int, np.ndarray]] = {}  # the last _FILTERS_KEPT filters'

    def filtered_chunk_ids(self, filters) -> np.ndarray:
        """The ids of every chunk the filters allow, sorted (read-only: kept for the next search with these
        filters). At a million passages a folder of 2/3 of them took ~180 ms to find again: 80 ms the documents'
        rows, the rest their chunks."""
        where, args = filter_condition(filters)
        version, key = self._version(), (where, tuple(args))
        kept = self._allowed.get(key)
        if kept is not None and kept[0] == version:
            return kept[1]
        allowed = self._allowed_now(where, args)
        allowed.setflags(write=False)
        others = [(k, v) for k, v in self._allowed.items() if k != key][-(_FILTERS_KEPT - 1):]
        self._allowed = {**dict(others), key: (version, allowed)}
        return allowed

    def _version(self) -> int:
        return int(self._db.execute("SELECT version FROM filter_rows_version").fetchone()[0])

    def _allowed_now(self, where: str, args: list) -> np.ndarray:
        """Few documents: their chunks from SQL; many: from the map of every chunk to its document (110k chunks:
        55k ids in ~5 ms, against ~20 ms of rows read one by one)."""
        documents = np.fromiter((r[0] for r in self._db.execute(f"SELECT d.id FROM documents d WHERE {where}",
                                                                 args)), dtype=np.int64)
        if len(documents) <= _FEW_DOCUMENTS:
            rows = self._db.execute(f"SELECT c.id FROM {_DOCUMENTS_THEN_CHUNKS} WHERE {where}", args).fetchall()
            return np.sort(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
        chunk_ids, chunk_documents = self._chunk_documents()
        chosen = np.zeros(int(max(chunk_documents.max(initial=0), documents.max())) + 1, dtype=bool)
        chosen[documents] = True  # (np.isin sorted both: 14 ms at a million chunks, this 5)
        return chunk_ids[chosen[chunk_documents]]

    def _chunk_documents(self) -> tuple[np.ndarray, np.ndarray]:
        """(chunk ids sorted, each one's document id): a million rows take ~2.5 s."""
        version = self._version()
        cached = self._chunk_map
        if cached is None or cached[0] != version:
            # Unordered, the (document_id, idx) index answers alone (~40 ms at 110k chunks; ORDER BY id reads the
            # rows: twice that); numpy sorts.
            rows = self._db.execute("SELECT id, document_id FROM chunks").fetchall()
            pairs = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=2 * len(rows)).reshape(-1, 2)
            pairs = pairs[np.argsort(pairs[:, 0])]
            cached = self._chunk_map = (version, pairs[:, 0].copy(), pairs[:, 1].copy())
        return cached[1], cached[2]

    def filtered_vectors(self, filters, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """(owners, float16 vectors) of the embedded chunks the filters allow: one row per embedder window, a
        chunk's windows one after another. Chunks embedded before vectors were kept here (migration 0011) are left out
        until the next run stores theirs."""
        where, args = filter_condition(filters)
        # A row here means the chunk is in the dense index (migration 0011's trigger drops it when the chunk leaves
        # it), so the chunk rows, text and all, are never read: only the (document_id, idx) index.
        rows = self._db.execute(
            f"SELECT v.chunk_id, v.vectors FROM {_DOCUMENTS_THEN_CHUNKS} CROSS JOIN chunk_vectors v"
            f" ON v.chunk_id = c.id WHERE {where}", args).fetchall()
        return _unpacked(rows, dimension)

    def newest_chunks(self, filters, limit: int) -> list[int]:
        """The first chunk of each document the filters allow, newest document first: what a search of filters
        alone ("type:mail from:anna") lists."""
        where, args = filter_condition(filters)
        return [r[0] for r in self._db.execute(
            f"SELECT c.id FROM {_DOCUMENTS_THEN_CHUNKS} WHERE c.idx = 0 AND {where}"
            " ORDER BY d.dated DESC, d.path LIMIT ?", args + [limit])]

    def follow_families(self, families: Mapping[str, str], default: str) -> int:
        """The catalog's table of families as `families` (parser name → family; `default` for any other parser)
        says, and the documents stored given theirs again where it changed (migration 0019): the writer's, before
        its first write. How many documents changed family."""
        wanted = {**families, "": default}
        if dict(self._db.execute("SELECT parser, family FROM parser_families").fetchall()) == wanted:
            return 0
        with self._transaction():
            self._db.execute("DELETE FROM parser_families")
            self._db.executemany("INSERT INTO parser_families(parser, family) VALUES (?, ?)", wanted.items())
            return self._db.execute(
                "UPDATE documents SET family = new.family FROM (SELECT d.id, COALESCE(p.family, o.family) AS family"
                " FROM documents d LEFT JOIN parser_families p ON p.parser = d.parser"
                " JOIN parser_families o ON o.parser = '' WHERE d.parser IS NOT NULL) AS new"
                " WHERE documents.id = new.id AND documents.family IS NOT new.family").rowcount

    def family_counts(self, chunk_ids: Sequence[int]) -> dict[str, int]:
        """Documents per family among the documents of `chunk_ids`."""
        documents: dict[int, str] = {}
        for start in range(0, len(chunk_ids), _PARAMETERS_PER_QUERY):
            part = [int(i) for i in chunk_ids[start:start + _PARAMETERS_PER_QUERY]]
            documents.update(self._db.execute(
                "SELECT d.id, d.family FROM chunks c JOIN documents d ON d.id = c.document_id"
                f" WHERE c.id IN ({','.join('?' * len(part))})", part).fetchall())
        return dict(Counter(documents.values()))

    # -- stored vectors -------------------------------------------------------------------------------------

    def chunk_vectors(self, chunk_ids: Sequence[int], dimension: int) -> dict[int, np.ndarray]:
        """The stored windows of these chunks (float32, one row per window), for the chunks that have them."""
        found: dict[int, np.ndarray] = {}
        for start in range(0, len(chunk_ids), _PARAMETERS_PER_QUERY):
            part = [int(i) for i in chunk_ids[start:start + _PARAMETERS_PER_QUERY]]
            rows = self._db.execute(f"SELECT chunk_id, vectors FROM chunk_vectors WHERE chunk_id IN"
                                    f" ({','.join('?' * len(part))})", part).fetchall()
            for chunk_id, blob in rows:
                vectors = np.frombuffer(blob, dtype=VECTOR_TYPE)
                if len(vectors) and len(vectors) % dimension == 0:  # another model's: not this one's to use
                    found[chunk_id] = vectors.reshape(-1, dimension).astype(np.float32)
        return found

    def chunks_with_vectors(self) -> set[int]:
        """Every chunk whose vectors are kept here: the chunks in the dense index (the trigger of 0011)."""
        return {r[0] for r in self._db.execute("SELECT chunk_id FROM chunk_vectors")}

    def chunks_without_vectors(self, limit: int) -> list[int]:
        """Chunks in the dense index whose vectors are not kept here (embedded before migration 0011), while
        there may be some; once none is left, [] without looking (a scan of every chunk)."""
        if self._connection.meta(_VECTORS_TO_COPY, "0") != "1":
            return []
        missing = [r[0] for r in self._db.execute(
            "SELECT c.id FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id"
            " WHERE c.embedded = 1 AND v.chunk_id IS NULL ORDER BY c.id LIMIT ?", (limit,))]
        if not missing:
            self._connection.set_meta(_VECTORS_TO_COPY, "0")
        return missing

    def store_vectors(self, owners: Sequence[int], vectors: np.ndarray) -> None:
        """Keep the vectors written to the dense index; owners[i] is the chunk of vectors[i], windows in a row."""
        with self._transaction():
            self.write_vectors(owners, vectors)

    def write_vectors(self, owners: Sequence[int], vectors: np.ndarray) -> None:
        """`store_vectors` inside the caller's transaction (the catalog's mark_embedded)."""
        rows, i = [], 0
        while i < len(owners):
            j = i
            while j < len(owners) and owners[j] == owners[i]:
                j += 1
            rows.append((int(owners[i]), np.asarray(vectors[i:j], dtype=VECTOR_TYPE).tobytes()))
            i = j
        self._db.executemany("INSERT OR REPLACE INTO chunk_vectors(chunk_id, vectors) VALUES (?, ?)", rows)


def _unpacked(rows, dimension: int) -> tuple[np.ndarray, np.ndarray]:
    """(owners, float16 vectors) from (chunk id, blob) rows, in one copy of all the blobs."""
    width = dimension * np.dtype(VECTOR_TYPE).itemsize
    # A chunk of another model's width cannot be among them (its row goes with its vectors); checked anyway.
    kept = [(chunk_id, blob) for chunk_id, blob in rows if blob and len(blob) % width == 0]
    owners = np.repeat(np.fromiter((c for c, _ in kept), dtype=np.int64, count=len(kept)),
                       [len(b) // width for _, b in kept])
    matrix = np.frombuffer(b"".join(b for _, b in kept), dtype=VECTOR_TYPE).reshape(-1, dimension)
    return owners, matrix
