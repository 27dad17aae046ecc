"""Waiting in tests for what another thread or process does, without fixed sleeps."""

from __future__ import annotations

import time


def eventually(predicate, timeout=30.0, interval=0.05):
    """The predicate's first true value within `timeout` seconds, asked every `interval` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"not true after {timeout} s: {predicate.__doc__ or predicate}")
