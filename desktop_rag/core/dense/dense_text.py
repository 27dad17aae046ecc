"""What the embedder sees for a chunk: context + text, cut into windows that fit its 256 pieces.

The embedder silently drops everything past its window. Measured on the codebase set (pre-chunked chunks,
75% of context + chunk inputs over the limit), embedding the chunk in windows that each carry the context and
scoring a chunk by its best window raised dense recall@5/@20 from 66.8/83.1 to 71.4/87.4 (rules contexts) and
from 67.6/80.5 to 69.3/83.0 (no contexts). Chunks from our own chunker fit in one window: chunk_tokens +
context_max_tokens is set to the window.
"""

from __future__ import annotations

from desktop_rag.core.dense.tokens import CountsTokens
from desktop_rag.documents import index_text

# Pieces of text per window. all-MiniLM-L6-v2 reads 256, two of which are [CLS] and [SEP]; our own chunker's chunks,
# context included, fit (chunk_tokens + context_max_tokens). multilingual-e5 reads 512, but windows that long
# measured worse (codebase, rules contexts: dense R@1 40.8 vs 44.2, hybrid R@5 84.0 vs 85.3): more, shorter
# windows, each carrying the context, are kept. A model reading fewer pieces (`CountsTokens.text_limit`) gets less.
EMBEDDER_TEXT_PIECES = 254
# A window shorter than this says too little; past it, a long context is what gets cut, not the chunk.
_MIN_WINDOW_PIECES = 64
_SEPARATOR_PIECES = 2


def window_limit(counter: CountsTokens) -> int:
    """Pieces of text per window for the model `counter` counts for."""
    return min(counter.text_limit, EMBEDDER_TEXT_PIECES)


def dense_windows(context: str, text: str, counter: CountsTokens, limit: int | None = None) -> list[str]:
    return dense_windows_of([(context, text)], counter, limit)[0]


def dense_windows_of(pairs: list[tuple[str, str]], counter: CountsTokens, limit: int | None = None) -> list[list[str]]:
    """dense_windows of each (context, text), the word pieces of all counted in one call (the counter may be a
    child process's, a pipe away)."""
    return dense_windows_counted(pairs, counter, limit)[0]


def dense_windows_counted(pairs: list[tuple[str, str]], counter: CountsTokens,
                          limit: int | None = None) -> tuple[list[list[str]], int]:
    """dense_windows_of, and the word pieces the embedder reads in all of them (what embedding them costs: a run's
    ETA is paced by it, core/progress/run_meter.py)."""
    limit = limit or window_limit(counter)
    fulls = [index_text(context, text) for context, text in pairs]
    counts = iter(counter.count([part for (context, _), full in zip(pairs, fulls) for part in (context, full)]))
    found = []
    pieces = 0
    for (context, text), full in zip(pairs, fulls):
        context_pieces, full_pieces = next(counts), next(counts)
        if full_pieces <= limit:
            found.append([full])
            pieces += full_pieces
            continue
        budget = max(limit - context_pieces - _SEPARATOR_PIECES, _MIN_WINDOW_PIECES)
        windows = [index_text(context, text[a:b]) for a, b in counter.windows(text, budget)]
        found.append(windows)
        pieces += full_pieces + (len(windows) - 1) * (context_pieces + _SEPARATOR_PIECES)  # each carries the context
    return found, pieces
