"""RunControl's pause as the service reports it: asked at once, held only at a checkpoint (RunState.held)."""

import threading
import time

import pytest

from desktop_rag.core.progress.control import Cancelled, RunControl


def test_a_pause_is_held_only_once_the_worker_reaches_a_checkpoint_and_resume_lets_it_go():
    control = RunControl()
    told: list[bool] = []
    control.on_held = told.append
    steps_done: list[int] = []
    step_in_hand = threading.Event()

    def worker():
        for step in range(3):
            step_in_hand.wait(5)
            steps_done.append(step)
            control.checkpoint()

    control.pause()
    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    try:
        held_after_the_step(control, told, steps_done, step_in_hand)
    finally:
        control.resume()
        step_in_hand.set()
    thread.join(5)
    assert told == [True, False] and steps_done == [0, 1, 2]


def held_after_the_step(control, told, steps_done, step_in_hand):
    time.sleep(0.3)
    assert control.paused and told == []  # asked, but the step in hand is not over: not held yet
    step_in_hand.set()
    deadline = time.monotonic() + 5
    while told != [True] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert told == [True] and steps_done == [0]
    time.sleep(0.3)
    assert steps_done == [0]  # held: nothing moves


def test_a_checkpoint_passed_while_running_reports_nothing_and_a_cancel_while_held_ends_the_hold():
    control = RunControl()
    told: list[bool] = []
    control.on_held = told.append
    control.checkpoint()
    assert told == []
    control.pause()
    threading.Timer(0.2, control.cancel).start()
    with pytest.raises(Cancelled):
        control.checkpoint()
    assert told == [True, False]
