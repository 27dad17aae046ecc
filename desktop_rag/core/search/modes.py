"""The ways a search may rank and order, named once: for the searcher and for the CLI's parser, which every
command loads (the searcher's imports, numpy among them, took half of `desktop-rag stop`'s start)."""

MODES = ("hybrid", "dense", "bm25")
SORTS = ("relevance", "newest", "oldest")
