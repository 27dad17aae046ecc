"""Words copied from source code — `DiffExecutor`, `run_target`, `issue92`, `0x1F` — count once more when a passage
holds them verbatim.

The keyword index splits such a word into its parts (diff, executor) so that "diff executor" finds it; a passage
that merely talks of executors then scores close to the one that names `DiffExecutor`. Measured with
bench/signals.py on the three evaluation sets (docs/benchmarks.md, "Signals beyond the two lists"): a bonus of
0.1 × the share of the query's identifiers a candidate holds moved 12 questions' first relevant passage up and none
down; the other signals tried there did not measure better on every set and are left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from desktop_rag.core.search.tuning import EXACT_IDENTIFIER_WEIGHT

_CANDIDATE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*|0x[0-9A-Fa-f]+|\d{3,}")


def looks_like_identifier(word: str) -> bool:
    """CamelCase, snake_case, a `path::name`, or a word with digits: a word someone copied from the source."""
    return ("_" in word or "::" in word or any(c.isdigit() for c in word)
            or (any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)))


def identifiers_in(query: str) -> list[str]:
    return list(dict.fromkeys(w for w in _CANDIDATE.findall(query) if looks_like_identifier(w)))


def lift_exact_identifiers(ranked: Sequence[tuple[int, float]], identifiers: list[str],
                           texts_of: Callable[[list[int]], dict[int, str]],
                           scale: float = 1.0) -> list[tuple[int, float]]:
    """`ranked` (chunk id, fused score) best first, each score raised by weight × scale × the share of
    `identifiers` its text holds verbatim; `scale` puts the bonus on the fusion's scale (1 for the convex
    combination's 0…1)."""
    if not identifiers or not ranked:
        return list(ranked)
    texts = texts_of([chunk_id for chunk_id, _ in ranked])
    bonus = EXACT_IDENTIFIER_WEIGHT * scale / len(identifiers)
    lifted = [(chunk_id, score + bonus * sum(word in texts.get(chunk_id, "") for word in identifiers))
              for chunk_id, score in ranked]
    return sorted(lifted, key=lambda pair: (-pair[1], pair[0]))
