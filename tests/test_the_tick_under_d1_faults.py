"""The tick when D1 fails one call: before the call ran, or after it committed (a timeout whose
write landed). Whatever fails, a run's record says what happened, each due slot is called at
most once, and no tick skips a schedule as `running` while nothing runs."""

import asyncio
import contextlib
import logging

import pytest
from faults import D1Error, Faulty, Killed, KilledAfter, Meanwhile, at, each, nothing
from harness import FakeQueue
from helpers import Calls, Inputs, calendar, every, lose_a_run, open_store, pulse, run, runs, state, tick_at, ticks

from tickwork import Schedule, clock, event
from tickwork.grid import Every
from tickwork.model import Code, Kind, Outcome
from tickwork.outbox import Outbox
from tickwork.times import HOUR, MINUTE, utc

NINE = utc("2026-03-02 09:00")


def seeded(schedules, at=NINE):
    db = open_store()
    ticks(db, schedules, at)
    return db


def test_a_d1_error_recording_a_runs_end_is_retried_and_the_record_says_it_was_late(caplog):
    census = every(15)
    db = seeded([census])
    with caplog.at_level(logging.WARNING, logger="tickwork"):
        [report] = ticks(Faulty(db, at("ends")), [census], NINE + 15 * MINUTE)
    [record] = runs(db)
    assert (record["outcome"], record["code"]) == (Outcome.SUCCEEDED, None)
    assert "recorded late" in record["detail"] and "D1_ERROR" in record["detail"]
    assert [r.outcome for r in report.runs] == [Outcome.SUCCEEDED]
    assert state(db).lease_run is None
    assert "census: the ends were not recorded" in caplog.text


def test_after_an_end_recorded_late_the_next_tick_does_not_skip_the_schedule_as_running():
    census = every(1)
    db = seeded([census])
    ticks(Faulty(db, at("ends")), [census], NINE + MINUTE)
    ticks(db, [census], NINE + 2 * MINUTE)
    assert [(r["outcome"], r["code"]) for r in runs(db)] == [(Outcome.SUCCEEDED, None)] * 2
    assert census.action.at == [NINE + MINUTE, NINE + 2 * MINUTE]


def test_an_end_that_landed_but_answered_an_error_keeps_its_first_record():
    census = every(15)
    db = seeded([census])
    ticks(Faulty(db, at("ends"), landed=True), [census], NINE + 15 * MINUTE)
    [record] = runs(db)
    assert (record["outcome"], record["detail"]) == (Outcome.SUCCEEDED, None)
    assert state(db).lease_run is None


def test_a_lease_write_that_landed_but_answered_an_error_still_makes_the_call(caplog):
    census = every(15)
    db = seeded([census])
    with caplog.at_level(logging.INFO, logger="tickwork"):
        ticks(Faulty(db, at("claim"), landed=True), [census], NINE + 15 * MINUTE)
    assert census.action.at == [NINE + 15 * MINUTE]
    assert [r["outcome"] for r in runs(db)] == [Outcome.SUCCEEDED]
    assert state(db).lease_run is None
    assert "stay due" not in caplog.text


def test_a_lease_write_that_did_not_land_leaves_the_schedule_due_and_says_so(caplog):
    census = every(15)
    db = seeded([census])
    with caplog.at_level(logging.INFO, logger="tickwork"):
        ticks(Faulty(db, at("claim")), [census], NINE + 15 * MINUTE)
    assert census.action.at == [] and runs(db) == []
    assert state(db).due_at == NINE + 15 * MINUTE
    assert "did not land; they stay due" in caplog.text
    ticks(db, [census], NINE + 16 * MINUTE)
    assert census.action.at == [NINE + 16 * MINUTE]


def test_calendars_sharing_an_action_still_make_the_moment_when_the_lease_write_answered_an_error():
    action = Inputs()
    entries = [calendar("0 10 * * *", name=name, action=action) for name in ("a", "b")]
    db = seeded(entries)
    ticks(Faulty(db, each("claim"), landed=True), entries, utc("2026-03-02 10:00"))
    assert action.at == [utc("2026-03-02 10:00")]
    outcomes = sorted((r["outcome"], r["code"]) for name in "ab" for r in runs(db, name))
    assert outcomes == [(Outcome.SKIPPED, Code.COALESCED), (Outcome.SUCCEEDED, None)]


def test_a_kill_right_after_the_claim_batch_leaves_every_claimed_due_time_with_a_record():
    entries = scenario()
    db = seeded(entries)
    with pytest.raises(Killed):
        ticks(KilledAfter(db, at("claim")), entries, utc("2026-03-02 10:00"))
    ticks(db, entries, utc("2026-03-02 10:20"))  # past the leases of the killed tick
    ten = utc("2026-03-02 10:00")
    records = {s.name: [(r["due_at"], r["code"]) for r in runs(db, s.name)] for s in entries}
    assert records["hourly"] == records["sweep"] == [(ten, Code.LEASE_EXPIRED)]
    assert sorted(records["a"] + records["b"]) == [(ten, Code.COALESCED), (ten, Code.LEASE_EXPIRED)]
    assert [s.name for s in entries if state(db, s.name).lease_run is not None] == []


def test_a_skip_whose_write_answered_an_error_is_logged_as_it_is(caplog):
    census = every(15)
    db = seeded([census])
    run(db.all("UPDATE tickwork_schedules SET paused = 1"))
    with caplog.at_level(logging.INFO, logger="tickwork"):
        ticks(Faulty(db, at("claim"), landed=True), [census], NINE + 15 * MINUTE)
    assert [(r["outcome"], r["code"]) for r in runs(db)] == [(Outcome.SKIPPED, Code.PAUSED)]
    assert "stay due" not in caplog.text and "skipped" in caplog.text


def test_a_removed_schedules_lost_run_ends_when_its_lease_lapses():
    census, other = every(15), every(15, "other")
    db = seeded([census, other])
    lose_a_run(db, "census", due=NINE + 15 * MINUTE, next_due=NINE + 30 * MINUTE, until=NINE + 30 * MINUTE)
    ticks(db, [other], NINE + 31 * MINUTE)  # census was removed from the app meanwhile
    [lost] = runs(db)
    assert (lost["outcome"], lost["code"], lost["kind"]) == (Outcome.FAILED, Code.LEASE_EXPIRED, Kind.LOST)
    assert state(db).lease_run is None


def test_a_removed_calendar_that_comes_back_as_the_apps_only_schedule_owes_nothing_from_before():
    weekly = calendar("0 9 * * 1", "Europe/Berlin")
    db = seeded([weekly], utc("2026-01-04 12:00"))
    ticks(db, [], utc("2026-01-05 08:00"), utc("2026-01-06 10:00"))  # the app declares nothing
    ticks(db, [weekly], utc("2026-01-07 10:00"))
    assert weekly.action.made == []
    assert state(db, "weekly").due_at == utc("2026-01-12 08:00")


def test_a_blocking_action_that_overran_its_limit_is_recorded_deadline_exceeded():
    clock = [0.0]

    async def blocks():
        clock[0] += 30.0  # as `time.sleep(30)` would: nothing awaits, nothing can stop it

    census = Schedule("census", Every(15 * MINUTE), blocks)
    db = seeded([census])
    ticks(db, [census], NINE + 15 * MINUTE, budget=20_000, monotonic=lambda: clock[0])
    [record] = runs(db)
    assert (record["outcome"], record["code"], record["kind"]) == (
        Outcome.FAILED, Code.DEADLINE_EXCEEDED, Kind.DEADLINE,
    )
    assert "30000 ms" in record["detail"] and "20000 ms" in record["detail"]
    assert state(db).lease_run is None


def test_a_blocking_action_within_its_limit_succeeds():
    clock = [0.0]

    async def blocks():
        clock[0] += 5.0

    census = Schedule("census", Every(15 * MINUTE), blocks)
    db = seeded([census])
    ticks(db, [census], NINE + 15 * MINUTE, budget=20_000, monotonic=lambda: clock[0])
    assert runs(db)[0]["outcome"] == Outcome.SUCCEEDED


def scenario():
    """One of each kind, all due at 10:00, two calendars sharing an action."""
    shared = Inputs()
    return [
        every(60, "hourly"),
        pulse(HOUR, 1, name="sweep", action=Calls()),
        calendar("0 10 * * *", name="a", action=shared),
        calendar("0 10 * * *", name="b", action=shared),
    ]


def calls_made(schedules):
    return {s.name: list(s.action.at) for s in schedules}


def due_tick(db, schedules):
    ticks(db, schedules, utc("2026-03-02 10:00"))


def made_by(setup, tick):
    """The (operation, occurrence) of each call a fault-free tick makes, and None for no fault:
    a matrix fails each in turn, so a statement merged or a step moved cannot shrink it unseen."""
    recording = Faulty(setup(), nothing)
    tick(recording)
    return [None, *recording.operations()]


def picked(made):
    return nothing if made is None else at(*made)


def named(made):
    return "no fault" if made is None else f"{made[0]} {made[1]}"


DUE_TICK = made_by(lambda: seeded(scenario()), lambda db: due_tick(db, scenario()))


def test_the_due_tick_the_matrix_fails_makes_each_kind_of_call():
    assert {operation for operation, _ in DUE_TICK[1:]} == {"probe", "gap", "claim", "ends", "housekeeping"}


@pytest.mark.parametrize("landed", [False, True], ids=["before it ran", "after it committed"])
@pytest.mark.parametrize("failing", DUE_TICK, ids=named)
def test_whichever_call_of_a_tick_fails_no_slot_is_called_twice_or_left_running(failing, landed):
    schedules = scenario()
    db = seeded(schedules)
    faulty = Faulty(db, picked(failing), landed=landed)
    try:
        due_tick(faulty, schedules)
    except Exception:
        pass  # the tick's first read failed: the invocation fails, the next tick catches up
    ticks(db, schedules, utc("2026-03-02 10:01"), utc("2026-03-02 11:00"))

    made = calls_made(schedules)
    for name in ("hourly", "sweep"):
        assert len(made[name]) == len(set(map(str, made[name])))  # no slot called twice
        assert 1 <= len(made[name]) <= 2
    assert sorted(made["a"]) == [utc("2026-03-02 10:00")]  # the shared moment: exactly once
    records = [r for s in schedules for r in runs(db, s.name)]
    assert not [r for r in records if r["outcome"] == Outcome.RUNNING]
    assert not [r for r in records if r["code"] in (Code.RUNNING, Code.LEASE_EXPIRED)]
    succeeded = sum(1 for r in records if r["outcome"] == Outcome.SUCCEEDED)
    assert succeeded == sum(len(calls) for name, calls in made.items() if name != "b")


@pytest.mark.parametrize("began", [0, -HOUR, 5 * MINUTE], ids=["on time", "by hand for a time ahead", "late"])
def test_an_end_is_tried_again_until_the_lease_lapses_and_not_after(began):
    census = every(15)
    db = open_store()
    ticks(db, [census], NINE, started_at=NINE + min(began, 0))  # the clock, unlike ticks by hand, runs on
    elapsed = [0.0]

    async def pause(seconds):
        elapsed[0] += seconds  # the pauses pass on the tick's clock, not in the test

    faulty = Faulty(db, each("ends"))
    ticks(faulty, [census], NINE + 15 * MINUTE, budget=5 * MINUTE, monotonic=lambda: elapsed[0], sleep=pause,
          started_at=NINE + 15 * MINUTE + began)
    lease = 5 * MINUTE + MINUTE  # the budget left at the start, plus a minute
    assert lease - 30_000 <= elapsed[0] * 1000 < lease
    assert runs(db)[0]["outcome"] == Outcome.RUNNING  # lost: it ends lease_expired when the lease lapses


shipped = event("shipped", queue="EVENTS")


def emitting(name):
    async def ship():
        await shipped.emit({"from": name, "at": clock.now_ms})

    return Schedule(name, Every(MINUTE), ship)


def emitted_store():
    db = open_store()
    ticks(db, [emitting("a"), emitting("b")], NINE)
    return db


def emitting_tick(db, schedules, queue):
    ticks(db, schedules, NINE + MINUTE, outbox=Outbox(db, {"EVENTS": queue}, frozenset(), lambda: NINE + MINUTE))


EMITTING_TICK = made_by(emitted_store, lambda db: emitting_tick(db, [emitting("a"), emitting("b")], FakeQueue()))


def test_the_emitting_tick_the_matrix_fails_sends_what_its_runs_emitted():
    assert {operation for operation, _ in EMITTING_TICK[1:]} == {"probe", "claim", "ends", "send"}


@pytest.mark.parametrize("landed", [False, True], ids=["before it ran", "after it committed"])
@pytest.mark.parametrize("failing", EMITTING_TICK, ids=named)
def test_whichever_call_of_a_tick_that_emits_fails_each_succeeded_run_is_delivered_once(failing, landed):
    schedules = [emitting("a"), emitting("b")]
    db, queue = open_store(), FakeQueue()

    def outbox(store, at):
        return Outbox(store, {"EVENTS": queue}, frozenset(), lambda: at)

    ticks(db, schedules, NINE)
    faulty = Faulty(db, picked(failing), landed=landed)
    try:
        emitting_tick(faulty, schedules, queue)
    except Exception:
        pass  # the tick's first read failed: the invocation fails, the next tick catches up
    for later in (NINE + 3 * MINUTE, NINE + 5 * MINUTE):
        ticks(db, schedules, later, outbox=outbox(db, later))
    succeeded = [(r["schedule"], r["tick_at"]) for s in schedules for r in runs(db, s.name)
                 if r["outcome"] == Outcome.SUCCEEDED]
    delivered = sorted((m["body"]["from"], m["body"]["at"]) for m in queue.messages)
    assert sorted(set(delivered)) == sorted(succeeded)  # each run that succeeded, and only those
    assert run(db.all("SELECT COUNT(*) AS n FROM tickwork_events")) == [{"n": len(succeeded)}]



def test_a_lost_run_a_tick_found_but_could_not_end_is_ended_by_the_next_though_that_tick_marked_the_app():
    census = every(15)
    db = seeded([census])
    lost = lose_a_run(db, "census", due=NINE + 15 * MINUTE, next_due=NINE + 30 * MINUTE, until=NINE + 30 * MINUTE)
    run(db.all("UPDATE tickwork_schedules SET paused = 1"))  # so no tick below finds census due
    with pytest.raises(D1Error):
        ticks(Faulty(db, at("expire")), [census], NINE + 50 * MINUTE)  # its mark landed
    ticks(db, [census], NINE + 51 * MINUTE)
    [record] = [r for r in runs(db) if r["id"] == lost]
    assert (record["outcome"], record["code"], record["ended_at"]) == (
        Outcome.FAILED, Code.LEASE_EXPIRED, NINE + 51 * MINUTE)


class Vanishing(Calls):
    """An action whose call in the tick at `tick` never ends: its worker is lost with it."""

    def __init__(self, tick):
        super().__init__()
        self.tick = tick

    async def __call__(self):
        if clock.now_ms == self.tick:
            raise Killed("the worker was lost during the run")
        await super().__call__()


def test_a_lease_that_would_lapse_by_a_later_ticks_mark_is_not_taken_so_no_run_is_left_running_unseen():
    census = every(15, action=Vanishing(NINE + 15 * MINUTE))
    db = seeded([census])

    async def later():  # a tick at 09:45, its statements spent on its first read, marks the app
        await tick_at(db, [census], NINE + 45 * MINUTE, max_statements=2)

    # the 09:15 tick would take a lease to 09:30 after that mark, and its worker be lost
    with contextlib.suppress(Killed):
        ticks(Meanwhile(db, at("claim"), later), [census], NINE + 15 * MINUTE)
    ticks(db, [census], *(NINE + minutes * MINUTE for minutes in (46, 60, 75)))
    assert [r for r in runs(db) if r["outcome"] == Outcome.RUNNING] == []
    assert census.action.at == [NINE + minutes * MINUTE for minutes in (46, 60, 75)]


def test_lapses_are_not_cleared_past_a_lease_taken_meanwhile_by_a_tick_of_a_longer_reach():
    census, tidy = every(15), every(15, name="tidy", action=Vanishing(NINE + 15 * MINUTE))
    db = seeded([census, tidy])  # both due at 09:15
    run(tick_at(db, [census, tidy], NINE + 60 * MINUTE, max_statements=2))  # 10:00 marked, nothing run
    run(db.all("UPDATE tickwork_schedules SET due_at = ?1 WHERE name = 'census'", (NINE + 50 * MINUTE,)))
    lose_a_run(db, "census", due=NINE + 50 * MINUTE, next_due=NINE + 65 * MINUTE, until=NINE + 65 * MINUTE)

    async def late():  # the 09:15 tick, begun at 09:46, leases tidy to 10:01 and is lost
        with contextlib.suppress(Killed):
            await tick_at(db, [census, tidy], NINE + 15 * MINUTE, started_at=NINE + 46 * MINUTE)

    # the 10:30 tick finds census's lease lapsed, and the late one leases tidy before it ends it
    ticks(Meanwhile(db, at("expire"), late), [census, tidy], NINE + 90 * MINUTE)
    ticks(db, [census, tidy], *(NINE + minutes * MINUTE for minutes in (91, 105, 120)))
    assert [(r["schedule"], r["due_at"]) for r in runs(db) + runs(db, "tidy") if r["outcome"] == Outcome.RUNNING] == []
    assert [(r["due_at"], r["code"]) for r in runs(db, "tidy")][:1] == [(NINE + 15 * MINUTE, Code.LEASE_EXPIRED)]
    assert tidy.action.at[-2:] == [NINE + minutes * MINUTE for minutes in (105, 120)]
