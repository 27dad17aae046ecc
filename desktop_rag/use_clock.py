"""When a part holding much memory was last used, and whether a call is in hand: the memory is given back once the
part has been unused for a while, whoever used it last. The language model (1.2 GB for the 1.5B) after the
background upgrade, a person regenerating a context or an agent; a child process such as the document reader (its
tokenizer and the high-water mark of the files it read: 780 MB after a first run of 500 files). Issue 37: the
model's process still held 1.1 GB 25 minutes after its last call, because only the upgrade's own end started the
clock."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from collections.abc import Callable, Iterator


class UseClock:
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._lock = threading.Lock()
        self._calls = 0
        self._last_used = clock()

    @contextmanager
    def call(self) -> Iterator[None]:
        """Around every call that needs the model loaded."""
        with self._lock:
            self._calls += 1
        try:
            yield
        finally:
            with self._lock:
                self._calls -= 1
                self._last_used = self._clock()

    def unused_for(self, seconds: float) -> bool:
        with self._lock:
            return not self._calls and self._clock() - self._last_used >= seconds

    def close_if_unused(self, seconds: float, close: Callable[[], None]) -> bool:
        """`close()` if no call is in hand and none ended in the last `seconds` (a call starting meanwhile waits
        until the close is over, then finds the model closed: the library hands out a new one)."""
        with self._lock:
            if self._calls or self._clock() - self._last_used < seconds:
                return False
            close()
            return True
