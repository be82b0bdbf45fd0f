"""How many D1 statements one tick makes, with 10 schedules (a batch counts each statement)."""

from helpers import every, ticks

from tickwork.times import utc

SCHEDULES = [every(15, "quarterly")] + [every(60, f"hourly_{n}") for n in range(9)]


def statements(db, moment):
    before = db.statements_run
    [report] = ticks(db, SCHEDULES, moment)
    return db.statements_run - before, len(report.runs)


# A tick's first batch marks the app's tick and reads (and marks) the schedules' rows.
FIRST_READ = 2


def test_the_first_tick_reads_all_rows_in_one_batch_and_seeds_them_in_one_more_statement(db):
    assert statements(db, utc("2026-03-02 09:00")) == (FIRST_READ + 1, 0)


def test_a_tick_with_none_due_makes_two_statements_in_one_batch(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    assert statements(db, utc("2026-03-02 09:14")) == (FIRST_READ, 0)


def test_a_tick_with_one_due_makes_six_statements(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    # the first read; lease + run record (one batch); end record + lease back (one batch)
    assert statements(db, utc("2026-03-02 09:15")) == (FIRST_READ + 2 + 2, 1)


def test_a_tick_with_all_ten_due_makes_forty_two_statements(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    assert statements(db, utc("2026-03-02 10:00")) == (FIRST_READ + 10 * 4, 10)
