"""Persistence adapters: the SQLite catalog (source of truth), Chroma (dense) and bm25s (keyword).

No Qt here. Both indexes are derived from the catalog and can be rebuilt from it.
"""
