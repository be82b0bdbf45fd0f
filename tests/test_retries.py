"""Issue 17, "Retries" and "A time limit per schedule": a failed run is tried again for the same
due time after a pause doubling each time, each attempt a run record of its own, until it
succeeds, its attempts run out or the next due time supersedes it; a run past its own limit is
`deadline_exceeded`. Opt-in: without `retry:` a failure waits for the next due time."""

import asyncio
import json

import pytest
from helpers import lose_a_run, run, runs, state, tick_at, ticks
from test_how_a_schedule_runs import VirtualTime

from tickwork import Schedule, ScheduleError, call, clock
from tickwork.calendars import Calendar, CronCalendar
from tickwork.grid import Every
from tickwork.model import Code, Kind, Outcome, Retry
from tickwork.per_item import Items
from tickwork.tick import tick
from tickwork.timing import Call
from tickwork.times import MINUTE, SECOND, utc


class Failing:
    """An action failing its first `failures` calls, recording each call's tick and `call.at`."""

    def __init__(self, failures: int = 1_000):
        self.failures = failures
        self.calls: list[tuple[int, int | None]] = []

    async def __call__(self):
        self.calls.append((clock.now_ms, call.at))
        if len(self.calls) <= self.failures:
            raise RuntimeError("the payment service answered 503")


def daily(action, retry=Retry(3, MINUTE), limit=None) -> Schedule:
    return Schedule("statement", Calendar(CronCalendar("0 9 * * *", "UTC")), action, retry=retry, limit=limit)


def quarterly(action, retry=Retry(3, 10 * MINUTE)) -> Schedule:
    return Schedule("statement", Every(15 * MINUTE), action, retry=retry)


def attempts(db):
    return sorted((r["due_at"], r["attempt"], r["outcome"], r["code"]) for r in runs(db, "statement"))


def test_a_failed_run_is_tried_again_for_the_same_at_after_the_pause(db):
    action = Failing(1)
    statement = daily(action)
    ticks(db, [statement], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"), utc("2026-03-02 09:00:50"),
          utc("2026-03-02 09:01"))
    nine = utc("2026-03-02 09:00")
    assert action.calls == [(nine, nine), (utc("2026-03-02 09:01"), nine)]
    assert attempts(db) == [(nine, 1, Outcome.FAILED, Code.INTERNAL_FAULT), (nine, 2, Outcome.SUCCEEDED, None)]


def test_each_pause_is_twice_the_one_before_until_the_attempts_run_out(db):
    action = Failing()
    statement = daily(action)
    moments = ["09:00", "09:01", "09:02:59", "09:03", "09:06:59", "09:07", "09:15", "09:30"]
    ticks(db, [statement], utc("2026-03-01 12:00"), *(utc(f"2026-03-02 {m}") for m in moments))
    assert [tick_ms for tick_ms, _ in action.calls] == [utc(f"2026-03-02 {m}") for m in ("09:00", "09:01", "09:03", "09:07")]
    assert [a for _, a, _, _ in attempts(db)] == [1, 2, 3, 4]
    assert state(db, "statement").due_at == utc("2026-03-03 09:00")


def test_a_success_ends_the_retries(db):
    action = Failing(1)
    statement = daily(action)
    ticks(db, [statement], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"), utc("2026-03-02 09:01"),
          utc("2026-03-02 09:03"), utc("2026-03-02 09:07"))
    assert len(action.calls) == 2
    assert state(db, "statement").retry_attempt is None
    assert state(db, "statement").due_at == utc("2026-03-03 09:00")


def test_the_next_due_time_supersedes_a_retry_still_pending_and_the_skip_is_recorded(db):
    action = Failing(2)
    statement = quarterly(action)  # attempts after 10m, then 20m: the second would be at 09:45
    ticks(db, [statement], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"), utc("2026-03-02 09:25"),
          utc("2026-03-02 09:30"))
    assert attempts(db) == [
        (utc("2026-03-02 09:15"), 1, Outcome.FAILED, Code.INTERNAL_FAULT),
        (utc("2026-03-02 09:15"), 2, Outcome.FAILED, Code.INTERNAL_FAULT),
        (utc("2026-03-02 09:15"), 3, Outcome.SKIPPED, Code.SUPERSEDED),
        (utc("2026-03-02 09:30"), 1, Outcome.SUCCEEDED, None),
    ]
    assert state(db, "statement").due_at == utc("2026-03-02 09:45")


def test_racing_ticks_make_one_attempt_per_schedule_at_and_attempt(db):
    action = Failing(1)
    statement = daily(action)
    ticks(db, [statement], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"))

    async def race():
        await asyncio.gather(*(tick_at(db, [statement], utc("2026-03-02 09:01")) for _ in range(8)))

    run(race())
    assert [a for _, a, _, _ in attempts(db)] == [1, 2]
    assert len(action.calls) == 2


def test_a_tick_with_a_retry_pending_but_not_yet_due_makes_two_statements(db):
    statement = daily(Failing())
    ticks(db, [statement], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"))
    before = db.statements_run
    ticks(db, [statement], utc("2026-03-02 09:00:30"))
    assert db.statements_run - before == 2


def test_a_killed_attempts_lease_expired_is_retried_for_the_same_due_time(db):
    action = Failing(0)
    statement = quarterly(action)
    ticks(db, [statement], utc("2026-03-02 09:00"))
    lose_a_run(db, "statement", due=utc("2026-03-02 09:15"), next_due=utc("2026-03-02 09:30"),
               until=utc("2026-03-02 09:17"))
    ticks(db, [statement], utc("2026-03-02 09:18"), utc("2026-03-02 09:27"), utc("2026-03-02 09:28"))
    assert attempts(db) == [
        (utc("2026-03-02 09:15"), 1, Outcome.FAILED, Code.LEASE_EXPIRED),
        (utc("2026-03-02 09:15"), 2, Outcome.SUCCEEDED, None),
    ]
    assert [tick_ms for tick_ms, _ in action.calls] == [utc("2026-03-02 09:28")]


def test_without_retries_a_failure_is_tried_again_at_the_next_due_time(db):
    action = Failing(1)
    statement = quarterly(action, retry=None)
    ticks(db, [statement], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"), utc("2026-03-02 09:25"),
          utc("2026-03-02 09:30"))
    assert [tick_ms for tick_ms, _ in action.calls] == [utc("2026-03-02 09:15"), utc("2026-03-02 09:30")]
    assert [a for _, a, _, _ in attempts(db)] == [1, 1]


def test_a_paused_schedules_retry_is_skipped_paused_and_dropped(db):
    action = Failing()
    statement = daily(action)
    ticks(db, [statement], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"))
    run(db.all("UPDATE tickwork_schedules SET paused = 1 WHERE name = 'statement'"))
    ticks(db, [statement], utc("2026-03-02 09:01"), utc("2026-03-02 09:03"))
    assert attempts(db)[1:] == [(utc("2026-03-02 09:00"), 2, Outcome.SKIPPED, Code.PAUSED)]
    assert state(db, "statement").due_at == utc("2026-03-03 09:00")


def test_a_run_past_its_own_limit_is_deadline_exceeded_and_retried(db):
    async def never_ends():
        await asyncio.Event().wait()

    statement = daily(never_ends, limit=2 * MINUTE)
    ticks(db, [statement], utc("2026-03-01 12:00"))
    loop = VirtualTime()
    try:
        loop.run_until_complete(tick(db, [statement], utc("2026-03-02 09:00"), monotonic=loop.time))
    finally:
        loop.close()
    [record] = runs(db, "statement")
    assert (record["outcome"], record["code"], record["kind"]) == (Outcome.FAILED, Code.DEADLINE_EXCEEDED, Kind.DEADLINE)
    assert record["ended_at"] - record["started_at"] == 2 * MINUTE
    assert state(db, "statement").retry_attempt == 2
    assert state(db, "statement").due_at == utc("2026-03-02 09:03")


def test_pauses_of_ten_seconds_are_kept_to_the_millisecond(db):
    action = Failing(1)
    statement = daily(action, retry=Retry(1, 10 * SECOND))
    ticks(db, [statement], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"), utc("2026-03-02 09:00:10"))
    assert [tick_ms for tick_ms, _ in action.calls] == [utc("2026-03-02 09:00"), utc("2026-03-02 09:00:10")]


MADE: list[int] = []


async def send_statement():
    MADE.append(call.at)
    if len(MADE) == 1:
        raise RuntimeError("the mail service answered 503")


def test_a_schedule_handed_over_with_retries_is_tried_again_for_the_same_at(db):
    MADE.clear()
    hand = Items(db, lambda: utc("2026-03-01 12:00"))
    run(hand.calendar(send_statement, {"customer": "c1"}, "0 9 * * *", retry="2 after 5m", limit="1m"))
    ticks(db, [], utc("2026-03-02 09:00"), utc("2026-03-02 09:04"), utc("2026-03-02 09:05"))
    assert MADE == [utc("2026-03-02 09:00")] * 2
    [row] = run(db.all("SELECT name FROM tickwork_schedules WHERE action IS NOT NULL"))
    assert sorted((r["attempt"], r["outcome"]) for r in runs(db, row["name"])) == [
        (1, Outcome.FAILED), (2, Outcome.SUCCEEDED)]


def test_items_handed_over_in_bulk_take_retry_and_limit_as_one_does():
    from helpers import open_store

    made = []
    for hand_over in (
        lambda hand: hand.calendar_many(send_statement, [{"customer": "c1"}], "0 9 * * *", retry="2 after 5m",
                                        limit="1m"),
        lambda hand: hand.every_many(send_statement, [{"customer": "c1"}], "1d", retry="2 after 5m", limit="1m"),
        lambda hand: hand.hand_over([{"action": send_statement, "input": {"customer": "c1"}, "cron": "0 9 * * *",
                                      "retry": "2 after 5m", "limit": "1m"}]),
    ):
        db = open_store()
        run(hand_over(Items(db, lambda: utc("2026-03-01 12:00"))))
        [row] = run(db.all("SELECT timing FROM tickwork_schedules"))
        made.append({k: v for k, v in json.loads(row["timing"]).items() if k in ("retry_attempts", "retry_pause_ms",
                                                                                 "limit_ms")})
    assert made == [{"retry_attempts": 2, "retry_pause_ms": 5 * MINUTE, "limit_ms": MINUTE}] * 3


@pytest.mark.parametrize("options, code", [
    ({"retry": "3 after 30s"}, "deployable.target_unsupported"),
    ({"retry": "three"}, "schedule.retry_invalid"),
    ({"limit": "1h"}, "schedule.limit_invalid"),
    ({"limit": 120}, "schedule.limit_invalid"),
])
def test_a_handed_over_retry_or_limit_the_worker_cannot_honour_is_refused_with_its_code(db, options, code):
    with pytest.raises(ScheduleError) as refused:
        run(Items(db, lambda: utc("2026-03-01 12:00")).every(send_statement, None, "1h", **options))
    assert refused.value.code == code
    assert run(db.all("SELECT name FROM tickwork_schedules")) == []


STATEMENT_ENTRY = {"kind": "calendar", "name": "statement", "source": "src/app/x.py:3", "cron": "0 9 * * *",
                   "zone": "UTC", "retry_attempts": 3, "retry_pause_ms": MINUTE}


def test_why_says_which_attempt_failed_of_how_many_and_when_the_next_is(app):
    app.tick([daily(Failing())], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"), utc("2026-03-02 09:01"))
    app.manifest(STATEMENT_ENTRY)
    _, answer, _ = app.run("why", "statement", now=utc("2026-03-02 09:02"))
    assert answer["last_due_what"].startswith("attempt 2 of 4, ran and failed: internal_fault")
    assert answer["last_due_what"].endswith("; next attempt at 2026-03-02 09:03 UTC")
    assert answer["next_due_why"].startswith("2026-03-02 09:03 UTC (in 1 min): attempt 3 of 4 for 2026-03-02 09:00 UTC")
    assert answer["next_attempt"]["attempt"] == 3


def test_why_says_a_schedule_s_retry_and_limit_in_its_rule(app):
    app.tick([daily(Failing())], utc("2026-03-01 12:00"))
    app.manifest({**STATEMENT_ENTRY, "limit_ms": 2 * MINUTE})
    _, answer, _ = app.run("why", "statement", now=utc("2026-03-01 12:01"))
    assert answer["rule"].endswith(
        "; a failed run is tried again for its due time up to 3 times more, 1 minute after the first failure and "
        "each pause twice the one before (`retry: 3 after 1m`); a run is stopped after 2 minutes (`limit`)")


def test_history_shows_each_attempt_in_a_column_of_its_own(app):
    app.tick([daily(Failing(1))], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"), utc("2026-03-02 09:01"))
    _, answer, _ = app.run("history", "statement", now=utc("2026-03-02 09:02"))
    assert [(r["attempt"], r["outcome"]) for r in answer["runs"]] == [(2, "succeeded"), (1, "failed")]
    _, text, _ = app.run("history", "statement", now=utc("2026-03-02 09:02"), json_=False)
    assert "ATTEMPT" in text.splitlines()[1]


def test_a_failed_run_with_attempts_left_costs_the_one_statement_more_the_tick_counts_for_it(db):
    from test_statements_per_tick import FIRST_READ, cost

    from tickwork.schedule_store import Claim
    from tickwork.tick import statements_for

    statement = daily(Failing())
    ticks(db, [statement], utc("2026-03-01 12:00"))
    counted = statements_for([Claim("statement", 0, 0, "run", retries=True)])
    # the lease and the start; the retry scheduled and the end, which gives the lease back
    assert cost(db, utc("2026-03-02 09:00"), [statement])[0] == FIRST_READ + 2 + 2 == FIRST_READ + counted


def test_the_manifest_gives_the_worker_each_schedules_retries_and_limit():
    from types import SimpleNamespace

    from tickwork.app import App

    entry = {**STATEMENT_ENTRY, "nonexistent": "shift", "repeated": "first", "module": "test_retries",
             "action": "send_statement", "limit_ms": 2 * MINUTE}
    [schedule] = App.from_manifest(SimpleNamespace(STORE="DB", SCHEDULES=(entry,))).schedules
    assert (schedule.retry, schedule.limit) == (Retry(3, MINUTE), 2 * MINUTE)


def test_the_workers_run_line_says_the_attempt_and_when_the_next_is(db):
    from tickwork.adapters.workers import describe

    statement = daily(Failing())
    ticks(db, [statement], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"))
    [report] = ticks(db, [statement], utc("2026-03-02 09:01"))
    line = describe(report.runs[0])
    assert line.startswith("tickwork: statement due 2026-03-02T09:00:00.000Z (attempt 2): failed (internal_fault)")
    assert "; next attempt at 2026-03-02T09:03:00.000Z" in line


def test_the_pause_counts_from_the_ticks_time_not_the_wall_clock_of_a_tick_by_hand(db):
    statement = daily(Failing())
    ticks(db, [statement], utc("2026-03-01 12:00"))
    ticks(db, [statement], utc("2026-03-02 09:00"), started_at=utc("2026-12-01 10:00"))
    assert state(db, "statement").due_at == utc("2026-03-02 09:01")


def test_a_run_that_fails_at_once_with_a_pause_of_a_minute_is_tried_at_the_next_minutes_tick(db):
    seconds = iter([0.0, 0.0, 0.4, 0.4, 0.4, 0.4])  # the tick spends 400 ms before the run ends

    statement = daily(Failing())
    ticks(db, [statement], utc("2026-03-01 12:00"))
    ticks(db, [statement], utc("2026-03-02 09:00"), monotonic=lambda: next(seconds, 0.4))
    assert state(db, "statement").due_at == utc("2026-03-02 09:01")


def test_the_pause_of_a_run_that_failed_after_a_while_counts_from_its_failure_in_whole_ten_seconds(db):
    seconds = iter([0.0, 0.0, 95.5])

    statement = daily(Failing())
    ticks(db, [statement], utc("2026-03-01 12:00"))
    ticks(db, [statement], utc("2026-03-02 09:00"), monotonic=lambda: next(seconds, 95.5))
    assert state(db, "statement").due_at == utc("2026-03-02 09:02:30")


def test_a_killed_attempt_of_a_schedule_handed_over_with_retries_is_tried_again_for_the_same_at(db):
    MADE.clear()
    MADE.append(None)  # its first call already made: the next succeeds
    hand = Items(db, lambda: utc("2026-03-01 12:00"))
    id = run(hand.calendar(send_statement, {"customer": "c1"}, "0 9 * * *", retry="2 after 5m"))
    nine = utc("2026-03-02 09:00")
    lose_a_run(db, id, nine, utc("2026-03-03 09:00"), nine + 2 * MINUTE, call=Call(at=nine, input={"customer": "c1"}))
    ticks(db, [], nine + 2 * MINUTE, nine + 7 * MINUTE)
    assert sorted((r["attempt"], r["outcome"], r["code"]) for r in runs(db, id)) == [
        (1, Outcome.FAILED, Code.LEASE_EXPIRED), (2, Outcome.SUCCEEDED, None)]
    assert MADE[1:] == [nine]


def test_an_attempts_record_has_an_id_beginning_with_its_tick_as_every_ticks_record_does(db):
    ticks(db, [daily(Failing(1))], utc("2026-03-01 12:00"), utc("2026-03-02 09:00"), utc("2026-03-02 09:01"))
    made = runs(db, "statement")
    assert [r["attempt"] for r in made] == [1, 2]
    assert all(r["id"].startswith(f"z{int(r['tick_at']):012x}") for r in made), made


@pytest.mark.parametrize("attempts, pause", [(1, MINUTE), (3, 30 * SECOND), (8, MINUTE), (5, 7 * SECOND)])
def test_a_lapsed_runs_retry_is_timed_in_sql_by_the_rule_a_failed_ends_retry_is(attempts, pause):
    import sqlite3

    from tickwork.model import ATTEMPT_LEFT_SQL, PAUSE_AFTER_SQL, Retry

    sql = (f"SELECT CASE WHEN {ATTEMPT_LEFT_SQL.format(attempt='?1', attempts='?2')} "
           f"THEN {PAUSE_AFTER_SQL.format(pause='?3', attempt='?1', ceiling='NULL', jitter='NULL', seed='0', due='0')} END")
    db = sqlite3.connect(":memory:")
    in_sql = [db.execute(sql, (float(a), float(attempts), float(pause))).fetchone()[0] for a in range(1, 11)]
    assert in_sql == [Retry(attempts, pause).pause_after(a) for a in range(1, 11)]
