"""Issue 25, "Jitter": `jitter: 5m` delays each due time of an `every:` schedule or a calendar by an
offset in [0, 5m) drawn from (schedule, nominal due time) by the retries' own draw (model.jitter_of),
so every racing tick agrees; the run's record, `call.at` and ids keep the nominal moment; DST rules
place the nominal moment; `overdue:` is measured from the nominal moment plus its offset. The tick
still finds due rows by one indexed column (`runs_at`, migration 0028)."""

import asyncio
from pathlib import Path

import pytest
from helpers import Calls, Inputs, open_store, run, runs, state, ticks

from tickwork import Schedule
from tickwork.calendars import Calendar, CronCalendar
from tickwork.errors import ScheduleError
from tickwork.grid import Every
from tickwork.kinds.forms import parse_form
from tickwork.model import DUE_JITTER_SQL, due_jitter, jitter_of, seed_of
from tickwork.per_item import Items
from tickwork.times import MINUTE, SECOND, utc

NINE = utc("2026-03-02 09:00")
JITTER = 5 * MINUTE


def hourly(action=None, name="census", jitter=JITTER) -> Schedule:
    return Schedule(name, Every(60 * MINUTE), action or Calls(), jitter=jitter)


def minutes_of_the_window(start, span=JITTER):
    return [start + k * MINUTE for k in range(span // MINUTE + 1)]


def test_the_offset_is_the_retries_draw_for_attempt_0_the_same_for_the_same_schedule_and_due_time():
    offsets = {due_jitter("census", NINE + k * 60 * MINUTE, JITTER) for k in range(48)}
    assert all(0 <= o < JITTER and o % SECOND == 0 for o in offsets) and len(offsets) > 20
    assert due_jitter("census", NINE, JITTER) == jitter_of(seed_of("census"), NINE, 0, JITTER)
    assert due_jitter("census", NINE, None) == 0


def test_the_store_computes_the_moment_a_row_runs_as_python_draws_it():
    db = open_store()
    rows = [(f"s{k}", NINE + k * 61_000) for k in range(300)]
    for name, due in rows:
        asyncio.run(db.all("INSERT INTO tickwork_schedules (name, every_ms, form, due_at, first_tick, last_tick,"
                           " jitter_ms, jitter_seed) VALUES (?1, 0, 'every 3600000', ?2, 0, 0, ?3, ?4)",
                           (name, due, JITTER, seed_of(name))))
    kept = asyncio.run(db.all("SELECT name, due_at, runs_at FROM tickwork_schedules"))
    assert all(r["runs_at"] - r["due_at"] == due_jitter(r["name"], r["due_at"], JITTER) for r in kept)
    migration = Path(__file__).parents[1] / "migrations" / "0028_jitter.sql"
    assert " ".join(DUE_JITTER_SQL.split()) in " ".join(migration.read_text().split())


def test_a_due_time_runs_at_the_first_tick_past_its_offset_and_its_record_keeps_the_nominal_time(db):
    action = Calls()
    ticks(db, [hourly(action)], NINE - 60 * MINUTE)  # first seen: due at 09:00
    offset = due_jitter("census", NINE, JITTER)
    assert state(db).runs_at == NINE + offset
    reports = ticks(db, [hourly(action)], *minutes_of_the_window(NINE))
    ran = [r for report in reports for r in report.runs]
    first_past = NINE + -(-offset // MINUTE) * MINUTE
    assert action.at == [first_past]
    [record] = runs(db)
    assert record["due_at"] == NINE and record["started_at"] == first_past and ran[0].due_at == NINE
    assert state(db).due_at == NINE + 60 * MINUTE  # the grid stays on the nominal times


def test_without_jitter_the_row_runs_at_its_due_time_as_before(db):
    action = Calls()
    ticks(db, [hourly(action, jitter=None)], NINE - 60 * MINUTE, NINE)
    assert action.at == [NINE] and state(db).runs_at == NINE + 60 * MINUTE


def test_a_calendars_call_at_is_the_nominal_moment_and_it_runs_its_offset_later(db):
    action = Inputs()
    weekly = Schedule("weekly", Calendar(CronCalendar("0 9 * * 1", "UTC")), action, jitter=JITTER)
    ticks(db, [weekly], utc("2026-03-01 12:00"), *minutes_of_the_window(NINE))
    offset = due_jitter("weekly", NINE, JITTER)
    assert action.at == [NINE] and action.made[0]["now"] == NINE + -(-offset // MINUTE) * MINUTE
    assert runs(db, "weekly")[0]["at"] == NINE


def test_on_the_day_berlin_springs_forward_the_jitter_is_drawn_for_the_shifted_nominal_moment(db):
    """02:30 does not happen on 2026-03-29 in Berlin; `nonexistent: shift` runs it at 03:00 local
    (01:00Z): that is the nominal moment, and the offset is drawn for it."""
    action = Inputs()
    night = Schedule("night", Calendar(CronCalendar("30 2 * * *", "Europe/Berlin")), action, jitter=JITTER)
    shifted = utc("2026-03-29 01:00")
    ticks(db, [night], utc("2026-03-28 12:00"), *minutes_of_the_window(shifted))
    offset = due_jitter("night", shifted, JITTER)
    assert action.at == [shifted] and action.made[0]["now"] == shifted + -(-offset // MINUTE) * MINUTE
    assert runs(db, "night")[0]["dst"] is not None


def test_overdue_is_measured_from_the_nominal_moment_plus_its_offset():
    offset = due_jitter("weekly", NINE, JITTER)
    for late, outcome in ((30 * SECOND, "succeeded"), (2 * MINUTE, "skipped")):
        db, action = open_store(), Inputs()
        weekly = Schedule("weekly", Calendar(CronCalendar("0 9 * * 1", "UTC"), MINUTE), action, jitter=JITTER)
        ticks(db, [weekly], utc("2026-03-01 12:00"), NINE + offset + late)
        [record] = runs(db, "weekly")
        assert record["outcome"] == outcome, late
        assert record["code"] == (None if outcome == "succeeded" else "overdue")


def test_racing_ticks_each_minute_run_each_schedule_and_nominal_time_once_at_its_jittered_moment(tmp_path):
    from test_retries_backfill_and_alerts_together import connections, race

    dbs = connections(tmp_path / "race.sqlite")
    actions = {f"s{k}": Calls() for k in range(40)}
    schedules = [hourly(action, name) for name, action in actions.items()]
    race(dbs, schedules, NINE - 60 * MINUTE)
    for moment in minutes_of_the_window(NINE) + minutes_of_the_window(NINE + 60 * MINUTE):
        race(dbs, schedules, moment)
    for name, action in actions.items():
        expected = [due + -(-due_jitter(name, due, JITTER) // MINUTE) * MINUTE for due in (NINE, NINE + 60 * MINUTE)]
        assert action.at == expected, name
        assert [r["due_at"] for r in runs(dbs[0], name)] == [NINE, NINE + 60 * MINUTE]


def test_a_worker_killed_after_claiming_loses_its_runs_to_their_leases_and_no_due_time_runs_twice(tmp_path):
    from faults import first_with
    from test_retries_backfill_and_alerts_together import connections, race

    from tickwork.store.claims import RECORD_STARTS

    dbs = connections(tmp_path / "killed.sqlite")
    actions = {f"s{k}": Calls() for k in range(20)}
    schedules = [hourly(action, name) for name, action in actions.items()]
    race(dbs, schedules, NINE - 60 * MINUTE)
    for moment in minutes_of_the_window(NINE) + [NINE + 30 * MINUTE]:
        race(dbs, schedules, moment, killed_after=first_with(RECORD_STARTS))
    records = [r for name in actions for r in runs(dbs[0], name)]
    assert sorted((r["schedule"], r["due_at"]) for r in records) == sorted((name, NINE) for name in actions)
    lost = [r for r in records if r["outcome"] != "succeeded"]
    assert lost and all(r["code"] == "lease_expired" for r in lost)
    # the killed worker made its calls and died before their ends: no other tick made them again
    assert all(len(action.at) <= 1 for action in actions.values())
    assert all(action.at == [NINE + -(-due_jitter(name, NINE, JITTER) // MINUTE) * MINUTE]
               for name, action in actions.items() if action.at)


def test_a_schedules_form_keeps_its_jitter_and_a_form_without_one_reads_as_before():
    assert hourly().form == "every 3600000 jitter=300000"
    assert parse_form("every 3600000 jitter=300000").jitter_ms == JITTER
    assert parse_form("every 3600000").jitter_ms is None and hourly(jitter=None).form == "every 3600000"
    with pytest.raises(ValueError):
        parse_form("every 3600000 jitter=0300000")


def test_adding_a_jitter_to_a_declared_schedule_rebases_its_row_and_writes_it(db):
    ticks(db, [hourly(jitter=None)], NINE - 60 * MINUTE)
    assert state(db).runs_at == NINE
    ticks(db, [hourly()], NINE - 30 * MINUTE)
    assert state(db).form == "every 3600000 jitter=300000"
    assert state(db).runs_at == state(db).due_at + due_jitter("census", state(db).due_at, JITTER)


async def ping():
    pass


def test_items_every_and_calendar_and_their_bulk_forms_take_jitter(db):
    items = Items(db, lambda: NINE)
    one = run(items.every(ping, {"n": 1}, "1h", jitter="5m"))
    weekly = run(items.calendar(ping, {"n": 2}, "0 9 * * 1", jitter=300_000))
    many = run(items.every_many(ping, [{"n": 3}, {"n": 4}], "1h", jitter="5m"))
    handed = run(items.hand_over([{"action": ping, "input": {"n": 5}, "cron": "0 9 * * 1", "jitter": "5m"}]))
    for id in [one, weekly, *many.ids, *handed.ids]:
        kept = state(db, id)
        assert kept.form.endswith(" jitter=300000")
        assert kept.runs_at == kept.due_at + due_jitter(id, kept.due_at, JITTER)
    plain = run(items.every(ping, {"n": 1}, "1h"))
    assert plain != one and state(db, plain).runs_at == state(db, plain).due_at  # an id as before


def test_a_handed_over_jitter_runs_at_its_offset(db):
    id = run(Items(db, lambda: NINE - 60 * MINUTE).every(ping, {"n": 1}, "1h", jitter="5m"))
    ticks(db, [], *minutes_of_the_window(NINE))
    [record] = runs(db, id)
    offset = due_jitter(id, NINE, JITTER)
    assert record["due_at"] == NINE and record["started_at"] == NINE + -(-offset // MINUTE) * MINUTE


def test_items_replace_and_replace_many_keep_the_jitter_they_are_given(db):
    items = Items(db, lambda: NINE)
    old, old_many = run(items.every(ping, {"n": 1}, "1h")), run(items.every(ping, {"n": 2}, "1h"))
    one = run(items.replace(old, ping, {"n": 1}, every="1h", jitter="5m"))
    [many] = run(items.replace_many([{"replaces": old_many, "action": ping, "input": {"n": 2}, "every": "1h",
                                      "jitter": "5m"}])).ids
    for id in (one, many):
        kept = state(db, id)
        assert kept.form.endswith(" jitter=300000")
        assert kept.runs_at == kept.due_at + due_jitter(id, kept.due_at, JITTER) != kept.due_at


@pytest.mark.parametrize("call, says", [
    (lambda items: items.every(ping, {}, "1h", jitter="1h"), "not shorter than the 3600s"),
    (lambda items: items.every(ping, {}, "1h", jitter="5x"), "not a duration"),
    (lambda items: items.every(ping, {}, "1h", jitter=1500), "whole seconds"),
    (lambda items: items.calendar(ping, {}, "0 9,10 * * *", jitter="90m"), "not shorter than the 3600s"),
    (lambda items: items.hand_over([{"action": ping, "input": {}, "at": NINE, "jitter": "5m"}]), "`every` and `cron`"),
])
def test_a_bad_jitter_is_refused_with_its_code(db, call, says):
    with pytest.raises(ScheduleError) as refused:
        run(call(Items(db, lambda: NINE)))
    assert refused.value.code == "schedule.jitter_invalid" and says in refused.value.message


def test_a_tick_inside_the_window_before_any_offset_costs_what_a_nothing_due_tick_does(db):
    from test_statements_per_tick import FIRST_READ

    schedules = [hourly(name=f"s{k}") for k in range(100)]
    ticks(db, schedules, NINE - 60 * MINUTE)
    first = min(due_jitter(f"s{k}", NINE, JITTER) for k in range(100))
    now = NINE + first - SECOND  # every row's nominal due time has come; none has run
    ticks(db, schedules, now - MINUTE)
    run(db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (now,)))
    before = db.statements_run, db.round_trips
    [report] = ticks(db, schedules, now)
    assert (db.statements_run - before[0], db.round_trips - before[1], report.runs) == (FIRST_READ, 1, [])


def test_the_tick_finds_due_rows_through_the_index_of_the_moments_they_run(db):
    from tickwork.store.schedules import SELECT_DUE

    plan = " ".join(r["detail"] for r in run(db.all(f"EXPLAIN QUERY PLAN {SELECT_DUE}", (NINE, -1))))
    assert "USING INDEX tickwork_schedules_by_due (runs_at<?)" in plan and "SCAN tickwork_schedules " not in plan


def test_a_due_time_that_supersedes_a_pending_retry_still_waits_for_its_own_offset(db):
    """Every 15m, retried after 10m, 20m: the third attempt for 09:00 would come after 09:15, so
    09:15 supersedes it when the row is read; 09:15 itself runs at its jittered moment."""
    from test_retries import Failing

    from tickwork.model import Retry

    action = Failing()
    quarterly = Schedule("q", Every(15 * MINUTE), action, retry=Retry(3, 10 * MINUTE), jitter=JITTER)
    ticks(db, [quarterly], NINE - 15 * MINUTE, *minutes_of_the_window(NINE, 30 * MINUTE))
    at_1515 = [r for r in runs(db, "q") if r["due_at"] == NINE + 15 * MINUTE and r["attempt"] == 1]
    assert (NINE, 3, "superseded") in [(r["due_at"], r["attempt"], r["code"]) for r in runs(db, "q")]
    offset = due_jitter("q", NINE + 15 * MINUTE, JITTER)
    assert [r["started_at"] for r in at_1515] == [NINE + 15 * MINUTE + -(-offset // MINUTE) * MINUTE]
