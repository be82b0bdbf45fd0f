"""How many D1 statements, and round trips, one tick makes with 10 schedules (a batch counts
each statement, and is one round trip)."""

from helpers import every, ticks

from tickwork.times import utc

SCHEDULES = [every(15, "quarterly")] + [every(60, f"hourly_{n}") for n in range(9)]

# A tick's first batch marks the app's tick and reads the rows due.
FIRST_READ = 2


def cost(db, moment, schedules=SCHEDULES):
    statements, round_trips = db.statements_run, db.round_trips
    [report] = ticks(db, schedules, moment)
    return db.statements_run - statements, db.round_trips - round_trips, len(report.runs)


def test_a_tick_with_none_due_makes_two_statements_in_one_round_trip(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    assert cost(db, utc("2026-03-02 09:14")) == (FIRST_READ, 1, 0)


def test_a_tick_with_one_due_makes_six_statements(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    # the first read; lease + run record (one batch); end record + lease back (one batch)
    assert cost(db, utc("2026-03-02 09:15")) == (FIRST_READ + 2 + 2, 3, 1)


def test_a_tick_with_all_ten_due_makes_forty_two_statements(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    assert cost(db, utc("2026-03-02 10:00")) == (FIRST_READ + 10 * 4, 1 + 10 * 2, 10)


def test_a_tick_after_a_deploy_changed_the_declared_set_reconciles_in_three_more_round_trips(db):
    # the first read; the declared rows read and the others marked removed; the new rows seeded
    # and the set sealed; the due rows read again
    assert cost(db, utc("2026-03-02 09:00")) == (FIRST_READ + 2 + 2 + 1, 4, 0)
    assert cost(db, utc("2026-03-02 09:01"), SCHEDULES[:5] + [every(5, "new")]) == (
        FIRST_READ + 2 + 2 + 1, 4, 0)
    assert cost(db, utc("2026-03-02 09:02"), SCHEDULES[:5] + [every(5, "new")]) == (FIRST_READ, 1, 0)
