"""`made_once`: a part of an object built on first use and kept, as functools.cached_property, but safe when threads
ask at once. The library's parts (the embedder's child, the vector store's, Chroma) are asked for by four lanes
and the endpoint's pool: functools.cached_property builds one per thread that asks at once on Python >= 3.12 (the
loser's child process never closed), and on 3.11 holds one lock for every instance of the class (a second library
waited for the first one's model to load)."""

from __future__ import annotations

import threading
from typing import Any, Generic, TypeVar
from collections.abc import Callable

T = TypeVar("T")

_LOCKS_KEY = "_made_once_locks"
_guard = threading.Lock()  # held for the moment a lock is made, never while a part is built


class made_once(Generic[T]):  # noqa: N801 — used as a decorator, named like functools.cached_property
    def __init__(self, make: Callable[[Any], T]):
        self.make = make
        self.name = make.__name__
        self.__doc__ = make.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> T:
        if instance is None:
            return self  # type: ignore[return-value]  # the descriptor itself, read from the class
        values = instance.__dict__
        if self.name in values:
            return values[self.name]
        with self._lock(values):  # one lock per part of each object: parts of others are built meanwhile
            if self.name not in values:
                values[self.name] = self.make(instance)
            return values[self.name]

    def _lock(self, values: dict) -> threading.Lock:
        with _guard:
            locks = values.setdefault(_LOCKS_KEY, {})
            return locks.setdefault(self.name, threading.Lock())
