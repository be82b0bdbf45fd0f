"""Issue 25, "A start and a count": a schedule handed over with `starts=` makes no call before it
(its first due time is the first at or after it), and one with `times=N` ends after N calls
made, recorded as the end's reason (`made_its_calls`). A call made is one whose action ran: its
last attempt ended, succeeded or failed; a skipped or missed due time is none. The count is kept
on the state row, in the batch that records the call's end, so racing ticks and kills count
each call once."""

import asyncio
import json

import pytest
from faults import Faulty, KilledAfter, Killed, Wrapped, at
from helpers import lose_a_run, open_store, run, runs, ticks

from tickwork import ScheduleError, call
from tickwork.database import OPERATION
from tickwork.kinds import Call
from tickwork.operator_store import OperatorStore
from tickwork.per_item import Items
from tickwork.store.ends import COUNT_CALLS
from tickwork.testing import tick_at
from tickwork.times import DAY, HOUR, MINUTE, utc

MADE: list[int] = []
FAILING: list[bool] = []


async def send_invoice():
    MADE.append(call.at)
    if FAILING and FAILING.pop(0):
        raise RuntimeError("the payment service answered 503")


@pytest.fixture(autouse=True)
def made():
    MADE.clear()
    FAILING.clear()
    yield MADE


NOON = utc("2026-03-01 12:00")


def handed(db, moment=NOON):
    return Items(db, lambda: moment)


def row(db, id):
    return dict(run(db.all("SELECT * FROM tickwork_schedules WHERE name = ?1", (id,)))[0])


def hourly(db, **options):
    return run(handed(db).every(send_invoice, {"customer": "c1"}, "1h", **options))


def hours(*n):
    return [NOON + k * HOUR for k in n]


# -- starts --------------------------------------------------------------------------------------

def test_an_every_schedule_with_a_start_makes_its_first_call_at_the_start_and_none_before(db, made):
    starts = NOON + DAY + 30 * MINUTE
    id = hourly(db, starts=starts)
    assert row(db, id)["due_at"] == starts
    ticks(db, [], *hours(1, 2, 24), starts, starts + HOUR)
    assert made == [starts, starts + HOUR]


def test_a_calendar_with_a_start_makes_its_first_call_at_its_first_moment_at_or_after_it(db, made):
    at_nine = utc("2026-03-05 09:00")
    id = run(handed(db).calendar(send_invoice, {}, "0 9 * * *", starts=at_nine))
    assert row(db, id)["due_at"] == at_nine
    a_minute_later = run(handed(db).calendar(send_invoice, {"n": 2}, "0 9 * * *", starts=at_nine + 1))
    assert row(db, a_minute_later)["due_at"] == at_nine + DAY
    ticks(db, [], utc("2026-03-02 09:00"), utc("2026-03-04 09:00"), at_nine)
    assert made == [at_nine]


def test_a_start_already_past_changes_nothing_but_the_id(db):
    plain, started = hourly(db), hourly(db, starts=NOON - DAY)
    assert plain != started and row(db, started)["due_at"] == row(db, plain)["due_at"] == NOON + HOUR


def test_the_bulk_forms_and_hand_over_take_a_start_and_a_count(db):
    starts = NOON + DAY
    bulk = run(handed(db).every_many(send_invoice, [{"n": 1}, {"n": 2}], "1h", starts=starts, times=2))
    calendars = run(handed(db).calendar_many(send_invoice, [{"n": 3}], "0 9 * * *", starts=starts, times=2))
    dicts = run(handed(db).hand_over([{"action": send_invoice, "input": {"n": 4}, "every": "1h", "starts": starts,
                                      "times": 3}]))
    due = {id: row(db, id)["due_at"] for id in bulk.ids + calendars.ids + dicts.ids}
    assert list(due.values()) == [starts, starts, utc("2026-03-03 09:00"), starts]
    assert '"times": 3' in row(db, dicts.ids[0])["timing"]


@pytest.mark.parametrize("option, value, code", [
    ("starts", "tomorrow", "schedule.starts_invalid"), ("starts", -1, "schedule.starts_invalid"),
    ("times", 0, "schedule.times_invalid"), ("times", 2.5, "schedule.times_invalid"),
    ("times", True, "schedule.times_invalid"), ("times", 10**7, "schedule.times_invalid")])
def test_a_bad_start_or_count_is_refused_with_its_code_and_nothing_written(db, option, value, code):
    with pytest.raises(ScheduleError) as refused:
        hourly(db, **{option: value})
    assert refused.value.code == code and f"`{option}`" in refused.value.message
    with pytest.raises(ScheduleError, match="item 1 of 2"):
        run(handed(db).hand_over([{"action": send_invoice, "input": 1, "every": "1h"},
                                  {"action": send_invoice, "input": 2, "every": "1h", option: value}]))
    assert run(db.all("SELECT name FROM tickwork_schedules")) == []


def test_a_one_off_takes_no_start_or_count(db):
    with pytest.raises(TypeError, match="an item with `at` takes no `times`"):
        run(handed(db).hand_over([{"action": send_invoice, "input": 1, "at": NOON + HOUR, "times": 2}]))


# -- times ---------------------------------------------------------------------------------------

def test_a_schedule_with_a_count_ends_after_that_many_calls_made_recorded_made_its_calls(db, made):
    id = hourly(db, times=3)
    ticks(db, [], *hours(1, 2, 3, 4, 5))
    assert made == hours(1, 2, 3)
    ended = row(db, id)
    assert (ended["ended"], ended["calls_made"], ended["removed_at"] is not None) == ("made_its_calls", 3, True)


def test_a_failed_call_counts_as_made_and_a_skipped_one_does_not(db, made):
    id = hourly(db, times=2)
    FAILING.extend([True])
    ticks(db, [], *hours(1))
    run(db.all("UPDATE tickwork_schedules SET paused = 1 WHERE name = ?1", (id,)))
    ticks(db, [], *hours(2))
    run(db.all("UPDATE tickwork_schedules SET paused = 0 WHERE name = ?1", (id,)))
    ticks(db, [], *hours(3, 4))
    assert made == hours(1, 3)
    assert [(r["outcome"], r["code"]) for r in runs(db, id)] == [
        ("failed", "internal_fault"), ("skipped", "paused"), ("succeeded", None)]
    assert row(db, id)["ended"] == "made_its_calls"


def test_a_call_that_retries_counts_once_when_its_last_attempt_ends(db, made):
    id = hourly(db, times=2, retry="2 after 1m")
    FAILING.extend([True, False])
    ticks(db, [], *hours(1), NOON + HOUR + MINUTE)
    assert (len(made), row(db, id)["calls_made"]) == (2, 1)
    ticks(db, [], *hours(2, 3))
    assert (len(made), row(db, id)["ended"]) == (3, "made_its_calls")


def test_a_schedule_with_no_count_keeps_no_count(db):
    id = hourly(db)
    ticks(db, [], *hours(1, 2))
    assert row(db, id)["calls_made"] is None


def test_a_cancelled_schedule_handed_over_again_counts_from_nothing(db, made):
    id = hourly(db, times=2)
    ticks(db, [], *hours(1))
    run(handed(db).cancel(id))
    assert run(handed(db, NOON + HOUR + 1).every(send_invoice, {"customer": "c1"}, "1h", times=2)) == id
    assert row(db, id)["calls_made"] is None
    ticks(db, [], *hours(3, 4, 5, 6))
    assert len(made) == 3


def test_one_that_made_its_calls_handed_over_again_makes_no_more(db, made):
    id = hourly(db, times=1)
    ticks(db, [], *hours(1))
    assert hourly(db, times=1) == id
    ticks(db, [], *hours(2, 3))
    assert made == hours(1) and row(db, id)["ended"] == "made_its_calls"


# -- races and kills -----------------------------------------------------------------------------

def test_an_end_written_again_after_its_batch_landed_counts_its_call_once(db, made):
    id = hourly(db, times=2)
    faulty = Faulty(db, at("ends"), landed=True)
    asyncio.run(tick_at([], hours(1)[0], faulty))
    assert row(db, id)["calls_made"] == 1
    ticks(db, [], *hours(2, 3))
    assert made == hours(1, 2) and row(db, id)["ended"] == "made_its_calls"


def test_a_worker_killed_before_the_end_counts_nothing_and_the_count_stays_exact_across_racing_ticks(db, made):
    id = hourly(db, times=3)
    killed = KilledAfter(db, lambda c: c.operation == "claim")
    with pytest.raises(Killed):
        asyncio.run(tick_at([], hours(1)[0], killed))
    assert row(db, id)["calls_made"] is None  # its call's fate is unknown: the lease lapses, no count

    async def racing(moment):
        return await asyncio.gather(*(tick_at([], moment, db) for _ in range(3)))

    for moment in hours(2, 3, 4, 5, 6):
        asyncio.run(racing(moment))
    done = [r for r in runs(db, id) if r["outcome"] == "succeeded"]
    assert len(done) == 3 and row(db, id)["calls_made"] == 3 and row(db, id)["ended"] == "made_its_calls"
    assert [r["code"] for r in runs(db, id) if r["outcome"] == "failed"] == ["lease_expired"]


def test_a_lost_run_counts_nothing(db):
    id = hourly(db, times=1)
    lose_a_run(db, id, NOON + HOUR, NOON + 2 * HOUR, NOON + HOUR + MINUTE, call=Call(at=NOON + HOUR))
    ticks(db, [], NOON + HOUR + 2 * MINUTE)
    assert row(db, id)["calls_made"] is None and row(db, id)["ended"] is None


def test_the_count_is_in_the_batch_of_the_ends_only_where_a_count_is_kept(db):
    counted, plain = hourly(db, times=5), run(handed(db).every(send_invoice, {"n": 2}, "1h"))
    seen = Faulty(db, lambda c: False)
    asyncio.run(tick_at([], hours(1)[0], seen))
    ends = [c for c in seen.made if c.operation == "ends"]
    assert len(ends) == 1 and sum(sql == COUNT_CALLS for sql in ends[0].sqls) == 1
    run(handed(db).cancel(counted))
    assert plain
    again = Faulty(db, lambda c: False)
    asyncio.run(tick_at([], hours(2)[0], again))
    assert all(COUNT_CALLS not in c.sqls for c in again.made)


# -- cost ----------------------------------------------------------------------------------------

def ticked(db, moment):
    """Statements, round trips and rows written by the tick at `moment`, the hour's housekeeping done."""
    run(db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (moment,)))
    statements, trips, changes = db.statements_run, db.round_trips, db._conn.total_changes
    ticks(db, [], moment)
    return db.statements_run - statements, db.round_trips - trips, db._conn.total_changes - changes


def test_a_nothing_due_tick_stays_two_statements_one_round_trip_one_row_with_counted_and_replaced_ones(db):
    counted = hourly(db, times=5, starts=NOON + 2 * HOUR)
    run(handed(db).replace(counted, send_invoice, {"customer": "c2"}, every="1h", times=3))
    ticks(db, [], NOON + MINUTE)
    assert ticked(db, NOON + 2 * MINUTE) == (2, 1, 1)


def test_a_counted_call_costs_two_statements_more_than_a_plain_one_in_the_same_round_trips():
    costs = []
    for options in ({}, {"times": 5}):
        db = open_store()
        run(handed(db).every(send_invoice, {"n": 1}, "1h", **options))
        ticks(db, [], NOON + MINUTE)
        costs.append(ticked(db, NOON + HOUR)[:2])
    (plain, plain_trips), (counted, counted_trips) = costs
    assert (counted, counted_trips) == (plain + 2, plain_trips)


def test_counting_a_call_writes_the_state_row_alone_and_only_the_end_of_the_count_writes_its_indexes():
    from test_rows_written_per_run import written

    from tickwork.store.ends import END_COUNTED

    assert written(open_store(), COUNT_CALLS) == {"tickwork_schedules"}
    db = open_store()
    id = hourly(db, times=3)
    ticks(db, [], *hours(1))
    changes = db._conn.total_changes
    run(db.all(END_COUNTED, (json.dumps([[id, "a run", NOON, 3]]),)))
    assert db._conn.total_changes == changes  # a row still counting is not written


def test_a_backfilled_call_counts_as_a_call_made(db, made):
    id = hourly(db, times=3)
    ticks(db, [], *hours(1, 3))  # ticks stopped: 14:00 was missed
    run(OperatorStore(db).backfill(id, hours(2)[0], hours(2)[0], "ana", hours(3)[0] + MINUTE))
    ticks(db, [], hours(3)[0] + 2 * MINUTE)
    assert sorted(made) == hours(1, 2, 3) and row(db, id)["ended"] == "made_its_calls"


def test_a_call_asked_for_by_hand_counts_as_a_call_made(db, made):
    id = hourly(db, times=2, starts=NOON + 2 * HOUR)
    run(OperatorStore(db).change("run", id, "ana", NOON + HOUR))
    ticks(db, [], NOON + HOUR + MINUTE, *hours(2, 3))
    assert len(made) == 2 and len(runs(db, id)) == 2
    assert (row(db, id)["ended"], row(db, id)["calls_made"]) == ("made_its_calls", 2)


# -- a D1 fault at each statement of the end's batch, then kills and racing ticks ----------------

class FailsAt(Wrapped):
    """The first batch of the runs' ends fails at its `k`-th statement, as D1 fails a batch: the
    statements before it roll back with it (the SQLite store's batch is one transaction, as D1's).
    With `kill`, the worker dies there: its run's end is never written and its lease lapses."""

    def __init__(self, inner, k, kill=False):
        super().__init__(inner)
        self.k, self.kill, self.sent, self.dead = k, kill, None, False

    async def batch(self, statements):
        if self.dead:
            raise Killed("the worker was killed")
        if OPERATION.get() == "ends" and self.sent is None:
            self.sent = [sql for sql, _ in statements]
            self.dead = self.kill
            statements = [*statements[:self.k], ("SELECT no_such_column FROM tickwork_app", ()),
                          *statements[self.k + 1:]]
        return await super().batch(statements)


async def racing_ticks(db, moment, count=3):
    return await asyncio.gather(*(tick_at([], moment, db) for _ in range(count)))


def counted_calls(db, id):
    return [r for r in runs(db, id) if r["outcome"] in ("succeeded", "failed") and r["code"] != "lease_expired"]


def statements_of_a_counted_end():
    db = open_store()
    hourly(db, times=3)
    seen = FailsAt(db, k=10**6)  # past the batch: nothing fails
    asyncio.run(tick_at([], hours(1)[0], seen))
    assert COUNT_CALLS in seen.sent
    return len(seen.sent)


@pytest.mark.parametrize("kill", [False, True], ids=["retried", "killed"])
def test_a_fault_at_each_statement_of_the_ends_batch_counts_each_call_made_once_across_racing_ticks(kill, made):
    for k in range(statements_of_a_counted_end()):
        db = open_store()
        made.clear()
        id = hourly(db, times=3)
        failing = FailsAt(db, k, kill)
        if kill:
            with pytest.raises(Killed):
                asyncio.run(tick_at([], hours(1)[0], failing))
            # none of the batch landed: no count, and the run's record still running under its lease
            assert row(db, id)["calls_made"] is None and [r["outcome"] for r in runs(db, id)] == ["running"]
        else:
            asyncio.run(tick_at([], hours(1)[0], failing))  # the ends are written again, and land once
            assert row(db, id)["calls_made"] == 1

        for moment in hours(2, 3, 4, 5, 6):
            asyncio.run(racing_ticks(db, moment))
        kept = row(db, id)
        assert (kept["calls_made"], kept["ended"]) == (3, "made_its_calls"), f"statement {k}"
        assert len(counted_calls(db, id)) == 3, f"statement {k}"
        # a killed call's fate is unknown, so it is not counted and the count makes one call more
        assert len(made) == 3 + kill, f"statement {k}"
