"""Schedules document, "How a schedule runs", "The time inside a run" and "When a run fails"."""

import asyncio
import logging
import re
import selectors

import pytest
from helpers import (
    Blocking,
    Calls,
    calendar,
    every,
    lose_a_run,
    lost_run,
    open_store,
    run,
    runs,
    state,
    tick_at,
    ticks,
    while_first_call_runs,
)

from tickwork import ActionError, Schedule, clock
from tickwork.grid import Every
from tickwork.model import Code, Kind, Outcome
from tickwork.per_item import Items
from tickwork.schedule_store import ScheduleStore
from tickwork.tick import tick
from tickwork.times import MINUTE, NEVER, utc


def test_two_ticks_racing_for_one_due_schedule_make_exactly_one_run(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"))

    async def race():
        return await asyncio.gather(
            tick_at(db, [census], utc("2026-03-02 09:15")),
            tick_at(db, [census], utc("2026-03-02 09:15")),
        )

    first, second = run(race())
    assert census.action.at == [utc("2026-03-02 09:15")]
    assert len(first.runs) + len(second.runs) == 1
    assert len(runs(db)) == 1


def test_two_instances_on_one_database_racing_make_exactly_one_run(tmp_path):
    path = tmp_path / "d1.sqlite"
    one, other = open_store(path), None
    census = every(15)
    ticks(one, [census], utc("2026-03-02 09:00"))
    from tickwork.adapters.sqlite import SQLiteDatabase

    other = SQLiteDatabase(path)

    async def race():
        await asyncio.gather(
            *(tick_at(db, [census], utc("2026-03-02 09:15")) for db in (one, other, one, other))
        )

    run(race())
    assert census.action.at == [utc("2026-03-02 09:15")]
    assert len(runs(one)) == 1


def test_a_paused_schedule_is_skipped_with_reason_paused_and_its_due_time_moves_on(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"))
    run(db.all("UPDATE tickwork_schedules SET paused = 1"))
    ticks(db, [census], utc("2026-03-02 09:31"))
    assert census.action.at == []
    [skip] = runs(db)
    assert (skip["outcome"], skip["code"], skip["due_at"]) == (
        Outcome.SKIPPED,
        Code.PAUSED,
        utc("2026-03-02 09:15"),
    )
    assert state(db).due_at == utc("2026-03-02 09:45")


def test_a_schedule_held_by_an_unfinished_run_is_skipped_with_reason_running(db):
    slow = Blocking()
    census = Schedule("census", Every(10 * MINUTE), slow)
    ticks(db, [census], utc("2026-03-02 09:00"))
    [held], _ = while_first_call_runs(
        db, [census], slow, utc("2026-03-02 09:10"), [utc("2026-03-02 09:20")]  # lease to 09:25
    )
    assert [(r.outcome, r.code) for r in held.runs] == [(Outcome.SKIPPED, Code.RUNNING)]
    assert [call["now"] for call in slow.made] == [utc("2026-03-02 09:10")]
    assert [r["outcome"] for r in runs(db)] == [Outcome.SUCCEEDED, Outcome.SKIPPED]
    assert state(db).due_at == utc("2026-03-02 09:30")
    assert state(db).lease_run is None


@pytest.mark.parametrize(
    "budget, lease_until",
    [
        (5 * MINUTE, "2026-03-02 09:21"),  # what is left of the budget, plus a minute
        (30 * MINUTE, "2026-03-02 09:31"),  # the budget's part never past the 15-minute run limit
    ],
)
def test_the_lease_lasts_the_budget_left_at_most_the_run_limit_plus_a_minute(db, budget, lease_until):
    seen = []

    async def look():
        seen.append(await ScheduleStore(db).state("census"))

    census = Schedule("census", Every(15 * MINUTE), look)
    ticks(db, [census], utc("2026-03-02 09:00"))
    ticks(db, [census], utc("2026-03-02 09:15"), budget=budget)
    assert seen[0].lease_until == utc(lease_until)


def test_a_tick_for_a_time_ahead_of_its_invocation_runs_what_is_due_under_a_lease_timed_on_the_invocations_clock(db):
    seen = []

    async def look():
        seen.append(await ScheduleStore(db).state("census"))

    census = Schedule("census", Every(15 * MINUTE), look)
    ticks(db, [census], utc("2026-03-02 09:00"), started_at=utc("2026-02-01 09:00"))  # a tick by hand
    ticks(db, [census], utc("2026-03-02 09:15"), started_at=utc("2026-02-01 09:01"))
    assert [r["outcome"] for r in runs(db)] == ["succeeded"]
    assert seen[0].lease_until == utc("2026-02-01 09:16")  # the Worker's 14 minutes, plus a minute


def test_a_run_found_holding_an_expired_lease_is_recorded_failed_lease_expired(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"))
    lose_a_run(db, "census", due=utc("2026-03-02 09:15"), next_due=utc("2026-03-02 09:30"),
               until=utc("2026-03-02 09:30"))

    ticks(db, [census], utc("2026-03-02 09:20"))  # lease still live: nothing due, nothing ended
    assert runs(db)[0]["outcome"] == Outcome.RUNNING

    ticks(db, [census], utc("2026-03-02 09:31"))
    first, second = runs(db)
    assert (first["id"], first["outcome"], first["code"], first["kind"]) == (
        lost_run(utc("2026-03-02 09:15")),
        Outcome.FAILED,
        Code.LEASE_EXPIRED,
        Kind.LOST,
    )
    assert first["ended_at"] == utc("2026-03-02 09:31")
    assert (second["due_at"], second["outcome"]) == (utc("2026-03-02 09:30"), Outcome.SUCCEEDED)
    assert census.action.at == [utc("2026-03-02 09:31")]


@pytest.mark.parametrize("schedule", [every(15), calendar("*/15 * * * *", name="census")], ids=["every", "calendar"])
def test_a_lost_runs_lease_that_outlasts_its_next_due_time_is_recorded_lease_expired_once_it_lapses(db, schedule):
    ticks(db, [schedule], utc("2026-03-02 09:00"))
    lose_a_run(db, "census", due=utc("2026-03-02 09:15"), next_due=utc("2026-03-02 09:30"),
               until=utc("2026-03-02 09:40"))
    ticks(db, [schedule], utc("2026-03-02 09:30"), utc("2026-03-02 09:35"))  # due, and still held
    assert runs(db)[0]["outcome"] == Outcome.RUNNING
    ticks(db, [schedule], utc("2026-03-02 09:41"))
    lost = runs(db)[0]
    assert (lost["id"], lost["outcome"], lost["code"], lost["ended_at"]) == (
        lost_run(utc("2026-03-02 09:15")), Outcome.FAILED, Code.LEASE_EXPIRED, utc("2026-03-02 09:41"))
    assert state(db).lease_run != lost_run(utc("2026-03-02 09:15"))


def pause(db):
    run(db.all("UPDATE tickwork_schedules SET paused = 1 WHERE name = 'census'"))


# What may move a schedule's due time past its lost run's lease, or end it, before the lease lapses.
MOVED = {
    "paused": ([every(15)], pause),
    "removed by a deploy": ([every(15, "other")], None),
    "its rule changed by a deploy": ([every(60)], None),
    "run by hand": ([every(15)], lambda db: run(db.all(
        "UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada'", (utc("2026-03-02 09:31"),)))),
}


@pytest.mark.parametrize("moved", MOVED, ids=list(MOVED))
def test_a_lost_runs_lease_is_recorded_lease_expired_at_the_first_tick_after_it_lapses_whatever_moved_its_due_time(
        db, moved):
    after, change = MOVED[moved]
    ticks(db, [every(15)], utc("2026-03-02 09:00"))
    lose_a_run(db, "census", due=utc("2026-03-02 09:15"), next_due=utc("2026-03-02 09:30"),
               until=utc("2026-03-02 09:40"))
    if change:
        change(db)
    ticks(db, after, utc("2026-03-02 09:31"), utc("2026-03-02 09:39"))  # the lease still live
    assert runs(db)[0]["outcome"] == Outcome.RUNNING

    async def race():
        await asyncio.gather(*(tick_at(db, after, utc("2026-03-02 09:41")) for _ in range(3)))

    asyncio.run(race())
    lost = runs(db)[0]
    assert (lost["id"], lost["outcome"], lost["code"], lost["ended_at"]) == (
        lost_run(utc("2026-03-02 09:15")), Outcome.FAILED, Code.LEASE_EXPIRED, utc("2026-03-02 09:41"))
    assert state(db).lease_run != lost_run(utc("2026-03-02 09:15"))


async def tally():
    pass


@pytest.mark.parametrize("ended", ["cancelled", "once"])
def test_a_lost_runs_lease_on_a_schedule_handed_over_that_ended_is_recorded_lease_expired_once_it_lapses(db, ended):
    nine = utc("2026-03-02 09:00")
    given = Items(db, lambda: nine)
    id = run(given.once(tally, {}, nine + MINUTE) if ended == "once" else given.every(tally, {}, "1m"))
    due = state(db, id).due_at
    lose_a_run(db, id, due=due, next_due=NEVER if ended == "once" else due + MINUTE, until=due + 10 * MINUTE)
    if ended == "cancelled":
        assert run(given.cancel(id)) is True
    assert state(db, id).removed_at is not None
    ticks(db, [], due + 9 * MINUTE)
    assert runs(db, id)[0]["outcome"] == Outcome.RUNNING
    ticks(db, [], due + 11 * MINUTE)
    lost = runs(db, id)[0]
    assert (lost["outcome"], lost["code"], lost["ended_at"]) == (Outcome.FAILED, Code.LEASE_EXPIRED, due + 11 * MINUTE)


def test_clock_now_inside_a_run_is_the_ticks_time_at_every_read(db):
    reads = []

    async def reads_twice():
        reads.append(clock.now)
        await asyncio.sleep(0)
        reads.append(clock.now)

    census = Schedule("census", Every(15 * MINUTE), reads_twice)
    ticks(db, [census], utc("2026-03-02 09:00"), utc("2026-03-02 09:16"))
    assert [moment.isoformat() for moment in reads] == ["2026-03-02T09:16:00+00:00"] * 2


def test_runs_side_by_side_each_see_their_own_tick_time():
    seen = {}

    async def action(name):
        seen[name] = clock.now_ms

    async def both():
        await asyncio.gather(*(
            tick(open_store(), [Schedule(name, Every(MINUTE), lambda n=name: action(n))], moment)
            for name, moment in (("a", utc("2026-03-02 09:00")), ("b", utc("2026-03-02 10:00")))
        ))

    run(both())
    assert seen == {}  # first ticks only see the schedules
    stores = {name: open_store() for name in "ab"}

    async def twice(name, moment):
        schedule = Schedule(name, Every(MINUTE), lambda: action(name))
        await tick(stores[name], [schedule], moment)
        await tick(stores[name], [schedule], moment + MINUTE)

    async def side_by_side():
        await asyncio.gather(twice("a", utc("2026-03-02 09:00")), twice("b", utc("2026-03-02 10:00")))

    run(side_by_side())
    assert seen == {"a": utc("2026-03-02 09:01"), "b": utc("2026-03-02 10:01")}


def test_the_action_is_called_with_no_arguments(db):
    received = []

    async def census(*args, **kwargs):
        received.append((args, kwargs))

    ticks(db, [Schedule("census", Every(MINUTE), census)], utc("2026-03-02 09:00"), utc("2026-03-02 09:01"))
    assert received == [((), {})]


def test_due_schedules_run_side_by_side_so_one_long_run_holds_no_other_up(db):
    other_ran = asyncio.Event()

    async def waits_for_the_other():
        await asyncio.wait_for(other_ran.wait(), timeout=5)

    async def quick():
        other_ran.set()

    schedules = [Schedule("long", Every(MINUTE), waits_for_the_other), Schedule("quick", Every(MINUTE), quick)]
    [_, report] = ticks(db, schedules, utc("2026-03-02 09:00"), utc("2026-03-02 09:01"))
    assert sorted((r.schedule, r.outcome) for r in report.runs) == [
        ("long", Outcome.SUCCEEDED),
        ("quick", Outcome.SUCCEEDED),
    ]


def test_a_failed_run_is_recorded_with_its_code_and_kind_and_logged(db, caplog):
    async def broken():
        raise ValueError("the todo list is missing")

    census = Schedule("census", Every(15 * MINUTE), broken)
    with caplog.at_level(logging.ERROR, logger="tickwork"):
        ticks(db, [census], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"))
    [record] = runs(db)
    assert (record["outcome"], record["code"], record["kind"]) == (
        Outcome.FAILED,
        Code.INTERNAL_FAULT,
        Kind.RAISED,
    )
    assert record["detail"] == "ValueError: the todo list is missing"
    assert "census: run failed: internal_fault" in caplog.text
    assert "Traceback" in caplog.text
    assert state(db).lease_run is None


HOSTILE = "\x1b]0;owned\x07\x1b[2J\u202egone\r"  # a window title, a screen clear, a reversal


def test_the_log_lines_of_a_failed_run_show_the_control_characters_of_its_error_as_escapes(db, caplog):
    async def hostile():
        raise ValueError(HOSTILE)

    with caplog.at_level(logging.ERROR, logger="tickwork"):
        ticks(db, [Schedule("census", Every(15 * MINUTE), hostile)], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"))
        try:
            raise ValueError(HOSTILE)
        except ValueError:
            logging.getLogger("tickwork").exception("housekeeping failed: %s", HOSTILE)

    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", caplog.text)
    assert "census: run failed: internal_fault: ValueError: \\x1b]0;owned\\x07\\x1b[2J\\u202egone\\x0d" in caplog.text
    assert "housekeeping failed: \\x1b]0;owned" in caplog.text
    assert caplog.text.count("Traceback") == 2 and "\n" in caplog.records[-1].exc_text  # its lines kept


def test_an_action_can_name_the_code_its_failure_is_recorded_with(db):
    async def unavailable():
        raise ActionError("unavailable", "the mail service did not answer")

    ticks(db, [Schedule("census", Every(MINUTE), unavailable)], utc("2026-03-02 09:00"), utc("2026-03-02 09:01"))
    assert runs(db)[0]["code"] == "unavailable"


def test_a_failed_run_is_tried_again_at_its_next_due_time_not_at_every_tick(db):
    calls = []

    async def broken():
        calls.append(clock.now_ms)
        raise RuntimeError("down")

    census = Schedule("census", Every(15 * MINUTE), broken)
    minutes = [utc("2026-03-02 09:00") + m * MINUTE for m in range(0, 31)]
    ticks(db, [census], *minutes)
    assert calls == [utc("2026-03-02 09:15"), utc("2026-03-02 09:30")]


def test_a_run_past_its_ticks_budget_is_failed_deadline_exceeded_and_gives_its_lease_back(db):
    async def never_ends():
        await asyncio.Event().wait()

    census = Schedule("census", Every(15 * MINUTE), never_ends)
    ticks(db, [census], utc("2026-03-02 09:00"))
    [report] = ticks(db, [census], utc("2026-03-02 09:15"), budget=20)
    assert [(r.outcome, r.code, r.kind) for r in report.runs] == [
        (Outcome.FAILED, Code.DEADLINE_EXCEEDED, Kind.DEADLINE)
    ]
    assert runs(db)[0]["code"] == Code.DEADLINE_EXCEEDED
    assert state(db).lease_run is None and state(db).lease_until is None


class VirtualTime(asyncio.SelectorEventLoop):
    """An event loop whose clock jumps to its next timer instead of waiting for it: a 15-minute
    timeout passes at once, and exactly."""

    def __init__(self):
        loop = self

        class Skipping(selectors.DefaultSelector):
            def select(self, timeout=None):
                ready = super().select(0)
                if not ready and timeout:
                    loop.seconds += timeout
                return ready

        self.seconds = 0.0
        super().__init__(Skipping())

    def time(self):
        return self.seconds


def test_a_run_is_stopped_at_15_minutes_when_its_ticks_budget_is_larger(db):
    async def never_ends():
        await asyncio.Event().wait()

    census = Schedule("census", Every(30 * MINUTE), never_ends)
    ticks(db, [census], utc("2026-03-02 09:00"))
    loop = VirtualTime()
    try:
        loop.run_until_complete(tick(db, [census], utc("2026-03-02 09:30"), budget=60 * MINUTE, monotonic=loop.time))
    finally:
        loop.close()
    [record] = runs(db)
    assert (record["outcome"], record["code"], record["kind"]) == (Outcome.FAILED, Code.DEADLINE_EXCEEDED, Kind.DEADLINE)
    assert record["ended_at"] - record["started_at"] == 15 * MINUTE
    assert "stopped after 900000 ms" in record["detail"]
    assert state(db).lease_run is None


def test_a_timeout_the_action_raises_itself_is_a_failure_not_a_deadline(db):
    async def times_out():
        raise TimeoutError("the mail service timed out")

    ticks(db, [Schedule("census", Every(MINUTE), times_out)], utc("2026-03-02 09:00"), utc("2026-03-02 09:01"))
    assert (runs(db)[0]["code"], runs(db)[0]["kind"]) == (Code.INTERNAL_FAULT, Kind.RAISED)


def test_a_tick_whose_budget_is_spent_starts_no_run_and_leaves_the_schedule_due(db):
    seconds = iter([0.0])  # the tick begins at 0 s; by its first run 2 s have gone
    census = every(1)
    ticks(db, [census], utc("2026-03-02 09:00"))
    [report] = ticks(
        db, [census], utc("2026-03-02 09:01"), budget=1000, monotonic=lambda: next(seconds, 2.0)
    )
    assert report.runs == [] and census.action.at == []
    assert state(db).due_at == utc("2026-03-02 09:01")


def test_a_run_record_keeps_schedule_due_tick_start_end_and_outcome(db):
    elapsed = iter([0.0, 1.5, 4.0])  # tick starts; run starts 1.5 s in; ends 4 s in
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"))
    ticks(db, [census], utc("2026-03-02 09:16"), monotonic=lambda: next(elapsed))
    [record] = runs(db)
    assert {k: record[k] for k in ("schedule", "due_at", "tick_at", "started_at", "ended_at", "outcome")} == {
        "schedule": "census",
        "due_at": utc("2026-03-02 09:15"),
        "tick_at": utc("2026-03-02 09:16"),
        "started_at": utc("2026-03-02 09:16:01.500"),
        "ended_at": utc("2026-03-02 09:16:04"),
        "outcome": Outcome.SUCCEEDED,
    }


class Broken(Every):
    """A timing that fails when asked what is owed."""

    def owed(self, due, tick):
        raise RuntimeError("no zone data")


def test_a_schedule_the_tick_cannot_deal_with_holds_no_other_up(db, caplog):
    census = every(1)
    broken = Schedule("broken", Broken(MINUTE), Calls())
    with caplog.at_level(logging.ERROR, logger="tickwork"):
        ticks(db, [broken, census], utc("2026-03-02 09:00"), utc("2026-03-02 09:01"))
    assert census.action.at == [utc("2026-03-02 09:01")]
    assert "broken: the tick could not deal with it" in caplog.text
    assert state(db, "broken").due_at == utc("2026-03-02 09:01")  # still due


def test_two_ticks_racing_record_a_skip_once(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"))
    run(db.all("UPDATE tickwork_schedules SET paused = 1"))

    async def race():
        await asyncio.gather(*(tick_at(db, [census], utc("2026-03-02 09:15")) for _ in range(3)))

    run(race())
    assert [(r["outcome"], r["code"]) for r in runs(db)] == [(Outcome.SKIPPED, Code.PAUSED)]


def test_a_tick_makes_no_more_statements_than_allowed_and_leaves_the_rest_due(db):
    schedules = [every(1, f"s{n:03}") for n in range(250)]
    ticks(db, schedules, utc("2026-03-02 09:00"))
    before = db.statements_run
    # the first read; then room for one chunk of 200 leases, their starts and their ends
    [capped] = ticks(db, schedules, utc("2026-03-02 09:01"), max_statements=2 + 4)
    assert len(capped.runs) == 200 and db.statements_run - before <= 6
    [rest] = ticks(db, schedules, utc("2026-03-02 09:01:30"))
    assert len(rest.runs) == 50


def test_runs_are_timed_from_when_the_invocation_began_not_its_scheduled_time(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"))
    ticks(db, [census], utc("2026-03-02 09:15"), started_at=utc("2026-03-02 09:17"))
    [record] = runs(db)
    assert (record["tick_at"], record["started_at"]) == (utc("2026-03-02 09:15"), utc("2026-03-02 09:17"))
    assert state(db).lease_run is None


def test_a_runs_end_is_recorded_as_it_ends_not_after_a_slow_sibling(db):
    slow = Blocking()
    schedules = [Schedule("slow", Every(MINUTE), slow), every(1, "quick")]
    ticks(db, schedules, utc("2026-03-02 09:00"))

    async def while_slow_runs():
        ticking = asyncio.create_task(tick_at(db, schedules, utc("2026-03-02 09:01")))
        for _ in range(100):
            await asyncio.sleep(0)
        store = ScheduleStore(db)
        seen = {r["schedule"]: r["outcome"] for name in ("slow", "quick") for r in await store.runs(name)}
        slow.release.set()
        await ticking
        return seen

    assert run(while_slow_runs()) == {"slow": Outcome.RUNNING, "quick": Outcome.SUCCEEDED}
