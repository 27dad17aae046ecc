"""The model is given back when unused for a while, whoever used it last, never in the middle of a call
(desktop_rag/use_clock.py); a clock moved by hand."""

from desktop_rag.use_clock import UseClock
from fake_models import FakeClock


def test_a_model_is_closed_only_once_unused_for_the_time_given_and_never_during_a_call():
    clock = FakeClock(100.0)
    use, closed = UseClock(clock=clock), []
    with use.call():
        clock.now += 3600
        assert not use.unused_for(60) and not use.close_if_unused(60, lambda: closed.append(1))  # a long call
    clock.now += 59
    assert not use.unused_for(60) and not use.close_if_unused(60, lambda: closed.append(1))
    clock.now += 1  # a minute after the call ended
    assert use.unused_for(60) and use.close_if_unused(60, lambda: closed.append(1))
    assert closed == [1]


def test_a_failed_call_counts_as_a_use_that_ended():
    clock = FakeClock(0.0)
    use = UseClock(clock=clock)
    try:
        with use.call():
            clock.now += 10
            raise RuntimeError("the model crashed")
    except RuntimeError:
        pass
    assert not use.unused_for(5)  # its clock starts at the end of the call, and no call is in hand any more
    clock.now += 5
    assert use.unused_for(5)
