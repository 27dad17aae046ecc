"""A library this process may not write (a read-only disk, a copy, another user's: issue 50) is searched as it is.
No service is started for it (none could hold it), the catalog is opened read-only, and the dense index is read
from the catalog's own copy of every chunk's vectors (migration 0011) and searched exactly: Chroma cannot open a
store it may not write ("attempt to write a readonly database").

Exact search costs ~4 µs per passage on 2 cores (filtered_dense.py), 0.4 s at 100k; the vectors are read from
the catalog once, at the first search (float16: ~80 MB at 100k passages)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from desktop_rag.core.search.filtered_dense import exact_nearest
from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.errors import DataFolderUnusable
from desktop_rag.storage.catalog_access import CATALOG_FILE

__all__ = ["CATALOG_FILE", "READ_ONLY_SEARCH", "CatalogVectors"]

# What such a library still does, and what it does not: said with every search.
READ_ONLY_SEARCH = ("this library's data folder cannot be written: searching works (by words and by meaning), but "
                    "indexing, edits and the LLM upgrade need a data folder you may write")


class CatalogVectors:
    def __init__(self, catalog, dimension: Callable[[], int]):
        """`catalog`: the library's reading connection; `dimension()`: the embedder's (read when first needed)."""
        self._catalog = catalog
        self._dimension = dimension
        self._loaded: tuple[np.ndarray, np.ndarray] | None = None
        self._loading = threading.Lock()

    def _all(self, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        with self._loading:
            if self._loaded is None:
                self._loaded = self._catalog.filters.filtered_vectors(SearchFilters(), dimension)
            return self._loaded

    def count(self) -> int:
        return len(self.chunk_ids())

    def chunk_ids(self) -> set[int]:
        return self._catalog.filters.chunks_with_vectors()

    def query(self, vector: np.ndarray, n: int) -> list[tuple[int, float]]:
        owners, matrix = self._all(len(vector))
        return exact_nearest(vector, owners, matrix, n)

    def windows(self, chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
        return self._catalog.filters.chunk_vectors(chunk_ids, self._dimension())

    def wake(self) -> None:
        pass

    def ready_within(self, seconds: float) -> bool:
        return True  # the catalog's copy is read on first use, within the search itself

    def rest_if_unused(self, seconds: float) -> bool:
        return False

    def close(self) -> None:
        self._loaded = None

    def add(self, *arguments) -> None:
        raise DataFolderUnusable("this library's data folder cannot be written")

    def delete(self, *arguments) -> None:
        self.add()

    def reset(self) -> None:
        self.add()
