"""Exact timing through delayed queue messages (issue 27): with a wake queue bound, a tick sends
one delayed message for each second a `once` item or a retry under a minute runs before the
next minute tick, and the wake queue's consumer ticks then, taking the same leases, so each runs
at its second, once, however wakes and ticks race. Told on CPython, the time passed in, the
wakes delivered by a real queue in memory that holds each message its delay."""

import asyncio
import random

from helpers import open_store, run

from tickwork import Schedule, call, clock
from tickwork.app import App
from tickwork.grid import Every
from tickwork.invocation import cron_invocation
from tickwork.model import Retry
from tickwork.per_item import Items
from tickwork.testing import DelayedQueue, QueueMessage, tick_with_wakes, wakes_delivered
from tickwork.outbox.wakes import consume_wakes
from tickwork.tick.wakes import Wakes
from tickwork.times import HOUR, MINUTE, SECOND, utc

NINE = utc("2026-03-02 09:00")
MADE: list[dict] = []


async def remind():
    MADE.append({"input": call.input, "at": call.at, "now": clock.now_ms})


class Flaky:
    """Fails its first `failures` calls."""

    def __init__(self, failures: int):
        self.failures, self.calls = failures, []

    async def __call__(self):
        self.calls.append(clock.now_ms)
        if len(self.calls) <= self.failures:
            raise RuntimeError("the far side is down")


def app_of(*schedules):
    MADE.clear()
    return App("DB", tuple(schedules), producers={"WAKES": "tickwork-wakes"})


def once(db, at, order=1, made_at=NINE - HOUR):
    return run(Items(db, lambda: made_at).once(remind, {"order": order}, at))


def test_a_once_item_due_at_37_seconds_runs_at_its_second_not_at_the_next_tick():
    app, db, queue = app_of(), open_store(), DelayedQueue()
    once(db, NINE + 37 * SECOND)
    run(tick_with_wakes(app, NINE, db, queue))
    assert queue.sent == [(NINE + 37 * SECOND, {"tickwork": 1, "wake": NINE + 37 * SECOND})]
    run(wakes_delivered(app, NINE + MINUTE, db, queue))
    assert MADE == [{"input": {"order": 1}, "at": NINE + 37 * SECOND, "now": NINE + 37 * SECOND}]
    run(tick_with_wakes(app, NINE + MINUTE, db, queue))
    assert len(MADE) == 1 and queue.held == []


def test_a_retry_20_seconds_on_is_woken_for_by_the_tick_whose_run_failed():
    flaky = Flaky(1)
    app = app_of(Schedule("sync", Every(MINUTE), flaky, retry=Retry(2, 20 * SECOND)))
    db, queue = open_store(), DelayedQueue()
    run(tick_with_wakes(app, NINE - MINUTE, db, queue))  # the tick that first sees it
    run(tick_with_wakes(app, NINE, db, queue))
    assert [at for at, _ in queue.sent] == [NINE + 20 * SECOND]
    [report] = run(wakes_delivered(app, NINE + MINUTE, db, queue))
    assert [(r.outcome, r.attempt, r.started_at) for r in report.runs] == [("succeeded", 2, NINE + 20 * SECOND)]
    assert flaky.calls == [NINE, NINE + 20 * SECOND]


def test_a_retry_failing_again_under_a_minute_is_woken_for_by_the_wakes_tick():
    flaky = Flaky(2)
    app = app_of(Schedule("sync", Every(MINUTE), flaky, retry=Retry(2, 10 * SECOND)))
    db, queue = open_store(), DelayedQueue()
    run(tick_with_wakes(app, NINE - MINUTE, db, queue))
    run(tick_with_wakes(app, NINE, db, queue))
    run(wakes_delivered(app, NINE + MINUTE, db, queue))
    assert flaky.calls == [NINE, NINE + 10 * SECOND, NINE + 30 * SECOND]


def test_items_due_at_one_second_share_one_wake_and_a_ticks_wakes_go_in_one_batch_send():
    app, db, queue = app_of(), open_store(), DelayedQueue()
    for order, at in enumerate([NINE + 37 * SECOND + 200, NINE + 37 * SECOND + 900, NINE + 37 * SECOND + 1000,
                                NINE + 45 * SECOND, NINE + 12 * SECOND]):
        once(db, at, order)
    run(tick_with_wakes(app, NINE, db, queue))
    assert queue.sends == 1
    assert [at - NINE for at, _ in queue.sent] == [12 * SECOND, 38 * SECOND, 45 * SECOND]
    run(wakes_delivered(app, NINE + MINUTE, db, queue))
    assert sorted(m["input"]["order"] for m in MADE) == [0, 1, 2, 3, 4]
    assert all(m["now"] - m["at"] < SECOND for m in MADE)


def test_many_items_due_within_one_second_leave_no_later_second_unwoken():
    app, db, queue = app_of(), open_store(), DelayedQueue()
    for order in range(70):  # 70 moments, milliseconds apart, all within :12
        once(db, NINE + 11 * SECOND + 1 + order, order)
    once(db, NINE + 50 * SECOND, 70)
    run(tick_with_wakes(app, NINE, db, queue))
    assert [at - NINE for at, _ in queue.sent] == [12 * SECOND, 50 * SECOND]
    run(wakes_delivered(app, NINE + MINUTE - 1, db, queue))
    assert len(MADE) == 71 and all(m["now"] - m["at"] < SECOND for m in MADE)


def test_nothing_due_before_the_next_tick_sends_nothing():
    app, db, queue = app_of(), open_store(), DelayedQueue()
    once(db, NINE + MINUTE + 5 * SECOND)  # the next minute's: its own tick sends for it
    run(tick_with_wakes(app, NINE, db, queue))
    run(tick_with_wakes(app, NINE + MINUTE - SECOND, db, queue))  # a tick by hand: only what is before its next
    assert queue.sent == []
    run(tick_with_wakes(app, NINE + MINUTE, db, queue))
    assert [at for at, _ in queue.sent] == [NINE + MINUTE + 5 * SECOND]


def test_a_nothing_due_tick_with_a_wake_queue_stays_two_statements_one_round_trip_one_row():
    app, db, queue = app_of(Schedule("hourly", Every(HOUR), remind)), open_store(), DelayedQueue()
    run(tick_with_wakes(app, NINE, db, queue))
    before = (db.statements_run, db.round_trips, db.rows_written)
    run(tick_with_wakes(app, NINE + MINUTE, db, queue))
    after = (db.statements_run, db.round_trips, db.rows_written)
    assert tuple(b - a for a, b in zip(before, after, strict=True)) == (2, 1, 1)
    assert queue.sends == 0


def test_a_wake_delivered_twice_or_after_the_minute_tick_ran_it_runs_nothing_more():
    app, db, queue = app_of(), open_store(), DelayedQueue()
    once(db, NINE + 37 * SECOND)
    run(tick_with_wakes(app, NINE, db, queue))
    [(at, body)] = queue.due(NINE + HOUR)
    run(tick_with_wakes(app, NINE + MINUTE, db, queue))  # the wake is late: the minute tick runs it
    late, again = QueueMessage("late", body), QueueMessage("again", body)
    queue.now = NINE + 2 * MINUTE
    run(consume_wakes(db, app, [late, again], queue=queue, clock=queue.clock, sleep=asyncio.sleep, cap=900,
                      monotonic=lambda: 0.0))
    assert len(MADE) == 1 and late.acked and again.acked


def test_a_wake_delivered_late_ticks_at_the_clocks_time_and_stretches_no_later_ticks_lapsed_window():
    app, db, queue = app_of(), open_store(), DelayedQueue()
    run(tick_with_wakes(app, NINE - MINUTE, db, queue))
    once(db, NINE + 37 * SECOND)
    run(tick_with_wakes(app, NINE, db, queue))
    [reach] = run(db.all("SELECT lease_reach FROM tickwork_app"))
    [(_, body)] = queue.due(NINE + HOUR)
    queue.now = NINE + 40 * MINUTE  # the queue held it (a retried batch, a backlog)
    run(consume_wakes(db, app, [QueueMessage("late", body)], queue=queue, clock=queue.clock, sleep=asyncio.sleep,
                      cap=900, monotonic=lambda: 0.0))
    assert MADE == [{"input": {"order": 1}, "at": NINE + 37 * SECOND, "now": NINE + 40 * MINUTE}]
    # The reach of a tick's leases past its time is kept for good: 40 minutes more would have every
    # later tick read 40 minutes more of run records for lapsed leases.
    assert run(db.all("SELECT lease_reach FROM tickwork_app")) == [reach]


def test_a_message_on_the_wake_queue_that_is_no_wake_is_acked_and_ticks_nothing():
    app, db, queue = app_of(), open_store(), DelayedQueue()
    strays = [QueueMessage("stray", {"hello": 1}), QueueMessage("nan", {"tickwork": 1, "wake": float("nan")}),
              QueueMessage("inf", {"tickwork": 1, "wake": float("inf")}),
              QueueMessage("yes", {"tickwork": 1, "wake": True})]
    assert run(consume_wakes(db, app, strays, queue=queue, clock=queue.clock, sleep=asyncio.sleep, cap=900)) is None
    assert all(stray.acked for stray in strays)


def test_a_wake_send_that_raises_leaves_the_item_to_the_next_tick():
    class Down(DelayedQueue):
        async def send_delayed(self, messages):
            raise ConnectionError("queues are down")

    app, db, queue = app_of(), open_store(), Down()
    once(db, NINE + 37 * SECOND)
    run(tick_with_wakes(app, NINE, db, queue))
    run(tick_with_wakes(app, NINE + MINUTE, db, queue))
    assert [m["now"] for m in MADE] == [NINE + MINUTE]


class Wall:
    def __init__(self, at):
        self.at = at

    def __call__(self):
        return self.at

    async def sleep(self, seconds):
        self.at += round(seconds * 1000)


def test_with_a_wake_queue_the_cron_invocation_ticks_once_and_ends_without_the_marks():
    app, db, queue = app_of(), open_store(), DelayedQueue()
    wall = Wall(NINE + 300)
    reports = run(cron_invocation(db, app, NINE, clock=wall, sleep=wall.sleep, cap=900,
                                  wakes=Wakes(queue, wall)))
    assert [r.at for r in reports] == [NINE] and wall() == NINE + 300
    wall = Wall(NINE + MINUTE + 300)
    marks = run(cron_invocation(db, app, NINE + MINUTE, clock=wall, sleep=wall.sleep, cap=900))
    assert len(marks) == 6  # no wake queue: the 10-second marks, the fallback


async def race(app, db, wakes, rng):
    """Each wake delivered in an invocation of its own, beside the next minute tick, all at once;
    three of them killed mid-way."""

    async def deliver(at, body, k):
        message = QueueMessage(f"m{k}", body)
        for _ in range(rng.randrange(0, 8)):
            await asyncio.sleep(0)
        await consume_wakes(db, app, [message], queue=DelayedQueue(), clock=lambda: at + rng.randrange(0, 3000),
                            sleep=asyncio.sleep, cap=900, monotonic=lambda: 0.0)

    tasks = [asyncio.ensure_future(deliver(at, body, k)) for k, (at, body) in enumerate(wakes)]
    minute = asyncio.ensure_future(tick_with_wakes(app, NINE + MINUTE, db, DelayedQueue()))
    tasks.insert(rng.randrange(0, len(tasks)), minute)
    for _ in range(rng.randrange(0, 20)):
        await asyncio.sleep(0)
    killed = sum(task.cancel() for task in rng.sample(tasks, 3))  # its invocation killed mid-way
    await asyncio.gather(*tasks, return_exceptions=True)
    return killed


def test_racing_wakes_and_ticks_with_kills_call_each_at_most_once_and_record_each_once():
    rng = random.Random(27)
    made_by, killed = set(), 0
    for trial in range(8):
        app, db, queue = app_of(), open_store(), DelayedQueue()
        app.schema_current = True  # read by the isolate's first invocation
        moments = sorted({NINE + rng.randrange(1, 59) * SECOND + rng.randrange(0, 1000) for _ in range(12)})
        for order, at in enumerate(moments):
            once(db, at, order)
        run(tick_with_wakes(app, NINE, db, queue))
        held = queue.due(NINE + HOUR)
        duplicated = held + rng.sample(held, len(held) // 2)  # delivered twice, some of them

        killed += run(race(app, db, duplicated, rng))
        run(tick_with_wakes(app, NINE + 20 * MINUTE, db, DelayedQueue()))  # the leases of the killed lapse
        orders = [m["input"]["order"] for m in MADE]
        assert len(orders) == len(set(orders)), (trial, orders)  # none called twice
        runs = run(db.all("SELECT schedule, COUNT(*) AS n FROM tickwork_runs GROUP BY schedule"))
        assert len(runs) == len(moments) and {r["n"] for r in runs} == {1}, (trial, runs)  # each recorded once
        succeeded = run(db.all("SELECT COUNT(*) AS n FROM tickwork_runs WHERE outcome = 'succeeded'"))
        assert succeeded == [{"n": len(orders)}]  # a run killed before its call is recorded, lease_expired
        found = run(db.all("SELECT tick_at = ?1 AS by_minute, outcome FROM tickwork_runs", (NINE + MINUTE,)))
        made_by |= {(bool(r["by_minute"]), r["outcome"]) for r in found}
    assert {(True, "succeeded"), (False, "succeeded")} <= made_by and killed > 0  # they did race, and kills hit


def test_a_wake_delivered_early_runs_nothing_before_its_time():
    app, db, queue = app_of(), open_store(), DelayedQueue()
    once(db, NINE + 37 * SECOND)
    run(tick_with_wakes(app, NINE, db, queue))
    [(at, body)] = queue.due(NINE + HOUR)
    early = QueueMessage("early", body)
    run(consume_wakes(db, app, [early], queue=queue, clock=lambda: at - 20 * SECOND, sleep=asyncio.sleep, cap=900,
                      monotonic=lambda: 0.0))
    assert MADE == [] and early.acked


def test_a_once_item_handed_over_after_the_minute_tick_for_before_the_next_is_woken_for_at_once():
    from tickwork.waking_items import WakingItems

    app, db, queue = app_of(), open_store(), DelayedQueue()
    run(tick_with_wakes(app, NINE, db, queue))  # read its moments before the item existed
    queue.now = NINE + 5 * SECOND
    handed = WakingItems(db, queue.clock, None, Wakes(queue, queue.clock))
    run(handed.once(remind, {"order": 1}, NINE + 30 * SECOND + 400))
    run(handed.once(remind, {"order": 2}, NINE + MINUTE + 30 * SECOND))  # the next minute's tick sees it
    run(handed.once_many(remind, [{"order": 3}, {"order": 4}], NINE + 2 * SECOND))  # due already: at once
    assert [at - NINE for at, _ in queue.sent] == [31 * SECOND, 5 * SECOND]
    run(wakes_delivered(app, NINE + MINUTE - 1, db, queue))
    assert sorted((m["input"]["order"], m["now"] - NINE) for m in MADE) == [
        (1, 31 * SECOND), (3, 5 * SECOND), (4, 5 * SECOND)]


def test_a_once_item_a_run_hands_over_for_before_the_next_tick_is_woken_for_by_that_tick():
    from tickwork import items

    async def follow_up():
        await items.once(remind, {"order": 1}, clock.now_ms + 30 * SECOND + 400)
        await items.once(remind, {"order": 2}, clock.now_ms + 90 * SECOND)  # the next minute's tick sends for it

    app, db, queue = app_of(Schedule("follow", Every(HOUR), follow_up)), open_store(), DelayedQueue()
    run(tick_with_wakes(app, NINE - HOUR, db, queue))  # the tick that first sees it
    run(tick_with_wakes(app, NINE, db, queue))
    assert [at - NINE for at, _ in queue.sent] == [31 * SECOND] and queue.sends == 1
    run(wakes_delivered(app, NINE + MINUTE - 1, db, queue))
    assert [(m["input"]["order"], m["now"] - NINE) for m in MADE] == [(1, 31 * SECOND)]


def test_racing_wakes_and_ticks_with_kills_make_each_retry_under_a_minute_at_most_once():
    rng, calls = random.Random(20), {}
    for trial in range(8):
        calls.clear()

        def failing_once(name):
            async def action():
                calls.setdefault(name, []).append(clock.now_ms)
                if len(calls[name]) == 1:
                    raise RuntimeError("the far side is down")
            return action

        names = [f"sync{k}" for k in range(6)]
        app = app_of(*(Schedule(name, Every(HOUR), failing_once(name), retry=Retry(1, rng.randrange(5, 55) * SECOND))
                       for name in names))
        app.schema_current = True
        db, queue = open_store(), DelayedQueue()
        run(tick_with_wakes(app, NINE - HOUR, db, DelayedQueue()))  # the tick that first sees them
        calls.clear()
        run(tick_with_wakes(app, NINE, db, queue))  # each fails, its retry before the next tick woken for
        held = queue.due(NINE + HOUR)
        run(race(app, db, held + rng.sample(held, len(held) // 2), rng))
        run(tick_with_wakes(app, NINE + 20 * MINUTE, db, DelayedQueue()))  # the leases of the killed lapse
        assert all(len(made) <= 2 for made in calls.values()), (trial, calls)  # no retry called twice
        retries = run(db.all("SELECT schedule, COUNT(*) AS n FROM tickwork_runs WHERE attempt = 2 GROUP BY schedule"))
        assert sorted((r["schedule"], r["n"]) for r in retries) == [(name, 1) for name in names], (trial, retries)
