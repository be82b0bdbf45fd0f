"""A run asked for by hand (the operator's `run NAME`): made by the next tick's first step under
the schedule's lease, recorded as by hand, moving no grid; once however ticks race."""

import asyncio

from helpers import Blocking, every, run, runs, state, tick_at, ticks

from tickwork import Schedule
from tickwork.grid import Every
from tickwork.model import Outcome
from tickwork.times import MINUTE, utc

NINE = utc("2026-03-02 09:00")


def ask(db, name="census", at=NINE, who="ada"):
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = ?2 WHERE name = ?3",
               (at, who, name)))


def test_a_run_asked_for_by_hand_is_made_by_the_next_tick_moving_no_grid(db):
    census = every(15)
    ticks(db, [census], NINE)
    ask(db, at=NINE + MINUTE)
    ticks(db, [census], NINE + 2 * MINUTE, NINE + 3 * MINUTE)
    assert census.action.at == [NINE + 2 * MINUTE]
    [record] = runs(db)
    assert (record["outcome"], record["by_hand"], record["due_at"]) == (Outcome.SUCCEEDED, "ada", NINE + 15 * MINUTE)
    assert state(db).due_at == NINE + 15 * MINUTE
    ticks(db, [census], NINE + 15 * MINUTE)
    assert census.action.at == [NINE + 2 * MINUTE, NINE + 15 * MINUTE]


def test_a_run_asked_for_by_hand_racing_ticks_runs_once(db):
    census = every(15)
    ticks(db, [census], NINE)
    ask(db)

    async def race():
        await asyncio.gather(*(tick_at(db, [census], NINE + MINUTE) for _ in range(4)))

    run(race())
    assert census.action.at == [NINE + MINUTE]


def test_asked_for_while_due_it_is_the_due_run_recorded_as_by_hand(db):
    census = every(15)
    ticks(db, [census], NINE)
    ask(db, at=NINE + 14 * MINUTE)
    ticks(db, [census], NINE + 15 * MINUTE, NINE + 16 * MINUTE)
    assert census.action.at == [NINE + 15 * MINUTE]
    assert [r["by_hand"] for r in runs(db)] == ["ada"]
    assert state(db).due_at == NINE + 30 * MINUTE


def test_a_run_asked_for_while_the_schedule_runs_waits_for_the_lease(db):
    slow = Blocking()
    census = Schedule("census", Every(10 * MINUTE), slow)
    ticks(db, [census], NINE)

    async def asked_while_running():
        running = asyncio.create_task(tick_at(db, [census], NINE + 10 * MINUTE))
        while not slow.made:
            await asyncio.sleep(0)
        await db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada'",
                     (NINE + 10 * MINUTE,))
        held = await tick_at(db, [census], NINE + 11 * MINUTE)
        slow.release.set()
        await running
        return held, await tick_at(db, [census], NINE + 12 * MINUTE)

    held, after = run(asyncio.wait_for(asked_while_running(), timeout=10))
    assert (held.runs, [r.schedule for r in after.runs]) == ([], ["census"])
    assert [r["by_hand"] for r in runs(db)] == [None, "ada"]


def test_a_paused_schedule_asked_for_by_hand_runs_once_it_is_resumed(db):
    census = every(15)
    ticks(db, [census], NINE)
    run(db.all("UPDATE tickwork_schedules SET paused = 1"))
    ask(db)
    ticks(db, [census], NINE + MINUTE)
    assert census.action.at == []
    run(db.all("UPDATE tickwork_schedules SET paused = 0"))
    ticks(db, [census], NINE + 2 * MINUTE)
    assert census.action.at == [NINE + 2 * MINUTE]


def test_a_one_off_moment_run_by_hand_before_its_moment_is_made_once(db):
    from test_schedules_handed_over import MADE, handed, send_statement

    MADE.clear()
    id = run(handed(db, NINE).once(send_statement, {"order": 1}, NINE + 60 * MINUTE))
    ask(db, name=id)
    ticks(db, [], NINE + MINUTE, NINE + 61 * MINUTE)
    assert [m["at"] for m in MADE] == [NINE + 60 * MINUTE]


def test_a_tick_that_read_the_request_before_another_made_the_run_makes_no_second_run(db):
    from faults import Meanwhile, at

    census = every(15)
    ticks(db, [census], NINE)
    ask(db)

    async def another_tick_claims_runs_and_ends():
        await tick_at(db, [census], NINE + MINUTE)

    late = Meanwhile(db, at("claim"), another_tick_claims_runs_and_ends)
    ticks(late, [census], NINE + MINUTE)
    assert late.happened
    assert census.action.at == [NINE + MINUTE]
    assert [r["by_hand"] for r in runs(db)] == ["ada"]


def test_a_due_run_whose_request_another_tick_answered_meanwhile_is_still_made_by_the_next_tick(db):
    from faults import Meanwhile, at

    census = every(15)
    ticks(db, [census], NINE)
    ask(db)

    async def a_tick_before_the_due_time_makes_the_run_by_hand():
        await tick_at(db, [census], NINE + 14 * MINUTE)

    late = Meanwhile(db, at("claim"), a_tick_before_the_due_time_makes_the_run_by_hand)
    ticks(late, [census], NINE + 15 * MINUTE)
    ticks(db, [census], NINE + 16 * MINUTE)
    assert census.action.at == [NINE + 14 * MINUTE, NINE + 16 * MINUTE]
    assert [r["by_hand"] for r in runs(db)] == ["ada", None]
    assert state(db).due_at == NINE + 30 * MINUTE


def test_a_request_whose_due_run_another_calendar_of_the_action_made_is_still_run_by_hand(db):
    from helpers import Inputs, calendar

    shared = Inputs()
    entries = [calendar("0 10 * * *", name=name, action=shared) for name in ("a", "b")]
    ticks(db, entries, NINE)
    for name in ("a", "b"):  # whichever loses the moment to the other, its request is run
        ask(db, name=name, at=NINE + 59 * MINUTE)
    ticks(db, entries, NINE + 60 * MINUTE, NINE + 61 * MINUTE)
    records = [(r["outcome"], r["by_hand"]) for name in ("a", "b") for r in runs(db, name)]
    assert sorted(records, key=str) == sorted([(Outcome.SKIPPED, None), (Outcome.SUCCEEDED, "ada"),
                                               (Outcome.SUCCEEDED, "ada")], key=str)
    assert len(shared.made) == 2
    assert [state(db, name).run_requested_at for name in ("a", "b")] == [None, None]


def test_a_request_of_a_schedule_cancelled_before_its_run_costs_later_ticks_nothing(db):
    from test_schedules_handed_over import handed, send_statement

    census = every(15)
    ticks(db, [census], NINE)
    id = run(handed(db, NINE).every(send_statement, {"order": 1}, "1h"))
    ask(db, name=id)
    assert run(handed(db, NINE).cancel(id)) is True  # before any tick made the run
    ticks(db, [census], NINE + MINUTE)
    run(db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (NINE + 2 * MINUTE,)))
    before = db.statements_run
    [report] = ticks(db, [census], NINE + 2 * MINUTE)
    assert (db.statements_run - before, report.runs) == (2, [])


def test_a_request_of_a_schedule_cancelled_before_its_run_is_not_owed_when_it_is_handed_over_again(db):
    from test_schedules_handed_over import handed, send_statement

    id = run(handed(db, NINE).every(send_statement, {"order": 1}, "1h"))
    ask(db, name=id)
    run(handed(db, NINE).cancel(id))
    assert run(handed(db, NINE + MINUTE).every(send_statement, {"order": 1}, "1h")) == id
    ticks(db, [], NINE + 2 * MINUTE)
    assert runs(db, id) == [] and state(db, id).run_requested_at is None


def test_an_interval_handed_over_run_by_hand_is_for_its_latest_slot(db):
    from test_schedules_handed_over import MADE, handed, send_statement

    MADE.clear()
    id = run(handed(db, NINE).every(send_statement, {"order": 1}, 15 * MINUTE))
    ticks(db, [], NINE + 15 * MINUTE)
    ask(db, name=id)
    ticks(db, [], NINE + 22 * MINUTE)
    assert [(m["at"], m["now"]) for m in MADE] == [(NINE + 15 * MINUTE, NINE + 15 * MINUTE),
                                                  (NINE + 15 * MINUTE, NINE + 22 * MINUTE)]
    assert state(db, id).due_at == NINE + 30 * MINUTE


# Found in the review of issues 8 and 9 (tests/test_defects_found_in_review.py, split by rule).


def test_a_calendar_run_by_hand_makes_no_second_call_for_one_at(db):
    from helpers import calendar

    hourly = calendar("0 * * * *", name="hourly")
    ticks(db, [hourly], NINE + 30_000)
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada'", (NINE + 10 * MINUTE,)))
    ticks(db, [hourly], NINE + 11 * MINUTE, NINE + 60 * MINUTE)
    ats = hourly.action.at
    assert len(ats) == len(set(ats)) == 2
    assert all(at is None or at <= made["now"] for at, made in zip(ats, hourly.action.made))
