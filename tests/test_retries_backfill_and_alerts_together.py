"""Issue 17's retries, backfill and alerts together. Exactly once however ticks race: eight
tickers on one database at each tick, each on a connection of its own, one of them killed right
after it claimed a run; each (schedule, at, attempt) is made once, the killed one ends
`lease_expired`, and never are two runs of a schedule under way at once. And how each meets the
others: a backfilled run is not retried and says nothing of a schedule's health, a retry covers
what its first attempt covered, a nothing-due tick stays 2 statements with all three configured."""

import asyncio

from faults import KilledAfter, Picks, Wrapped, at, first_with
from helpers import Inputs, calendar, open_store, run, runs, state, tick_at, ticks
from harness import FakeQueue
from test_failures_announced import alerting, cost
from test_retries import Failing, daily

from tickwork import Schedule, backfill_store
from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.calendars import Calendar, CronCalendar
from tickwork.grid import Every
from tickwork.model import Code, Outcome, Retry
from tickwork.times import DAY, HOUR, MINUTE, utc

TICKERS = 8


def connections(path) -> list[SQLiteDatabase]:
    """The tickers' connections to the database file at `path`, migrated by the first."""
    return [open_store(path)] + [SQLiteDatabase(path) for _ in range(TICKERS - 1)]


class Interleaved(Wrapped):
    """A database whose every call first lets the other tickers go on: the eight read, then
    claim, then end, side by side, each between another's statements."""

    async def _call(self, call, send):
        await asyncio.sleep(0)
        return await send()


def race(dbs, schedules, now, killed_after: Picks | None = None) -> list:
    """A ticker on each of `dbs` at `now`, interleaved; with `killed_after`, the first dies right
    after the call it picks."""
    first = KilledAfter(dbs[0], killed_after) if killed_after else dbs[0]

    async def tickers():
        made = kept_tasks()
        try:
            return await asyncio.gather(*(tick_at(Interleaved(d), schedules, now) for d in [first, *dbs[1:]]),
                                        return_exceptions=True)
        finally:  # a killed worker's tasks (its ends' writer) die with it, their exceptions retrieved here
            asyncio.get_running_loop().set_task_factory(None)
            for task in made:
                task.cancel()
            await asyncio.gather(*made, return_exceptions=True)

    return run(tickers())


def kept_tasks() -> list[asyncio.Task]:
    """Every task the running loop makes from now on, kept to be awaited."""
    made: list[asyncio.Task] = []

    def factory(loop, coroutine, **options):
        made.append(task := asyncio.Task(coroutine, loop=loop, **options))
        return task

    asyncio.get_running_loop().set_task_factory(factory)
    return made


def attempts(db):
    return [(r["due_at"], r["attempt"], r["outcome"], r["code"]) for r in runs(db, "statement")]


def test_racing_tickers_with_one_killed_make_each_attempt_once_and_the_killed_one_is_tried_again(tmp_path):
    dbs = connections(tmp_path / "d1.sqlite")
    db = dbs[0]
    action = Failing(1)
    statement = daily(action)  # 3 attempts more, after 1m, 2m and 4m
    nine = utc("2026-03-02 09:00")
    ticks(db, [statement], utc("2026-03-01 12:00"))
    race(dbs, [statement], nine)
    race(dbs, [statement], nine + MINUTE, killed_after=at("claim"))  # attempt 2, lost
    race(dbs, [statement], nine + 10 * MINUTE)  # its lease still holds: no second attempt meanwhile
    lapsed = nine + MINUTE + 15 * MINUTE  # the killed tick's budget and the lease's grace
    race(dbs, [statement], lapsed)
    race(dbs, [statement], lapsed + 2 * MINUTE)
    race(dbs, [statement], lapsed + 10 * MINUTE)
    assert sorted(attempts(db), key=lambda a: a[1]) == [
        (nine, 1, Outcome.FAILED, Code.INTERNAL_FAULT),
        (nine, 2, Outcome.FAILED, Code.LEASE_EXPIRED),
        (nine, 3, Outcome.SUCCEEDED, None),
    ]
    # the killed ticker called the action, then died before it could record the end
    assert [tick_ms for tick_ms, _ in action.calls] == [nine, nine + MINUTE, lapsed + 2 * MINUTE]


def test_racing_tickers_with_one_killed_backfill_each_occurrence_once(app):
    monthly = calendar("0 0 1 * *", name="statement")
    april = utc("2026-04-01 00:05")
    app.tick([monthly], utc("2026-01-15 00:00"), april)
    app.run("backfill", "statement", "--from", "2026-01-16T00:00Z", "--to", "2026-04-01T00:00Z", now=april)
    dbs = [app.db] + [SQLiteDatabase(app.path) for _ in range(TICKERS - 1)]
    race(dbs, [monthly], april + MINUTE, killed_after=first_with(backfill_store.RECORD_STARTS))  # February's, lost
    for moment in (april + 2 * MINUTE, april + HOUR, april + HOUR + MINUTE, april + DAY):
        race(dbs, [monthly], moment)
    made = sorted((r["at"], r["outcome"], r["code"]) for r in runs(app.db, "statement") if r["backfill"])
    assert made == [(utc("2026-02-01 00:00"), Outcome.FAILED, Code.LEASE_EXPIRED),
                    (utc("2026-03-01 00:00"), Outcome.SUCCEEDED, None)]
    # each once: February's by the killed ticker, which died before it could record the end
    assert sorted(monthly.action.at) == [utc(f"2026-0{month}-01 00:00") for month in (2, 3, 4)]


def test_a_backfilled_run_whose_worker_was_killed_is_not_retried_even_where_the_schedule_declares_retries(app):
    monthly = Schedule("statement", Calendar(CronCalendar("0 0 1 * *", "UTC")), Inputs(), retry=Retry(3, MINUTE))
    april = utc("2026-04-01 00:05")
    app.tick([monthly], utc("2026-01-15 00:00"), april)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=april)
    race([app.db] * TICKERS, [monthly], april + MINUTE, killed_after=first_with(backfill_store.RECORD_STARTS))
    for moment in (april + HOUR, april + HOUR + 2 * MINUTE, april + DAY):
        race([app.db] * TICKERS, [monthly], moment)
    others = [(r["at"], r["attempt"], r["outcome"], r["code"]) for r in runs(app.db, "statement")
              if r["at"] != utc("2026-04-01 00:00")]
    assert others == [(utc("2026-02-01 00:00"), None, Outcome.FAILED, Code.LEASE_EXPIRED)]
    assert state(app.db, "statement").retry_attempt is None
    assert state(app.db, "statement").due_at == utc("2026-05-01 00:00")


def test_a_retry_of_a_run_covering_missed_occurrences_is_for_the_latest_so_backfill_offers_the_others(app):
    action = Failing(1)
    monthly = Schedule("statement", Calendar(CronCalendar("0 0 1 * *", "UTC")), action, retry=Retry(3, MINUTE))
    april = utc("2026-04-01 00:05")
    app.tick([monthly], utc("2026-01-15 00:00"), april, april + MINUTE)  # April's fails, then succeeds
    assert [call_at for _, call_at in action.calls] == [utc("2026-04-01 00:00")] * 2
    code, answer, _ = app.run("backfill", "statement", "--from", "2026-01-16T00:00Z", "--to", "2026-04-01T00:00Z",
                              "--dry-run", now=april + 2 * MINUTE)
    assert [o["at"]["ms"] for o in answer["occurrences"]] == [utc("2026-02-01 00:00"), utc("2026-03-01 00:00")]


def test_with_retries_backfill_and_alerts_a_nothing_due_tick_stays_two_statements_one_round_trip_one_row(app):
    options = alerting(app.db, FakeQueue())
    statement = daily(Failing())  # fails at each attempt: the next after 1m, 2m, 4m
    app.tick([statement], utc("2026-02-28 12:00"), utc("2026-03-02 09:00"), **options)
    app.run("backfill", "statement", "--from", "2026-03-01T09:00Z", "--to", "2026-03-01T09:00Z",
            now=utc("2026-03-02 09:00:20"))
    app.tick([statement], utc("2026-03-02 09:00:30"), **options)  # makes the backfill's one occurrence
    assert app.rows("SELECT state FROM tickwork_backfills") == [{"state": "done"}]
    # the tick at 09:01 makes attempt 2; attempt 3 is pending, due 09:03, and the alert was sent
    assert cost(app.db, [statement], utc("2026-03-02 09:02"), **options) == (2, 1, 1)
    assert state(app.db, "statement").retry_attempt == 3


class Statement:
    """A monthly statement that fails while `failing` is set."""

    failing = True

    async def __call__(self):
        if self.failing:
            raise RuntimeError("the ledger is locked")


def test_a_backfilled_run_neither_starts_nor_ends_its_schedules_failing_streak(app):
    """Alerts follow the schedule's own runs, as the health route does: an old occurrence an
    operator backfills says nothing of whether the schedule works now."""

    action = Statement()
    monthly = Schedule("statement", Calendar(CronCalendar("0 0 1 * *", "UTC")), action)
    queue = FakeQueue()
    april = utc("2026-04-01 00:05")
    app.tick([monthly], utc("2026-01-15 00:00"), april, **alerting(app.db, queue, at=april))  # April's fails
    action.failing = False
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=april)
    app.tick([monthly], april + MINUTE, **alerting(app.db, queue, at=april + MINUTE))  # February's succeeds
    assert [r["outcome"] for r in runs(app.db, "statement") if r["backfill"]] == [Outcome.SUCCEEDED]
    assert [m["event"] for m in queue.messages if m["event"] != "tickwork.ticks_stopped"] == ["tickwork.schedule_failing"]


def test_a_backfilled_run_succeeding_leaves_a_failing_schedule_failing_on_the_health_route(app):
    from tickwork.health import health

    action = Statement()
    monthly = Schedule("statement", Calendar(CronCalendar("0 0 1 * *", "UTC")), action)
    april = utc("2026-04-01 00:05")
    app.tick([monthly], utc("2026-01-15 00:00"), april)  # April's, covering February and March, fails
    action.failing = False
    app.run("backfill", "statement", "--from", "2026-03-01T00:00Z", "--to", "2026-03-01T00:00Z", now=april)
    app.tick([monthly], april + MINUTE)
    assert [r["outcome"] for r in runs(app.db, "statement") if r["backfill"]] == [Outcome.SUCCEEDED]
    status, body = run(health(app.db, april + 2 * MINUTE, failing=503))
    assert (status, body["failing"]) == (503, ["statement"])


def test_a_backfill_of_a_grid_schedule_with_a_retry_pending_offers_its_slots_not_the_retrys_time(app):
    census = Schedule("census", Every(15 * MINUTE), Failing(), retry=Retry(3, MINUTE))
    app.tick([census], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"), utc("2026-03-02 09:30"))
    assert state(app.db).retry_attempt == 2  # 09:30's first attempt failed: the second is due 09:31
    code, answer, _ = app.run("backfill", "census", "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:30Z",
                              "--dry-run", now=utc("2026-03-02 09:30:30"))
    # 09:15 failed and has no retry left to it; 09:30 is the retry's own
    assert [o["at"]["ms"] for o in answer["occurrences"]] == [utc("2026-03-02 09:15")]
