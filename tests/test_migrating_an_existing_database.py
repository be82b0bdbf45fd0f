"""A D1 database written by the tick of migrations 0001 to 0003 (every declared row marked at each
tick) keeps its grids, owes no run more or less, and knows which schedules were removed."""

from helpers import MIGRATIONS, calendar, every, last_tick, migrate_from, migrated_before, run, runs, state, ticks

from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.times import utc

BEFORE = ["0001_schedules.sql", "0002_calendars_and_pulses.sql", "0003_moments_and_skips.sql"]

# As the earlier tick left it at 09:10: census (every 15 min) due 09:15 and tidy (every hour)
# due 10:00 reached by that tick; weekly, a calendar, last reached at 08:00 and removed since.
ROWS = """
INSERT INTO tickwork_schedules (name, every_ms, due_at, first_tick, last_tick, prev_tick, form) VALUES
  ('census', 900000, {census_due}, {first}, {tick}, {prev}, 'every 900000'),
  ('tidy', 3600000, {tidy_due}, {first}, {tick}, {prev}, NULL),
  ('weekly', 0, {weekly_due}, {first}, {gone}, {gone}, 'calendar 0 9 * * 1 | UTC | nonexistent=shift repeated=first');
"""


def migrated():
    db = SQLiteDatabase()
    for name in BEFORE:
        db._conn.executescript((MIGRATIONS / name).read_text())
    db._conn.executescript(ROWS.format(
        census_due=utc("2026-03-02 09:15"), tidy_due=utc("2026-03-02 10:00"), weekly_due=utc("2026-03-02 09:00"),
        first=utc("2026-03-02 07:00"), tick=utc("2026-03-02 09:10"), prev=utc("2026-03-02 09:09"),
        gone=utc("2026-03-02 08:00"),
    ))
    for script in sorted(MIGRATIONS.glob("*.sql")):
        if script.name not in BEFORE:
            db._conn.executescript(script.read_text())
    return db


def test_grids_are_kept_and_each_due_time_runs_once():
    db = migrated()
    census, tidy = every(15, "census"), every(60, "tidy")
    ticks(db, [census, tidy], utc("2026-03-02 09:11"), utc("2026-03-02 09:15"), utc("2026-03-02 10:00"))
    assert census.action.at == [utc("2026-03-02 09:15"), utc("2026-03-02 10:00")]
    assert tidy.action.at == [utc("2026-03-02 10:00")]
    assert state(db, "census").due_at == utc("2026-03-02 10:15")


def test_a_nothing_due_tick_after_the_migration_changes_no_due_time():
    db = migrated()
    ticks(db, [every(15, "census"), every(60, "tidy")], utc("2026-03-02 09:11"))
    assert [state(db, name).due_at for name in ("census", "tidy")] == [
        utc("2026-03-02 09:15"), utc("2026-03-02 10:00")]
    assert runs(db, "census") == [] and runs(db, "tidy") == []


def test_a_calendar_removed_before_the_migration_is_known_as_removed_and_owes_nothing_when_back():
    db = migrated()
    assert state(db, "weekly").removed_at == utc("2026-03-02 08:00")
    assert last_tick(db, "weekly") == utc("2026-03-02 08:00")
    weekly = calendar("0 9 * * 1", name="weekly")
    ticks(db, [weekly], utc("2026-03-02 09:11"))
    assert weekly.action.made == []  # what it missed while gone is recorded (issue 17), not made
    assert [(r["outcome"], r["code"], r["at"]) for r in runs(db, "weekly")] == [
        ("skipped", "undeclared", utc("2026-03-02 09:00"))]
    assert state(db, "weekly").due_at == utc("2026-03-09 09:00")


# As a tick before migration 0017 left it at 09:15: census's run of 09:15 under way (an id of no
# tick's form), its lease outlasting its next due time, and a record of 31 days before.
HELD = """
INSERT INTO tickwork_schedules (name, every_ms, form, due_at, first_tick, last_tick, lease_run, lease_until)
VALUES ('census', 900000, 'every 900000', {next_due}, {first}, {tick}, '{run}', {until});
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, outcome)
VALUES ('{run}', 'census', {tick}, {tick}, {tick}, 'running'),
       ('{old}', 'census', {month}, {month}, {month}, 'succeeded');
UPDATE tickwork_app SET last_tick = {tick};
"""
RUN, OLD = "7f3a" * 8, "0c1d" * 8


def migrated_holding_a_lease():
    db = migrated_before("0017")
    db._conn.executescript(HELD.format(
        next_due=utc("2026-03-02 09:30"), first=utc("2026-03-01 09:00"), tick=utc("2026-03-02 09:15"),
        until=utc("2026-03-02 09:40"), run=RUN, old=OLD, month=utc("2026-01-30 09:15")))
    return migrate_from(db, "0017")


def test_a_lease_held_across_migration_0017_is_recorded_lease_expired_at_the_first_tick_after_it_lapses():
    db = migrated_holding_a_lease()
    census = every(15, "census")
    ticks(db, [census], utc("2026-03-02 09:30"), utc("2026-03-02 09:39"))
    assert [r["outcome"] for r in runs(db, "census") if r["id"] == RUN] == ["running"]
    ticks(db, [census], utc("2026-03-02 09:41"))
    [lost] = [r for r in runs(db, "census") if r["id"] == RUN]
    assert (lost["outcome"], lost["code"], lost["ended_at"]) == ("failed", "lease_expired", utc("2026-03-02 09:41"))


def test_a_record_from_before_migration_0017_goes_30_days_old_and_the_younger_stay_beside_those_made_after_it():
    db = migrated_holding_a_lease()
    ticks(db, [every(15, "census")], utc("2026-03-02 09:41"))  # with the hour's housekeeping
    ids = [r["id"] for r in runs(db, "census")]
    assert OLD not in ids and RUN in ids and len([id for id in ids if id.startswith("z")]) == 1
