"""The operation a D1 call belongs to, which the fault tests pick calls by (tests/faults.py)."""

import asyncio

import pytest
from faults import Faulty, at, each, nothing
from helpers import every, open_store, run, ticks

from tickwork.database import OPERATION, operation
from tickwork.times import MINUTE, utc

NINE = utc("2026-03-02 09:00")


def test_an_operation_not_named_in_operations_is_refused_by_the_runtime_and_by_the_tests():
    with pytest.raises(ValueError):
        operation("claims")
    with pytest.raises(AssertionError):
        at("claims")
    with pytest.raises(AssertionError):
        each("claims")


def test_the_innermost_operation_names_the_call_and_the_outer_one_is_back_after_it():
    @operation("send")
    async def sending():
        return OPERATION.get()

    async def ending():
        with operation("ends"):
            inner = await sending()
            return inner, OPERATION.get()

    assert run(ending()) == ("send", "ends")
    assert OPERATION.get() is None


def test_operations_made_side_by_side_keep_their_own_names():
    async def named(name):
        with operation(name):
            await asyncio.sleep(0)
            return OPERATION.get()

    async def both():
        return await asyncio.gather(named("run"), named("ends"))

    assert run(both()) == ["run", "ends"]


def test_each_call_of_a_due_tick_belongs_to_a_named_operation():
    census = every(1)
    db = open_store()
    ticks(db, [census], NINE)
    recording = Faulty(db, nothing)
    ticks(recording, [census], NINE + MINUTE)
    assert recording.operations()[:3] == [("probe", 1), ("claim", 1), ("ends", 1)]
    assert None not in {operation for operation, _ in recording.operations()}
