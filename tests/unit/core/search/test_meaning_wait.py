"""How long a hybrid search waits for the meaning index to open: what is left of MEANING_WAIT_S from the search's
start (the store opening with a real child process: tests/end2end/test_vector_process.py)."""

import time

from desktop_rag.core.search import meaning_wait
from desktop_rag.core.search.meaning_wait import MEANING_WAIT_S, meaning_in_time


class FakeOpeningStore:
    """Records the waits asked of it, and waits them out (up to `opens_after`: then it is open)."""

    def __init__(self, opens_after: float):
        self.opens_after = opens_after
        self.waits: list[float] = []

    def ready_within(self, seconds: float) -> bool:
        self.waits.append(seconds)
        time.sleep(min(seconds, self.opens_after))
        return seconds >= self.opens_after


def test_the_wait_is_what_is_left_of_the_search_s_second():
    store = FakeOpeningStore(opens_after=0.5)
    assert meaning_in_time(time.monotonic() - 0.2, store)  # 0.8 s left: the store opens within them
    assert MEANING_WAIT_S - 0.25 < store.waits[0] <= MEANING_WAIT_S - 0.2


def test_a_search_past_its_second_does_not_wait_at_all():
    store = FakeOpeningStore(opens_after=0.01)
    assert not meaning_in_time(time.monotonic() - 3 * MEANING_WAIT_S, store)  # embedding took it all
    assert store.waits == [0.0]


def test_the_parts_share_the_second_the_model_first_then_the_store():
    model, store = FakeOpeningStore(opens_after=0.3), FakeOpeningStore(opens_after=0.3)
    assert not meaning_in_time(time.monotonic() - 0.6, model, store)  # 0.4 s left: the model's 0.3, then 0.1
    assert model.waits[0] > 0.35 and store.waits[0] < 0.15


def test_the_wait_is_read_as_the_search_runs(monkeypatch):
    monkeypatch.setattr(meaning_wait, "MEANING_WAIT_S", 0.0)
    store = FakeOpeningStore(opens_after=0.01)
    assert not meaning_in_time(time.monotonic(), store)
