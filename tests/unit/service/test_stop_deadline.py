"""The stop's deadline (issue 60, 1): overdue only when the process has not ended its own way in time."""

from __future__ import annotations

import threading
import time

from desktop_rag.service.stop_deadline import StopDeadline, threads_now


def _deadline_with_fake_overdue(seconds: float) -> tuple[StopDeadline, threading.Event]:
    called = threading.Event()
    deadline = StopDeadline(seconds)
    deadline.overdue = called.set  # (a fake: the real one ends the process)
    return deadline, called


def test_a_stop_not_done_in_time_is_overdue_and_one_done_in_time_is_not():
    late, late_called = _deadline_with_fake_overdue(0.05)
    late.arm()
    assert late_called.wait(5)

    in_time, in_time_called = _deadline_with_fake_overdue(0.2)
    in_time.arm()
    in_time.ended()
    assert not in_time_called.wait(0.5)


def test_an_unarmed_deadline_never_fires_and_a_second_stop_keeps_the_first_ones_deadline():
    _unarmed, unarmed_called = _deadline_with_fake_overdue(0.01)
    assert not unarmed_called.wait(0.2)
    twice = StopDeadline(0.05)
    calls: list[int] = []
    twice.overdue = lambda: calls.append(1)  # (a fake: the real one ends the process)
    twice.arm()
    twice.arm()
    time.sleep(0.5)
    assert calls == [1]


def test_the_log_gets_every_threads_stack():
    assert "test_the_log_gets_every_threads_stack" in threads_now()
