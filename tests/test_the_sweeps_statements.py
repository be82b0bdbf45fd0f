"""The sweep's statements under the tick's cap (tick/budget.py's holds): the due step leaves the
sweep its statements, reckoned as the most its claims could cost, and gives them back to it once
the steps before the sweep are done, so a tick spends to its cap and the sweep still sends."""

from harness import FakeQueue
from helpers import open_store, state, ticks
from test_the_outbox import NINE, deliveries, outbox, placing

from tickwork.schedule_store import Claim
from tickwork.tick import ENDS_WITH_EVENTS, FIRST_READ, SWEEP, statements_for
from tickwork.times import MINUTE

A_RUN = statements_for([Claim("place", 0, 0, "r")], ENDS_WITH_EVENTS)  # the most one due run costs


def left_to_sweep():
    """A run of `place` whose event's send raised: its delivery is the sweep's from 10 s later."""
    db, queue = open_store(), FakeQueue(failures=1)
    place = placing({"order": 7})
    ticks(db, [place], NINE, NINE + MINUTE, outbox=outbox(db, queue))
    assert [d["state"] for d in deliveries(db)] == ["outcome_unknown"]
    return db, queue, place


def test_a_due_run_that_would_leave_the_sweep_short_stays_due_and_the_sweep_sends():
    db, queue, place = left_to_sweep()
    at = NINE + 2 * MINUTE
    ticks(db, [place], at, outbox=outbox(db, queue, at=at), max_statements=FIRST_READ + A_RUN + SWEEP - 1)
    assert [m["body"] for m in queue.messages] == [{"order": 7}]  # the sweep sent the delivery left
    assert state(db, "place").due_at == at  # place did not run: it stays due for the next tick


def test_the_sweep_gets_back_what_the_due_step_left_it_and_the_tick_spends_to_its_cap():
    db, queue, place = left_to_sweep()
    at, before = NINE + 2 * MINUTE, db.statements_run
    cap = FIRST_READ + A_RUN + SWEEP
    ticks(db, [place], at, outbox=outbox(db, queue, at=at), max_statements=cap)
    assert db.statements_run - before == cap
    assert [m["body"] for m in queue.messages] == [{"order": 7}] * 2  # place's new event, then the sweep's
    assert [d["state"] for d in deliveries(db)] == ["succeeded"] * 2

