"""D1 bills every row written, each index entry written with it included (issue 15): a due run's
statements write the b-trees they must and no other. Which b-trees a statement writes is what
SQLite's program for it opens for writing (`EXPLAIN`), the same on D1; the counts D1 bills are
measured on the host by scripts/bench/rows_in_host.mjs."""

import re

from helpers import every, migrate_from, migrated_before, open_store, run, runs, state, ticks

from tickwork import housekeeping_store, operator_store
from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.console import console_store
from tickwork import alerts_store
from tickwork.schedule_store import FAIL_EXPIRED_RUNS, HEALTH, MARK_TICK, SCHEDULE_LAPSED_RETRIES, SELECT_RUNS
from tickwork.schedule_store import RECORD_ENDS, RECORD_STARTS, SKIP, SKIP_ENDING, TAKE_LEASES, TAKE_LEASES_ENDING
from tickwork.times import DAY, MINUTE, utc

NINE = utc("2026-03-02 09:00")


def unbound(sql: str) -> tuple:
    return (None,) * max([int(n) for n in re.findall(r"\?(\d+)", sql)] or [0])


def written(db: SQLiteDatabase, sql: str) -> set[str]:
    """The tables and indexes `sql` may write."""
    conn = db._conn
    names = {page: name for name, page in conn.execute("SELECT name, rootpage FROM sqlite_master WHERE rootpage > 0")}
    return {names[op[3]] for op in conn.execute("EXPLAIN " + sql, unbound(sql)) if op[1] == "OpenWrite"}


def test_a_run_record_is_written_to_its_table_and_the_indexes_by_schedule_and_by_tick_only():
    # The index by tick is opened, but takes an entry only for ids of no tick's form (migration 0017);
    # the index of the last occurrence covered, only for records covering several (migration 0020);
    # the index of failed runs, only for a record that failed (migration 0024): a start is `running`;
    # the index of runs going beside, only for an allowed run's record, on its own lease (0030).
    assert written(open_store(), RECORD_STARTS) == {"tickwork_runs", "tickwork_runs_by_schedule", "tickwork_runs_by_tick",
                                                    "tickwork_runs_by_last_covered", "tickwork_runs_failed",
                                                    "tickwork_runs_beside"}


def entries(db: SQLiteDatabase, index: str) -> int:
    """The entries `index` holds, counted in its b-tree's leaves (SQLite's dbstat)."""
    [(count,)] = db._conn.execute(
        "SELECT IFNULL(SUM(ncell), 0) FROM dbstat WHERE name = ?1 AND pagetype = 'leaf'", (index,)).fetchall()
    return count


def test_a_ticks_run_records_take_no_entry_in_the_index_by_tick_their_ids_keep_them_in_tick_order():
    db = open_store()
    census = every(15)
    ticks(db, [census], *(NINE + minutes * MINUTE for minutes in (0, 15, 30, 45)))
    made = run(db.all("SELECT id, tick_at FROM tickwork_runs ORDER BY id"))
    assert [r["tick_at"] for r in made] == [NINE + minutes * MINUTE for minutes in (15, 30, 45)]
    assert entries(db, "tickwork_runs_by_tick") == 0 and entries(db, "tickwork_runs_by_schedule") == 3
    assert entries(db, "tickwork_runs_by_last_covered") == 0 and entries(db, "tickwork_runs_beside") == 0


def test_run_records_made_before_migration_0017_stay_in_the_index_by_tick_and_go_30_days_old():
    db = migrated_before("0017")
    db._conn.execute(OLD_RECORD, (NINE,))
    migrate_from(db, "0017")
    rows = run(db.all("SELECT id FROM tickwork_runs INDEXED BY tickwork_runs_by_tick WHERE id < 'z' AND tick_at <= ?1",
                      (NINE,)))
    assert [r["id"] for r in rows] == ["old-run"]
    run(db.all(housekeeping_store.RUNS, (NINE + 30 * DAY,)))
    assert runs(db) == []


def test_a_run_end_writes_its_record_alone_and_gives_the_lease_back_with_no_write_of_the_state_row():
    # The index of failed runs is opened, but takes an entry only for a run that failed (migration 0024);
    # that of runs going beside loses one only where an allowed run's record held its own lease (0030).
    db = open_store()
    assert written(db, RECORD_ENDS) == {"tickwork_runs", "tickwork_runs_failed", "tickwork_runs_beside"}


def test_a_lease_writes_the_state_row_and_its_entry_in_the_index_of_due_times_not_an_index_of_leases():
    db = open_store()
    indexes = {name for (name,) in db._conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "tickwork_schedules_by_lease" not in indexes
    # The indexes of keyed rows (by key and lease, by due time) are opened, but take an entry only
    # for a row naming a key (migration 0029): a lease of a row without one writes none.
    assert written(db, TAKE_LEASES) - {"tickwork_schedules_by_hand"} == {
        "tickwork_schedules", "tickwork_schedules_by_due", "tickwork_schedules_by_concurrency",
        "tickwork_schedules_keyed_by_due"}
    ticks(db, [every(15)], NINE, NINE + 15 * MINUTE)
    assert len(runs(db)) == 1 and entries(db, "tickwork_schedules_by_concurrency") == 0


def test_a_lease_is_given_back_by_its_runs_end_and_a_run_after_takes_it():
    db = open_store()
    census = every(15)
    ticks(db, [census], *(NINE + minutes * MINUTE for minutes in (0, 15, 30)))
    [first, second] = runs(db)
    row = run(db.all("SELECT lease_run FROM tickwork_schedules WHERE name = 'census'"))[0]
    assert row["lease_run"] == second["id"] and first["outcome"] == second["outcome"] == "succeeded"
    assert state(db).lease_run is None  # its record ended: no lease held


def test_a_lease_that_ends_no_schedule_leaves_the_indexes_of_declared_and_ended_rows_alone():
    db = open_store()
    assert not written(db, TAKE_LEASES) & {"tickwork_schedules_declared", "tickwork_schedules_ended"}
    assert {"tickwork_schedules_declared", "tickwork_schedules_ended"} <= written(db, TAKE_LEASES_ENDING)


def test_a_skip_that_ends_no_schedule_leaves_the_indexes_of_declared_and_ended_rows_alone():
    db = open_store()
    assert not written(db, SKIP) & {"tickwork_schedules_declared", "tickwork_schedules_ended"}
    assert {"tickwork_schedules_declared", "tickwork_schedules_ended"} <= written(db, SKIP_ENDING)


OLD_RECORD = """
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, code, kind, detail,
    at, n, i, dst, by_hand, items, batches, trace, events)
VALUES ('old-run', 'census', ?1, ?1, ?1, ?1 + 5, 'failed', 'boom', 'raised', 'it said so',
    ?1, 2, 1, 'shift', 'ada', 7, '[7]', 'trace-1', '{"e": 1}')
"""


def test_run_records_made_before_migration_0012_are_kept_whole_and_read_by_schedule():
    db = migrated_before("0012")
    db._conn.execute(OLD_RECORD, (NINE,))
    before = runs(db)
    migrate_from(db, "0012")
    kept = [{column: run[column] for column in before[0]} for run in runs(db)]  # later migrations add columns
    assert kept == before and before[0]["detail"] == "it said so"
    census = every(15)
    ticks(db, [census], *(NINE + minutes * MINUTE for minutes in (14, 30, 45)))
    assert census.action.at and [r["id"] for r in runs(db)][0] == "old-run"
    assert [r["outcome"] for r in runs(db)[1:]] == ["succeeded"] * len(census.action.at)


def scans_of_runs(conn, sql: str) -> list[str]:
    plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, unbound(sql))]
    return [step for step in plan if re.match(r"SCAN (tickwork_runs|r)\b", step)]


def test_what_reads_run_records_reads_them_through_an_index_after_migration_0012():
    conn = open_store()._conn
    readers = [housekeeping_store.RUNS, SELECT_RUNS, HEALTH, FAIL_EXPIRED_RUNS, operator_store.SELECT_HISTORY,
               operator_store.SELECT_LAST_RUN, operator_store.SELECT_LEASE_RUN, operator_store.SELECT_SCHEDULES_PAGE]
    for sql in readers:
        assert not scans_of_runs(conn, sql), sql


def test_what_reads_run_records_by_their_tick_reads_a_ticks_ids_along_the_primary_key_after_migration_0017():
    conn = open_store()._conn
    for sql in [operator_store.SELECT_RECENT_RUNS, console_store.RUN_COUNTS, console_store.FAILED_SINCE,
                housekeeping_store.RUNS]:
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, unbound(sql))]
        assert any("USING PRIMARY KEY (id>?" in step for step in plan), (sql, plan)
        assert any("USING INDEX tickwork_runs_by_tick" in step for step in plan), (sql, plan)
        assert not scans_of_runs(conn, sql), sql


def test_what_finds_lapsed_leases_reads_the_run_records_of_a_window_of_ticks_along_their_key_and_scans_nothing():
    conn = open_store()._conn
    lapsed = [MARK_TICK, FAIL_EXPIRED_RUNS, SCHEDULE_LAPSED_RETRIES, alerts_store.MARK_LAPSED,
              alerts_store.RECORD_LAPSED, alerts_store.RECORD_LAPSED_DELIVERIES]
    for sql in lapsed:
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, unbound(sql))]
        assert any("USING PRIMARY KEY (id>? AND id<?)" in step for step in plan), (sql, plan)
        assert not [step for step in plan if re.match(r"SCAN (tickwork_(runs|schedules)|r|s)\b", step)], (sql, plan)
