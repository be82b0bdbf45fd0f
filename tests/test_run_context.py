"""What an action reads of its run, and how a test of an action sets it without a tick."""

import pytest

from tickwork import call, clock
from tickwork.context import NotInRun
from tickwork.times import utc


def test_outside_a_run_clock_now_and_call_say_they_are_set_only_inside_one():
    with pytest.raises(NotInRun, match="only inside a run"):
        clock.now
    with pytest.raises(NotInRun):
        call.at


def test_a_test_fixes_clock_now_and_gives_a_calls_input():
    with clock.fixed(utc("2026-01-05 09:20")), call.given(at=utc("2026-01-05 09:00")):
        assert (clock.now_ms, call.at, call.n, call.i) == (utc("2026-01-05 09:20"), utc("2026-01-05 09:00"), None, None)
    with call.given(n=24, i=5):
        assert (call.n, call.i, call.at) == (24, 5, None)
