"""Schedules document, "When runs happen": the grid, missed ticks, restarts, a changed `every:`."""

from helpers import Calls, every, last_tick, open_store, run, runs, state, ticks

from tickwork import Schedule
from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.grid import Every
from tickwork.model import Outcome
from tickwork.times import DAY, utc


def test_the_first_run_is_due_one_every_after_the_first_tick_that_sees_the_schedule(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:07"))
    assert state(db).first_tick == utc("2026-03-02 09:07")
    assert state(db).due_at == utc("2026-03-02 09:22")
    assert census.action.at == []


def test_a_tick_before_the_due_time_runs_nothing(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"), utc("2026-03-02 09:14"))
    assert census.action.at == []
    assert runs(db) == []


def test_a_tick_at_the_due_time_runs_the_schedule_once_and_moves_due_one_interval(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"))
    assert census.action.at == [utc("2026-03-02 09:15")]
    assert state(db).due_at == utc("2026-03-02 09:30")


def test_the_grid_is_counted_from_the_first_tick_not_from_when_runs_happen(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"), utc("2026-03-02 09:17"), utc("2026-03-02 09:30"))
    assert census.action.at == [utc("2026-03-02 09:17"), utc("2026-03-02 09:30")]


def test_missed_ticks_become_one_run_and_due_moves_to_the_first_grid_time_after_the_tick(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"), utc("2026-03-02 10:08"))
    assert census.action.at == [utc("2026-03-02 10:08")]
    [record] = runs(db)
    assert record["due_at"] == utc("2026-03-02 09:15")
    assert state(db).due_at == utc("2026-03-02 10:15")


def test_a_tick_just_past_a_grid_time_moves_due_past_it(db):
    census = every(15)
    ticks(db, [census], utc("2026-03-02 09:00"), utc("2026-03-02 09:30"))
    assert census.action.at == [utc("2026-03-02 09:30")]
    assert state(db).due_at == utc("2026-03-02 09:45")


def test_a_restart_neither_moves_the_grid_nor_adds_a_run(tmp_path):
    path = tmp_path / "d1.sqlite"
    before = open_store(path)
    ticks(before, [every(15)], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"))
    before.close()

    after_restart = SQLiteDatabase(path)
    census = every(15)
    ticks(after_restart, [census], utc("2026-03-02 09:21"), utc("2026-03-02 09:30"))
    assert census.action.at == [utc("2026-03-02 09:30")]
    assert [r["due_at"] for r in runs(after_restart)] == [
        utc("2026-03-02 09:15"),
        utc("2026-03-02 09:30"),
    ]


def test_a_shorter_every_takes_effect_one_new_interval_after_the_tick(db):
    ticks(db, [every(60)], utc("2026-03-02 09:00"))  # due 10:00
    census = every(5)
    ticks(db, [census], utc("2026-03-02 09:20"))
    assert state(db).every == 5 * 60_000
    assert state(db).due_at == utc("2026-03-02 09:25")
    ticks(db, [census], utc("2026-03-02 09:25"), utc("2026-03-02 09:30"))
    assert census.action.at == [utc("2026-03-02 09:25"), utc("2026-03-02 09:30")]


def test_a_longer_every_takes_effect_from_the_due_time_already_kept(db):
    ticks(db, [every(15)], utc("2026-03-02 09:00"))  # due 09:15
    census = every(60)
    ticks(db, [census], utc("2026-03-02 09:05"))
    assert state(db).due_at == utc("2026-03-02 09:15")
    ticks(db, [census], utc("2026-03-02 09:15"), utc("2026-03-02 09:30"), utc("2026-03-02 10:15"))
    assert census.action.at == [utc("2026-03-02 09:15"), utc("2026-03-02 10:15")]


def test_an_every_changed_while_a_run_was_missed_runs_at_once(db):
    ticks(db, [every(15)], utc("2026-03-02 09:00"))  # due 09:15, never reached
    census = every(60)
    ticks(db, [census], utc("2026-03-02 11:02"))
    assert census.action.at == [utc("2026-03-02 11:02")]
    assert state(db).due_at == utc("2026-03-02 11:15")  # on the grid 09:15 + k hours


def test_the_last_tick_that_reached_a_declared_schedule_is_the_apps_last_tick(db):
    ticks(db, [every(15)], utc("2026-03-02 09:00"), utc("2026-03-02 09:01"), utc("2026-03-02 09:02"))
    assert last_tick(db) == utc("2026-03-02 09:02")


def test_a_tick_with_nothing_due_writes_only_the_apps_row(db):
    ticks(db, [every(15)], utc("2026-03-02 09:00"))
    before = run(db.all("SELECT * FROM tickwork_schedules"))
    ticks(db, [every(15)], utc("2026-03-02 09:01"))
    assert run(db.all("SELECT * FROM tickwork_schedules")) == before


def test_a_schedule_no_longer_declared_keeps_its_row_and_the_last_tick_that_reached_it(db):
    ticks(db, [every(15, "census"), every(15, "tidy")], utc("2026-03-02 09:00"), utc("2026-03-02 09:10"))
    ticks(db, [every(15, "tidy")], utc("2026-03-02 09:30"), utc("2026-03-02 09:31"))
    assert last_tick(db, "census") == utc("2026-03-02 09:10")
    assert (state(db, "census").removed_at, state(db, "census").due_at) == (
        utc("2026-03-02 09:30"), utc("2026-03-02 09:15"))
    assert runs(db, "census") == []
    assert [r["outcome"] for r in runs(db, "tidy")] == [Outcome.SUCCEEDED]


def test_the_grid_is_utc_milliseconds_so_a_daily_schedule_keeps_its_time_of_day(db):
    daily = Calls()
    schedule = Schedule("census", Every(DAY), daily)
    ticks(db, [schedule], utc("2026-03-28 09:00"), utc("2026-03-29 09:00"), utc("2026-03-30 09:00"))
    assert daily.at == [utc("2026-03-29 09:00"), utc("2026-03-30 09:00")]
