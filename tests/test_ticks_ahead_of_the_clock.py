"""Ticks by hand for a time ahead of the clock (`tickwork tick` with a time ahead): the runs they
make follow the tick's time, but every lease, housekeeping and the gaps in the ticks keep to the
invocation's clock, so nothing such a tick does holds up, ends or repeats what ticks on the clock
do, and nothing it does deletes what was just made."""

import asyncio
import time

from faults import Meanwhile, first_with
from harness import FakeQueue
from helpers import Blocking, calendar, every, migrate_from, migrated_before, open_store, run, runs, tick_at, ticks

from test_backfill import APRIL, JAN
from test_schedules_handed_over import made, send_statement  # noqa: F401

from tickwork import Schedule, event
from tickwork.grid import Every
from tickwork.housekeeping_store import FINISH
from tickwork.model import Outcome
from tickwork.outbox import Outbox
from tickwork.outbox_store import OutboxStore
from tickwork.per_item import Items
from tickwork.times import DAY, HOUR, MINUTE, utc

NINE = utc("2026-03-02 09:00")


def ask(db, name="census", at=NINE, who="ada"):
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = ?2 WHERE name = ?3",
               (at, who, name)))


def test_after_a_tick_two_hours_ahead_a_run_asked_for_by_hand_is_made_by_the_next_tick_on_the_clock(db):
    census = every(15)
    ticks(db, [census], NINE)
    ticks(db, [census], NINE + 2 * HOUR, started_at=NINE + MINUTE)  # by hand, two hours ahead
    ask(db, at=NINE + 2 * MINUTE)
    ticks(db, [census], NINE + 3 * MINUTE)
    assert census.action.at == [NINE + 2 * HOUR, NINE + 3 * MINUTE]
    assert [r["by_hand"] for r in runs(db)] == [None, "ada"]


def test_after_a_tick_two_hours_ahead_ticks_on_the_clock_make_what_falls_due(db):
    census, tidy = every(15), every(5, name="tidy")
    ticks(db, [census], NINE)
    ticks(db, [census], NINE + 2 * HOUR, started_at=NINE + MINUTE)
    ticks(db, [census, tidy], NINE + 2 * MINUTE, NINE + 7 * MINUTE, NINE + 12 * MINUTE)  # tidy declared after it
    assert tidy.action.at == [NINE + 7 * MINUTE, NINE + 12 * MINUTE]


def test_a_tick_ahead_does_not_end_a_run_still_under_its_lease_on_the_clock(db):
    slow = Blocking()
    census = Schedule("census", Every(15 * MINUTE), slow)
    ticks(db, [census], NINE - 15 * MINUTE)  # due at 09:00

    async def overlap():
        blocked = asyncio.create_task(tick_at(db, [census], NINE))
        while not slow.made:
            await asyncio.sleep(0)
        await tick_at(db, [census], NINE + 2 * HOUR, started_at=NINE + MINUTE)  # by hand, ahead
        slow.release.set()
        await blocked

    run(asyncio.wait_for(overlap(), timeout=10))
    assert [r["outcome"] for r in runs(db) if r["due_at"] == NINE] == [Outcome.SUCCEEDED]
    assert len(slow.made) == 1


def test_after_a_tick_two_hours_ahead_a_moment_handed_over_is_made_by_the_ticks_on_the_clock(db, made):
    census = every(15)
    ticks(db, [census], NINE)
    ticks(db, [census], NINE + 2 * HOUR, started_at=NINE + MINUTE)
    run(Items(db, lambda: NINE + 2 * MINUTE).once(send_statement, {"customer": "c7"}, NINE + 3 * MINUTE))
    ticks(db, [census], NINE + 3 * MINUTE)
    assert [m["at"] for m in made] == [NINE + 3 * MINUTE]


def test_after_a_tick_two_hours_ahead_a_backfill_is_made_by_the_next_tick_on_the_clock(app):
    monthly = calendar("0 0 1 * *", name="statement")
    app.tick([monthly], JAN, APRIL)
    app.tick([monthly], APRIL + 2 * HOUR, started_at=APRIL + MINUTE)  # by hand, ahead
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + 2 * MINUTE)
    app.tick([monthly], APRIL + 3 * MINUTE)
    assert monthly.action.at[-1] == utc("2026-02-01 00:00")


order_placed = event("order_placed", queue="EVENTS")


def test_two_sweeps_of_ticks_ahead_send_a_delivery_once():
    db, queue = open_store(), FakeQueue()

    async def place():
        await order_placed.emit({"order": 7})

    schedule = Schedule("place", Every(HOUR), place)
    consumed_here = Outbox(db, {"EVENTS": queue}, frozenset({"EVENTS"}), lambda: NINE + MINUTE)
    ticks(db, [schedule], NINE, started_at=NINE, outbox=consumed_here)  # due at 10:00
    ticks(db, [schedule], NINE + 2 * HOUR, NINE + 2 * HOUR, started_at=NINE + MINUTE, outbox=consumed_here)
    assert [m["body"] for m in queue.messages] == [{"order": 7}]
    [delivery] = run(OutboxStore(db).deliveries())
    assert (delivery["state"], delivery["attempts"]) == ("running", 1)  # waiting on the app's consumer


def test_housekeepings_lease_taken_by_a_tick_ahead_is_not_already_lapsed():
    db, census = open_store(), every(15)
    owners = []

    async def another_tick_ahead():
        await tick_at(db, [census], NINE + 2 * HOUR, started_at=NINE + MINUTE)
        [app] = await db.all("SELECT housekeeping_owner, housekeeping_done_at FROM tickwork_app")
        owners.append((app["housekeeping_owner"] is not None, app["housekeeping_done_at"]))

    ticks(Meanwhile(db, first_with(FINISH), another_tick_ahead), [census], NINE + 2 * HOUR, started_at=NINE)
    assert owners == [(True, None)]  # the first tick's pass still held it


def test_a_tick_a_month_ahead_keeps_the_records_just_made(db):
    census = every(15)
    ticks(db, [census], NINE, NINE + 15 * MINUTE)
    ticks(db, [census], NINE + 40 * DAY, started_at=NINE + 2 * HOUR)  # housekeeping due again on the clock
    assert [r["due_at"] for r in runs(db)] == [NINE + 15 * MINUTE, NINE + 30 * MINUTE]


def test_the_upgrade_frees_a_store_whose_lapses_a_tick_ahead_cleared_into_the_future():
    db = migrated_before("0022")
    run(db.all("UPDATE tickwork_app SET lapse_clear = ?1", (utc("2099-01-01 00:00"),)))  # as a tick ahead left it
    migrate_from(db, "0022")
    [app] = run(db.all("SELECT lapse_clear FROM tickwork_app"))
    assert app["lapse_clear"] <= time.time() * 1000  # by the clock of the upgrade, no later


def test_a_tick_ahead_and_the_ticks_on_the_clock_after_it_record_no_gap(db):
    census = every(15)
    ticks(db, [census], NINE, NINE + MINUTE)
    ticks(db, [census], NINE + 40 * DAY, started_at=NINE + MINUTE + 30_000)
    ticks(db, [census], NINE + 2 * MINUTE, NINE + 3 * MINUTE)
    assert run(db.all("SELECT from_tick, to_tick FROM tickwork_gaps")) == []


def test_ticks_on_the_clock_that_stop_after_a_tick_ahead_record_the_gap(db):
    census = every(15)
    ticks(db, [census], NINE)
    ticks(db, [census], NINE + 40 * DAY, started_at=NINE + 30_000)
    ticks(db, [census], NINE + MINUTE, NINE + 10 * MINUTE)
    assert run(db.all("SELECT from_tick, to_tick FROM tickwork_gaps")) == [
        {"from_tick": NINE + MINUTE, "to_tick": NINE + 10 * MINUTE}]


def test_the_first_tick_after_the_upgrade_finds_a_gap_by_the_ticks_times_as_before():
    census = every(15)
    db = migrated_before("0022")
    run(db.all("UPDATE tickwork_app SET last_tick = ?1", (NINE,)))  # as the release before ticked
    migrate_from(db, "0022")
    ticks(db, [census], NINE + 5 * MINUTE)
    assert run(db.all("SELECT from_tick, to_tick FROM tickwork_gaps")) == [
        {"from_tick": NINE, "to_tick": NINE + 5 * MINUTE}]


def test_a_gap_on_the_clock_is_recorded_from_the_tick_before_it_whose_invocation_began_late(db):
    census = every(15)
    ticks(db, [census], NINE, started_at=NINE + 2_000)
    ticks(db, [census], NINE + 10 * MINUTE, started_at=NINE + 10 * MINUTE + 1_000)
    assert run(db.all("SELECT from_tick, to_tick FROM tickwork_gaps")) == [
        {"from_tick": NINE, "to_tick": NINE + 10 * MINUTE}]


def test_a_tick_months_behind_the_clock_keeps_the_records_it_makes(db):
    census = every(15)
    ticks(db, [census], NINE, NINE + 15 * MINUTE, started_at=NINE + 300 * DAY)  # by hand, months behind
    run(db.all("UPDATE tickwork_app SET housekeeping_done_at = NULL"))  # a pass is due
    ticks(db, [census], NINE + 16 * MINUTE, started_at=NINE + 300 * DAY + MINUTE)
    assert [r["due_at"] for r in runs(db)] == [NINE + 15 * MINUTE]
