"""A hybrid search never waits long for the meaning index to open: it answers by words meanwhile, says so, and
marks the result so that the window and the quick search ask again (SearchResult.meaning_pending).

The vector store opens in its child as the service's first search comes, and again after a rest. At a million
passages that took 7 s, and 17 s with nothing of it in the system's file cache (bench/million_library.py, issue
64): the service's first answer came after 14.8 s, the first after a rest after 15.3 s. The keyword index opens
in 0.3 s at that size. A search asked for by meaning alone waits: the person asked for nothing else."""

from __future__ import annotations

import time
from typing import Protocol

# From the search's start: the store opens while the query is embedded, and a small library's store is open
# well within this (0.3 s at 105k passages after a rest, bench/idle_service.py).
MEANING_WAIT_S = 1.0
# A front end shown words alone (SearchResult.meaning_pending) asks again after this: each search waits its
# MEANING_WAIT_S in the service too, so a person sees meaning join in within ~2 s of the store opening.
ASK_AGAIN_MS = 1000
OPENING = ("keyword matches for now: search by meaning joins in as soon as the meaning index has opened (seconds, "
           "in a large library)")


class OpeningPart(Protocol):
    def ready_within(self, seconds: float) -> bool: ...


def meaning_in_time(started: float, *parts: OpeningPart) -> bool:
    """Whether the parts a search by meaning needs (the embedding model, the meaning index: each opens in its own
    process meanwhile) answer a search begun at `started` (time.monotonic()) without keeping it more than
    MEANING_WAIT_S in all."""
    return all(part.ready_within(max(0.0, started + MEANING_WAIT_S - time.monotonic())) for part in parts)
