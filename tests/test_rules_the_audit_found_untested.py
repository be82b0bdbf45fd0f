"""Rules of the two documents that tickwork implemented and no test checked (issue 23's audit):
each test quotes the rule it checks."""

import asyncio

from helpers import every, open_store, pulse, run, runs, ticks
from harness import FakeQueue, OperatorHarness
from test_the_outbox import Killed, order_placed, outbox

from tickwork import Schedule, call, clock
from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.grid import Every
from tickwork.model import Outcome
from tickwork.outbox import SEND_WINDOW, SWEEP_MOST
from tickwork.per_item import Items
from tickwork.times import DAY, HOUR, MINUTE, SECOND, utc

NINE = utc("2026-03-02 09:00")


def test_the_operators_command_never_ticks(tmp_path, capsys):
    """Schedules document, "The tick": "A test's or a tool's host doesn't tick." Reading every
    screen and asking for a run by hand leaves the app's last tick and the run records as they
    were, and calls no action; the run asked for waits for the next tick."""
    app = OperatorHarness(tmp_path, capsys)
    census = every(15)
    app.tick([census], NINE)
    later = NINE + HOUR  # census has been due since 09:15
    verbs = (["schedules"], ["history", "census"], ["why", "census"], ["status"], ["deliveries"],
             ["backfills"], ["run", "census"], ["pause", "census"], ["resume", "census"])
    codes = [app.run(*verb, now=later)[0] for verb in verbs]
    assert codes == [0, 0, 0, 1, 0, 0, 0, 0, 0]  # status: ticks stopped, as none came
    assert app.rows("SELECT last_tick FROM tickwork_app") == [{"last_tick": NINE}]
    assert app.rows("SELECT run_requested_at FROM tickwork_schedules") == [{"run_requested_at": later}]
    assert census.action.at == [] and runs(app.db) == []
    app.tick([census], later)
    assert census.action.at == [later]


def emitting(name, count):
    async def emit():
        for n in range(count):
            await order_placed.emit({"from": name, "n": n})

    return Schedule(name, Every(MINUTE), emit)


def test_the_sweep_takes_up_to_100_deliveries_oldest_first():
    """Schedules document, "What each tick does": "This is the outbox's sweep: up to 100
    deliveries, oldest first, that are pending past their next attempt or running past their
    lease." Three runs 20 s apart leave 60 deliveries each behind (their Worker killed before
    the send): the sweep takes the oldest 100, and the next tick's the other 80."""
    db, queue = open_store(), FakeQueue()
    first, second, third = emitting("first", 60), emitting("second", 60), emitting("third", 60)
    ticks(db, [first], NINE)
    ticks(db, [first, second], NINE + 20 * SECOND)
    ticks(db, [first, second, third], NINE + 40 * SECOND)
    for at in (NINE + MINUTE, NINE + MINUTE + 20 * SECOND, NINE + MINUTE + 40 * SECOND):  # each due in turn
        ticks(db, [first, second, third], at, outbox=Killed(db, {"EVENTS": queue}, frozenset(), lambda at=at: at))
    assert queue.sent == []
    lapsed = NINE + MINUTE + 40 * SECOND + SEND_WINDOW  # every claim of the killed senders has lapsed
    ticks(db, [], lapsed, outbox=outbox(db, queue, at=lapsed))
    swept = [m["body"]["from"] for m in queue.messages]
    assert SWEEP_MOST == 100 and len(swept) == 100
    assert {name: swept.count(name) for name in set(swept)} == {"first": 60, "second": 40}
    queue.sent.clear()
    ticks(db, [], lapsed + 10 * SECOND, outbox=outbox(db, queue, at=lapsed + 10 * SECOND))
    rest = [m["body"]["from"] for m in queue.messages]
    assert {name: rest.count(name) for name in set(rest)} == {"second": 20, "third": 60}


def test_a_purge_run_emits_nothing():
    """Schedules document, "The purge schedule": "The run emits nothing." A purge run that
    deleted rows keeps no event and no delivery, and sends nothing."""
    from test_purge_schedules import NOW, chores, left, purge_of

    db, queue = open_store(), FakeQueue()
    chores(db, NOW - 40 * DAY, NOW - 31 * DAY)
    purge = purge_of()
    ticks(db, [purge], NOW - HOUR)
    [report] = ticks(db, [purge], NOW, outbox=outbox(db, queue, at=NOW))
    [ran] = report.runs
    assert (ran.outcome, ran.items, left(db)) == (Outcome.SUCCEEDED, 2, 0)
    assert not ran.events and queue.sent == []
    assert run(db.all("SELECT (SELECT COUNT(*) FROM tickwork_events) + (SELECT COUNT(*) FROM tickwork_deliveries) AS n")) == [{"n": 0}]


class Shares:
    """A pulse's action, recording each share it is called for."""

    def __init__(self):
        self.made: list[tuple] = []

    async def __call__(self):
        self.made.append((call.n, call.i, clock.now_ms))


def test_each_pulse_share_is_made_once_across_racing_instances(tmp_path):
    """Cadence document, "Every few minutes": "Every five minutes one replica of store.orders
    calls expire, however many replicas run." Four instances on one database tick at each of a
    day's 24 shares at once: each share is made once."""
    path = tmp_path / "d1.sqlite"
    one = open_store(path)
    instances = [one, SQLiteDatabase(path), one, SQLiteDatabase(path)]
    shares = Shares()
    sweep = pulse(cycle=DAY, intervals=24, action=shares)
    ticks(one, [sweep], utc("2026-01-04 23:30"))

    async def race(at):
        from helpers import tick_at

        await asyncio.gather(*(tick_at(db, [sweep], at) for db in instances))

    for hour in range(24):
        run(race(utc("2026-01-05 00:00") + hour * HOUR))
    assert sorted(i for _, i, _ in shares.made) == list(range(24))
    assert len(runs(one, "sweep")) == 24


FLAKY: list[int] = []


async def flaky_statement():
    """Fails its first call, then succeeds."""
    FLAKY.append(call.at)
    if len(FLAKY) == 1:
        raise RuntimeError("the mail service is down")


def test_a_failed_call_of_a_schedule_handed_over_does_not_end_it():
    """Cadence document, "A calendar per item": "a call that was not made does not end the
    schedule; the next occurrence is made". A call that raised is recorded failed, and the
    schedule's next occurrence is called as any other."""
    FLAKY.clear()
    db = open_store()
    monday, next_monday = utc("2026-01-05 08:00"), utc("2026-01-12 08:00")
    run(Items(db, lambda: utc("2026-01-04 12:00")).calendar(
        flaky_statement, {"customer": "c1"}, "0 9 * * 1", zone="Europe/Berlin"))
    ticks(db, [], monday, next_monday)
    assert FLAKY == [monday, next_monday]
    rows = run(db.all("SELECT outcome, at FROM tickwork_runs ORDER BY at"))
    assert [(r["outcome"], r["at"]) for r in rows] == [(Outcome.FAILED, monday), (Outcome.SUCCEEDED, next_monday)]
    [row] = run(db.all("SELECT ended FROM tickwork_schedules WHERE action IS NOT NULL"))
    assert row["ended"] is None
