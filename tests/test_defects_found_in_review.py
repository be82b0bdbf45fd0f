"""Regressions found in the review of issues 8 and 9. Each fails on a defect still open, marked
`xfail(strict=True)` while it stood; all are mended now."""

from helpers import Inputs, calendar, state, ticks

import pytest

from tickwork.model import Code
from tickwork.times import MINUTE, utc

NINE = utc("2026-03-02 09:00")


def test_a_calendar_whose_moment_another_calendar_made_gives_its_lease_back(db):
    shared = Inputs()
    thirds = calendar("*/3 * * * *", name="thirds", action=shared)
    halves = calendar("*/2 * * * *", name="halves", action=shared)
    ticks(db, [thirds, halves], *[NINE + k * MINUTE for k in range(0, 11)])
    coalesced = [r for r in __import__("helpers").runs(db, "halves") if r["code"] == Code.COALESCED]
    assert [r["at"] for r in coalesced] == [NINE + 6 * MINUTE]
    assert state(db, "halves").lease_run is None
    # halves' own moments after the shared one are made on time, not lost to the held lease
    assert sorted(shared.at) == [NINE + k * MINUTE for k in (2, 3, 4, 6, 8, 9, 10)]


CALLED: list = []


async def counting_shipper():
    CALLED.append(__import__("tickwork").call.input)
    __import__("tickwork").handled.write("INSERT INTO shipments (order_id) VALUES (?1)", 7)


def test_a_delivery_sent_twice_into_one_batch_calls_its_consumer_once():
    from test_the_outbox import Message, sent_to_ourselves
    from tickwork.consumers import Consumer, consume
    from helpers import open_store, run

    db = open_store()
    run(db.all("CREATE TABLE shipments (order_id INTEGER)"))
    body = sent_to_ourselves(db)  # sent again after an outcome_unknown: two messages, one delivery
    CALLED.clear()
    first, second = Message(body, id="m-1"), Message(body, id="m-2")
    run(consume(db, Consumer("tickwork-events", counting_shipper), [first, second], NINE))
    assert first.acked and second.acked
    assert len(CALLED) == 1


def _emitting(name, count, pad=0):
    from test_the_outbox import order_placed
    from tickwork import Schedule
    from tickwork.grid import Every

    async def emit():
        for k in range(count):
            await order_placed.emit({"k": k, "pad": "x" * pad})

    return Schedule(name, Every(MINUTE), emit)


def test_a_tick_whose_runs_emit_many_events_stays_within_its_statement_cap():
    from harness import FakeQueue as Queue
    from test_the_outbox import outbox
    from helpers import open_store, ticks

    db, queue = open_store(), Queue()
    place = [_emitting("place", 1000)]
    ticks(db, place, NINE)
    before = db.statements_run
    ticks(db, place, NINE + MINUTE, max_statements=10, outbox=outbox(db, queue, at=NINE + MINUTE))
    assert db.statements_run - before <= 10


def test_a_run_emitting_twenty_large_events_keeps_its_end_and_its_events():
    import sqlite3

    from harness import FakeQueue as Queue
    from test_the_outbox import deliveries, outbox
    from helpers import open_store, runs, ticks

    db, queue = open_store(), Queue()
    db._conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 2_000_000)  # D1: 2,000,000 bytes a string or row
    place = [_emitting("place", 20, pad=100_000)]  # each body within what emit allows
    ticks(db, place, NINE)
    clock = [0.0]

    async def sleep(seconds):
        clock[0] += seconds

    ticks(db, place, NINE + MINUTE, outbox=outbox(db, queue, at=NINE + MINUTE), sleep=sleep,
          monotonic=lambda: clock[0])
    assert [r["outcome"] for r in runs(db, "place")] == ["succeeded"]
    assert len(deliveries(db)) == 20


def test_no_call_is_made_after_a_cancel_that_committed_before_the_claim():
    from helpers import open_store, run

    from tickwork.database import Database
    from tickwork.per_item import Items
    from tickwork.schedule_store import TAKE_LEASES_ENDING

    db = open_store()
    reminder = run(Items(db, lambda: NINE).once(_remind, {"todo": 1}, NINE + MINUTE))

    class CancelBeforeClaim(Database):
        cancelled = None

        @property
        def statements_run(self):
            return db.statements_run

        async def all(self, sql, params=()):
            return await db.all(sql, params)

        async def batch(self, statements):
            if self.cancelled is None and any(sql == TAKE_LEASES_ENDING for sql, _ in statements):
                self.cancelled = await Items(db, lambda: NINE + MINUTE).cancel(reminder)
            return await db.batch(statements)

    racing = CancelBeforeClaim()
    REMINDED.clear()
    from helpers import ticks
    ticks(racing, [], NINE + MINUTE)
    assert racing.cancelled is True
    assert REMINDED == []


REMINDED: list = []


async def _remind():
    REMINDED.append(__import__("tickwork").call.input)


def test_a_calendar_run_by_hand_makes_no_second_call_for_one_at(db):
    from helpers import calendar, run, ticks

    hourly = calendar("0 * * * *", name="hourly")
    ticks(db, [hourly], NINE + 30_000)
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada'", (NINE + 10 * MINUTE,)))
    ticks(db, [hourly], NINE + 11 * MINUTE, NINE + 60 * MINUTE)
    ats = hourly.action.at
    assert len(ats) == len(set(ats)) == 2
    assert all(at is None or at <= made["now"] for at, made in zip(ats, hourly.action.made))


def test_a_reconciling_tick_stays_within_its_statement_cap(db):
    from helpers import every

    schedules = [every(60, name=f"s{k}") for k in range(1000)]
    before = db.statements_run
    from helpers import ticks
    ticks(db, schedules, NINE, max_statements=10)
    assert db.statements_run - before <= 10


def test_a_tick_that_d1_failed_leaves_the_invocations_other_marks_ticking():
    from faults import Faulty, first_with
    from helpers import every, open_store, run

    from tickwork.app import App
    from tickwork.invocation import cron_invocation
    from tickwork.schedule_store import MARK_TICK

    db = Faulty(open_store(), first_with(MARK_TICK))  # the first tick's first read
    app = App("DB", (every(1, name="a"),), queues_bound=True)
    clock = [NINE]

    async def sleep(seconds):
        clock[0] += int(seconds * 1000)

    reports = run(cron_invocation(db, app, NINE, clock=lambda: clock[0], sleep=sleep, cap=900))
    assert [r.at for r in reports] == [NINE + k * 10_000 for k in range(1, 6)]
