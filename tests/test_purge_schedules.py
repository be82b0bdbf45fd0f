"""Purge schedules (schedules document, "The purge schedule"): each run deletes an app table's
rows older than `after` at the tick's time, at most 20 batches of 500, the next hour carrying on;
the run record keeps the rows deleted and each batch's count; an unreachable store is a failed
run with `unavailable`, and what was deleted stays deleted."""

import json
from types import ModuleType, SimpleNamespace

import pytest
from faults import Faulty, at
from helpers import open_store, run, runs, ticks
from test_worker_adapter import D1Shaped

from tickwork import Schedule
from tickwork.adapters.workers import run_cron_tick, settings_of
from tickwork.app import App
from tickwork.grid import Every
from tickwork.model import Code, Outcome
from tickwork.purging import purge_action
from tickwork.times import DAY, HOUR, utc

NOW = utc("2026-06-01 12:00")


def purge_of(format="epoch_ms", after=30 * DAY, setting=None):
    return Schedule("chores_done.purge", Every(HOUR), purge_action("chores_done", "done_at", format, after, setting))


def chores(db, *moments, format="epoch_ms"):
    """Rows of a table of the app's own, its time held as `format` says."""
    run(db.all("DROP TABLE IF EXISTS chores_done"))  # the example app's, made anew for each format
    run(db.all("CREATE TABLE chores_done (id INTEGER PRIMARY KEY, done_at)"))
    shape = {"epoch_ms": lambda ms: ms, "epoch_s": lambda ms: ms // 1000,
             "iso": lambda ms: __import__("tickwork.times", fromlist=["iso"]).iso(ms)}[format]
    run(db.batch([("INSERT INTO chores_done (done_at) VALUES (?1)", (shape(ms),)) for ms in moments]))


def left(db):
    return run(db.all("SELECT COUNT(*) AS n FROM chores_done"))[0]["n"]


@pytest.mark.parametrize("format", ["epoch_ms", "epoch_s", "iso"])
def test_a_purge_deletes_the_rows_older_than_after_at_the_ticks_time(format):
    db = open_store()
    chores(db, NOW - 31 * DAY, NOW - 30 * DAY - HOUR, NOW - 29 * DAY, format=format)
    purge = purge_of(format)
    ticks(db, [purge], NOW - HOUR, NOW)
    assert left(db) == 1
    [record] = runs(db, "chores_done.purge")
    assert (record["outcome"], record["items"], json.loads(record["batches"])) == (Outcome.SUCCEEDED, 2, [2])


def test_a_run_deletes_at_most_20_batches_of_500_and_the_next_hour_carries_on():
    db = open_store()
    chores(db, *[NOW - 40 * DAY] * 10_300)
    purge = purge_of()
    ticks(db, [purge], NOW - HOUR, NOW)
    assert left(db) == 300
    first = runs(db, "chores_done.purge")[0]
    assert (first["items"], json.loads(first["batches"])) == (10_000, [500] * 20)
    ticks(db, [purge], NOW + HOUR)
    assert left(db) == 0
    assert runs(db, "chores_done.purge")[1]["items"] == 300


def test_an_unreachable_store_is_a_failed_run_unavailable_and_what_was_deleted_stays_deleted():
    db = open_store()
    chores(db, *[NOW - 40 * DAY] * 1_200)
    purge = purge_of()
    ticks(db, [purge], NOW - HOUR)
    ticks(Faulty(db, at("run", 3), says="D1_ERROR: Network connection lost"), [purge], NOW)
    assert left(db) == 200
    [record] = runs(db, "chores_done.purge")
    assert (record["outcome"], record["code"], record["items"]) == (Outcome.FAILED, "unavailable", 1_000)


def test_anything_else_the_store_refuses_is_an_internal_fault():
    db = open_store()
    run(db.all("DROP TABLE chores_done"))  # the app's table is gone
    purge = purge_of()
    ticks(db, [purge], NOW - HOUR, NOW)
    [record] = runs(db, "chores_done.purge")
    assert (record["outcome"], record["code"]) == (Outcome.FAILED, Code.INTERNAL_FAULT)


def test_a_purge_reads_its_age_from_the_setting_after_names_as_the_invocation_began():
    db = open_store()
    chores(db, NOW - 3 * DAY, NOW - DAY - HOUR, NOW - HOUR)
    purge = purge_of(after=None, setting="CHORES_KEPT")
    ticks(db, [purge], NOW - HOUR, NOW, settings={"CHORES_KEPT": "1d"})
    assert left(db) == 1
    assert runs(db, "chores_done.purge")[0]["items"] == 2


@pytest.mark.parametrize("value", [None, "soon", "30s", 7])
def test_a_setting_that_is_not_a_duration_fails_the_run_after_invalid_and_purges_nothing(value):
    db = open_store()
    chores(db, NOW - 40 * DAY)
    purge = purge_of(after=None, setting="CHORES_KEPT")
    ticks(db, [purge], NOW - HOUR, NOW, settings={} if value is None else {"CHORES_KEPT": value})
    assert left(db) == 1
    [record] = runs(db, "chores_done.purge")
    assert (record["outcome"], record["code"]) == (Outcome.FAILED, "purge.after_invalid")
    assert "CHORES_KEPT" in record["detail"]


def test_the_worker_reads_the_vars_its_purges_name_and_no_other():
    manifest = ModuleType("tickwork_manifest")
    manifest.STORE, manifest.SCHEDULES = "DB", (
        {"kind": "purge", "name": "chores_done.purge", "table": "chores_done", "column": "done_at",
         "format": "epoch_ms", "after_setting": "CHORES_KEPT", "every_ms": HOUR, "source": "x.jadpo:1"},)
    app = App.from_manifest(manifest)
    assert app.settings == ("CHORES_KEPT",)
    assert settings_of(app, SimpleNamespace(CHORES_KEPT="7d", OTHER="x")) == {"CHORES_KEPT": "7d"}
    assert settings_of(app, SimpleNamespace()) == {"CHORES_KEPT": None}


def test_each_cron_invocation_gives_a_purge_the_var_it_names_as_the_worker_has_it_then(tmp_path):
    path = str(tmp_path / "d1.sqlite")
    db = open_store(path)
    chores(db, NOW - 3 * DAY, NOW - DAY - 2 * HOUR, NOW - HOUR)
    app = App(store="DB", schedules=(purge_of(after=None, setting="CHORES_KEPT"),), settings=("CHORES_KEPT",))
    env = SimpleNamespace(DB=D1Shaped(path), CHORES_KEPT="2d")

    def invocation(at):
        run(run_cron_tick(app, env, SimpleNamespace(cron="* * * * *", scheduledTime=at)))

    invocation(NOW - HOUR)
    invocation(NOW)
    assert left(db) == 2
    env.CHORES_KEPT = "1d"  # a new deployment's var
    invocation(NOW + HOUR)
    assert left(db) == 1
