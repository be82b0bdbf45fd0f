"""A store tickwork 0.1.0 wrote (tests/fixtures/release_0_1_0.sql, kept as written, as Temporal
keeps replay files) ticks on with the code of today: no error, the runs due made once, the pending
retry made, the operator's backfill made, the deliveries waiting sent, the run under way left to
its lease and then ended once, and nothing the store held lost. Every commit after the release
is checked against a store the release made, not one its own code made."""

from pathlib import Path

import pytest
from fixtures import release_app as app
from helpers import run

from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.schedule_store import ScheduleStore, out_of_date
from tickwork.times import MINUTE, utc

KEPT = Path(__file__).parent / "fixtures" / "release_0_1_0.sql"
MIGRATIONS = Path(__file__).parents[1] / "migrations"
RELEASED_AT = 23  # the release's last tickwork migration; the app's own (0100 on) it had applied
LAPSED = utc("2026-03-02 09:20")  # the 09:01 run's lease lasted to 09:16


def kept_store(deployed: bool) -> SQLiteDatabase:
    """The store as the release left it; `deployed`: with the tickwork migrations after the
    release applied, as a deploy of today's tickwork applies them before its first tick."""
    db = SQLiteDatabase()
    db._conn.executescript(KEPT.read_text())
    for script in sorted(MIGRATIONS.glob("*.sql")) if deployed else ():
        if RELEASED_AT < int(script.name[:4]) < 100:
            db._conn.executescript(script.read_text())
    return db


@pytest.fixture
def kept():
    db = kept_store(deployed=False)
    yield db
    db.close()


@pytest.fixture
def store():
    db = kept_store(deployed=True)
    app.MADE.clear()
    app.STILL_RUNNING = None
    yield db
    db.close()


def ticked(db, now, queue=None):
    return run(app.ticked(db, now, queue or app.Queue()))


def rows(db, sql, *params):
    return run(db.all(sql, params))


def made_at(db, now):
    return sorted((r["schedule"], r["due_at"], r["outcome"], r["attempt"], r["backfill"])
                  for r in rows(db, "SELECT * FROM tickwork_runs WHERE tick_at = ?1", now))


def test_the_kept_store_is_of_this_release_schema_with_every_kind_of_row_in_it(kept):
    store = kept
    assert rows(store, "SELECT schema_version FROM tickwork_app") == [{"schema_version": RELEASED_AT}]
    kinds = {r["kind"] for r in rows(store, "SELECT substr(form, 1, instr(form, ' ') - 1) AS kind "
                                            "FROM tickwork_schedules")}
    assert kinds == {"every", "calendar", "pulse", "once"}
    assert rows(store, "SELECT DISTINCT outcome FROM tickwork_runs ORDER BY outcome") == [
        {"outcome": "failed"}, {"outcome": "running"}, {"outcome": "succeeded"}]
    assert rows(store, "SELECT COUNT(*) AS n FROM tickwork_schedules WHERE retry_attempt IS NOT NULL") == [{"n": 1}]
    assert rows(store, "SELECT state FROM tickwork_backfills") == [{"state": "pending"}]
    assert rows(store, "SELECT COUNT(*) AS n FROM tickwork_gaps") == [{"n": 1}]
    states = {r["state"] for r in rows(store, "SELECT state FROM tickwork_deliveries")}
    assert states == {"succeeded", "outcome_unknown"}


def test_the_worker_of_today_takes_the_kept_store_once_the_migrations_after_the_release_are_applied(store):
    # The Worker reads the store's schema before its first tick and refuses every tick of a store
    # behind it (invocation.schema_current), which tick() alone never reads: the kept store is
    # behind once a later migration raises SCHEMA, and current with the migrations a deploy applies.
    assert out_of_date(run(ScheduleStore(store).schema())) is None


def test_a_tick_on_the_kept_store_makes_the_due_runs_the_retry_and_the_backfill_without_error(store):
    queue = app.Queue()
    waiting = {r["id"] for r in rows(store, "SELECT id FROM tickwork_deliveries WHERE state = 'outcome_unknown'")}

    report = ticked(store, app.RETRY_DUE, queue)

    assert [r for r in report.runs if r.outcome not in ("succeeded", "skipped")] == []
    assert made_at(store, app.RETRY_DUE) == [
        ("report", utc("2026-03-02 09:00"), "succeeded", 2, None),  # the pending retry, for 09:00
        ("sweep", utc("2026-03-02 08:10"), "succeeded", None, "ana"),  # the backfill the operator asked for
        ("sweep", utc("2026-03-02 08:15"), "succeeded", None, "ana"),
        ("sweep", utc("2026-03-02 09:05"), "succeeded", 1, None),
    ]
    assert ("report", utc("2026-03-02 09:00"), None) in app.MADE
    assert rows(store, "SELECT state, made FROM tickwork_backfills") == [{"state": "done", "made": 2}]
    assert {r["state"] for r in rows(store, "SELECT state FROM tickwork_deliveries")} == {"succeeded"}
    assert len(waiting) == 2 and waiting <= {sent["delivery"] for sent in queue.sent}  # an event and an alert


def test_a_second_tick_at_the_same_time_makes_nothing_again(store):
    ticked(store, app.RETRY_DUE)
    before = rows(store, "SELECT COUNT(*) AS n FROM tickwork_runs")

    again = ticked(store, app.RETRY_DUE)

    assert again.runs == [] and rows(store, "SELECT COUNT(*) AS n FROM tickwork_runs") == before


def test_the_run_under_way_keeps_its_lease_and_once_it_lapses_is_ended_once(store):
    [under_way] = rows(store, "SELECT id, schedule FROM tickwork_runs WHERE outcome = 'running'")

    ticked(store, app.RETRY_DUE)
    assert rows(store, "SELECT outcome FROM tickwork_runs WHERE id = ?1", under_way["id"]) == [{"outcome": "running"}]
    ticked(store, LAPSED)
    ticked(store, LAPSED + MINUTE)

    assert rows(store, "SELECT outcome, code FROM tickwork_runs WHERE schedule = ?1", under_way["schedule"]) == [
        {"outcome": "failed", "code": "lease_expired"}]
    assert ("remind", app.COPIED, {"customer": "c3"}) not in app.MADE  # a one-off moment is not made twice


def test_nothing_the_kept_store_held_is_lost_by_ticking_it(store):
    kept = {table: rows(store, f"SELECT * FROM {table}")
            for table in ("tickwork_schedules", "tickwork_runs", "tickwork_gaps")}

    for now in (app.RETRY_DUE, LAPSED, utc("2026-03-02 10:00")):
        ticked(store, now)

    names = {r["name"] for r in rows(store, "SELECT name FROM tickwork_schedules")}
    assert {r["name"] for r in kept["tickwork_schedules"]} <= names
    after = {r["id"]: r for r in rows(store, "SELECT * FROM tickwork_runs")}
    assert [r for r in kept["tickwork_runs"] if r["outcome"] != "running" and after.get(r["id"]) != r] == []
    gaps = rows(store, "SELECT * FROM tickwork_gaps")
    assert [gap for gap in kept["tickwork_gaps"] if gap not in gaps] == []
    handed = rows(store, "SELECT ended, label FROM tickwork_schedules WHERE action IS NOT NULL")
    assert sorted((str(r["ended"]), str(r["label"])) for r in handed) == [
        ("None", "None"), ("None", "hourly"), ("cancelled", "None"), ("done", "None")]

