"""Housekeeping, the tick's last step (schedules document, "What the tick deletes"): at each
boundary, what goes and what stays; its lease; 1,000 rows a delete, ten deletes a tick."""

import pytest
from faults import Faulty, Killed, KilledAfter, at, nothing
from harness import FakeQueue
from helpers import every, open_store, run, ticks

from tickwork.housekeeping import housekeeping
from tickwork.housekeeping_store import DELETES, FINISH, TAKE
from tickwork.outbox import Outbox
from tickwork.outbox_store import SWEEP
from tickwork.schedule_store import RECORD_ENDS
from tickwork.tick.budget import Budget
from tickwork.times import DAY, HOUR, MINUTE, utc

NOW = utc("2026-06-01 12:00")


def fill(db, sql, rows):
    run(db.batch([(sql, row) for row in rows]))


def count(db, table):
    return run(db.all(f"SELECT COUNT(*) AS n FROM {table}"))[0]["n"]


def runs_at(db, *moments):
    fill(db, "INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome) VALUES (?1, 'census', ?2, ?2, 'succeeded')",
         [(f"r{k}", at) for k, at in enumerate(moments)])


def event(db, id, emitted_at, *states, updated_at=None):
    fill(db, "INSERT INTO tickwork_events (id, name, body, emitted_at) VALUES (?1, 'e', '{}', ?2)", [(id, emitted_at)])
    fill(db, "INSERT INTO tickwork_deliveries (id, event, queue, state, updated_at) VALUES (?1, ?2, 'Q', ?3, ?4)",
         [(f"{id}-d{k}", id, state, updated_at or emitted_at) for k, state in enumerate(states)])
    fill(db, "INSERT INTO tickwork_handled (delivery, handled_at) VALUES (?1, ?2)",
         [(f"{id}-d{k}", emitted_at) for k, state in enumerate(states) if state == "succeeded"])


def handled(db, delivery, at):
    fill(db, "INSERT INTO tickwork_handled (delivery, handled_at) VALUES (?1, ?2)", [(delivery, at)])


def handled_records(db):
    return sorted(r["delivery"] for r in run(db.all("SELECT delivery FROM tickwork_handled")))


def logged(db, delivery, at, schedule=None):
    fill(db, "INSERT INTO tickwork_operator_log (id, at, who, verb, delivery, schedule) VALUES (?1, ?2, 'ada', 'dismiss', ?3, ?4)",
         [(f"log-{delivery}-{at}", at, delivery, schedule)])


def pass_at(db, now=NOW, owner="tick-1", budget=MINUTE, room=None):
    """A pass by a tick at `now` with `budget` ms and `room` statements left: its lease until the
    budget's end and a minute."""
    return run(housekeeping(db, Budget(db, now, now, budget, lambda: 0.0, room), owner))


@pytest.fixture
def db():
    database = open_store()
    ticks(database, [every(15)], NOW - 30 * MINUTE)
    run(database.all("UPDATE tickwork_app SET housekeeping_done_at = NULL"))
    return database


def test_run_records_go_30_days_old_and_not_before(db):
    runs_at(db, NOW - 31 * DAY, NOW - 29 * DAY)
    pass_at(db)
    assert [r["id"] for r in run(db.all("SELECT id FROM tickwork_runs"))] == ["r1"]


def test_the_records_a_tick_made_go_30_days_old_as_do_records_made_before_migration_0017():
    db = open_store()
    ticks(db, [every(15)], NOW - 31 * DAY, NOW - 31 * DAY + 15 * MINUTE, NOW - 29 * DAY)
    old, young = [r["id"] for r in run(db.all("SELECT id FROM tickwork_runs ORDER BY tick_at"))]
    runs_at(db, NOW - 31 * DAY, NOW - 29 * DAY)  # ids of no tick's form, as before migration 0017
    assert pass_at(db) == 2
    assert {r["id"] for r in run(db.all("SELECT id FROM tickwork_runs"))} == {young, "r1"}


def test_an_event_every_delivery_of_which_succeeded_goes_24_hours_after_it_was_emitted_with_its_deliveries(db):
    event(db, "old", NOW - 25 * HOUR, "succeeded", "succeeded")
    event(db, "young", NOW - 23 * HOUR, "succeeded")
    event(db, "unreceived", NOW - 25 * HOUR)  # nothing received it
    pass_at(db)
    assert [e["id"] for e in run(db.all("SELECT id FROM tickwork_events"))] == ["young"]
    assert [d["id"] for d in run(db.all("SELECT id FROM tickwork_deliveries"))] == ["young-d0"]


def test_a_handled_record_stays_14_days_after_it_was_handled_whatever_became_of_its_event(db):
    event(db, "gone-long-ago", NOW - 15 * DAY, "succeeded")
    event(db, "gone-yesterday", NOW - 13 * DAY, "succeeded")
    event(db, "kept", NOW - 15 * DAY, "succeeded", "failed")
    pass_at(db)
    assert [e["id"] for e in run(db.all("SELECT id FROM tickwork_events"))] == ["kept"]
    assert handled_records(db) == ["gone-yesterday-d0"]  # a queue redelivers for 14 days at most


def test_handled_records_of_messages_tickwork_did_not_send_go_14_days_after_they_were_handled(db):
    handled(db, "message:old", NOW - 14 * DAY - MINUTE)
    handled(db, "message:young", NOW - 14 * DAY + MINUTE)
    pass_at(db)
    assert handled_records(db) == ["message:young"]


@pytest.mark.parametrize("state", ["pending", "running", "failed", "outcome_unknown"])
def test_a_delivery_that_could_still_run_stays_with_its_event_however_old(db, state):
    event(db, "kept", NOW - 365 * DAY, "succeeded", state)
    pass_at(db)
    assert (count(db, "tickwork_events"), count(db, "tickwork_deliveries")) == (1, 2)


def test_a_delivery_set_aside_goes_30_days_after_the_operators_last_action_then_its_event(db):
    event(db, "gone", NOW - 60 * DAY, "succeeded", "dismissed")
    logged(db, "gone-d1", NOW - 31 * DAY)
    event(db, "kept", NOW - 60 * DAY, "cancelled")
    logged(db, "kept-d0", NOW - 29 * DAY)
    pass_at(db)
    assert [e["id"] for e in run(db.all("SELECT id FROM tickwork_events"))] == ["kept"]
    assert [d["id"] for d in run(db.all("SELECT id FROM tickwork_deliveries"))] == ["kept-d0"]


def test_a_set_aside_deliverys_handled_record_goes_by_its_own_age_not_with_the_delivery(db):
    # dismissed, then a message of it still in the queue was handled: a repeat may yet come
    event(db, "recent", NOW - 60 * DAY, "dismissed")
    logged(db, "recent-d0", NOW - 31 * DAY)
    handled(db, "recent-d0", NOW - 10 * DAY)
    event(db, "old", NOW - 60 * DAY, "cancelled")
    logged(db, "old-d0", NOW - 29 * DAY)  # its delivery stays, a retention from the operator's action
    handled(db, "old-d0", NOW - 15 * DAY)
    pass_at(db)
    assert [d["id"] for d in run(db.all("SELECT id FROM tickwork_deliveries"))] == ["old-d0"]
    assert handled_records(db) == ["recent-d0"]


def test_operator_log_rows_past_the_retention_go_once_their_delivery_is_gone(db):
    event(db, "kept", NOW - 60 * DAY, "failed")
    logged(db, "kept-d0", NOW - 40 * DAY)  # its delivery is still there
    logged(db, "long-gone", NOW - 40 * DAY)
    logged(db, "long-gone", NOW - 10 * DAY)
    pass_at(db)
    assert sorted((r["delivery"], r["at"]) for r in run(db.all("SELECT delivery, at FROM tickwork_operator_log"))) == [
        ("kept-d0", NOW - 40 * DAY), ("long-gone", NOW - 10 * DAY)]


def test_moment_claims_go_once_no_calendar_can_be_owed_them(db):
    fill(db, "INSERT INTO tickwork_moments (action, at, run) VALUES ('a', ?1, 'r')", [(NOW - HOUR,), (NOW + HOUR,)])
    pass_at(db)
    assert [m["at"] for m in run(db.all("SELECT at FROM tickwork_moments"))] == [NOW + HOUR]


def test_a_pass_deletes_1000_rows_a_delete_ten_deletes_a_tick_and_the_next_tick_carries_on(db):
    runs_at(db, *[NOW - 40 * DAY] * 12_500)
    assert pass_at(db) == 10_000
    assert count(db, "tickwork_runs") == 2_500
    assert pass_at(db, now=NOW + MINUTE) == 2_500  # the pass did not complete: no hour's wait
    assert count(db, "tickwork_runs") == 0


def test_a_completed_pass_comes_again_after_an_hour_and_not_before(db):
    pass_at(db)
    runs_at(db, NOW - 40 * DAY)
    assert pass_at(db, now=NOW + 59 * MINUTE) == 0
    assert pass_at(db, now=NOW + HOUR) == 1


def test_a_crashed_owners_lease_holds_off_others_for_the_rest_of_its_ticks_budget_and_a_minute(db):
    runs_at(db, NOW - 40 * DAY)
    seconds = iter([0.0])  # the tick begins at 0 s; its pass starts 2 minutes later

    with pytest.raises(Killed):  # the pass's lease taken, the worker dies before any delete
        ticks(KilledAfter(db, at("housekeeping")), [every(15)], NOW, budget=5 * MINUTE,
              monotonic=lambda: next(seconds, 120.0))
    lapses = NOW + 5 * MINUTE + MINUTE  # from the tick's start: its budget, then a minute
    assert pass_at(db, now=lapses - 1, owner="tick-2") == 0
    assert pass_at(db, now=lapses, owner="tick-2") == 1


def test_only_its_owner_finishes_or_gives_back_the_pass(db):
    run(db.all("UPDATE tickwork_app SET housekeeping_owner = 'other', housekeeping_until = ?1", (NOW + 5 * MINUTE,)))
    from tickwork.housekeeping_store import HousekeepingStore

    run(HousekeepingStore(db).finish("intruder", True, NOW))
    [app] = run(db.all("SELECT housekeeping_owner, housekeeping_done_at FROM tickwork_app"))
    assert app == {"housekeeping_owner": "other", "housekeeping_done_at": None}


def test_a_pass_stops_before_a_delete_the_budget_or_the_statements_left_cannot_take(db):
    runs_at(db, NOW - 40 * DAY)
    assert pass_at(db, budget=0) == 0
    assert pass_at(db, room=1) == 0
    assert pass_at(db) == 1


def test_housekeeping_is_the_ticks_last_step_after_its_runs_and_the_sweep(db):
    runs_at(db, NOW - 40 * DAY)
    event(db, "unsent", NOW - HOUR, "pending")
    run(db.all("UPDATE tickwork_deliveries SET next_attempt_at = ?1", (NOW - MINUTE,)))
    queue = FakeQueue()
    recording = Faulty(db, nothing)
    ticks(recording, [every(15)], NOW, outbox=Outbox(recording, {"Q": queue}, frozenset(), lambda: NOW))
    calls = [call.sqls for call in recording.made]
    operations = [call.operation for call in recording.made]
    last = operations.index("housekeeping")
    assert operations[last:] == ["housekeeping"] * (len(operations) - last)  # nothing of the tick after it
    took = next(k for k, sqls in enumerate(calls) if TAKE in sqls)
    before = {sql for sqls in calls[:took] for sql in sqls}
    assert RECORD_ENDS in before and SWEEP in before and len(queue.messages) == 1  # the run ended, the sweep sent
    passes = {TAKE, FINISH} | {sql + "RETURNING 1" for delete in DELETES for sql in delete.statements}
    assert {sql for sqls in calls[took:] for sql in sqls} <= passes  # nothing of the tick after it
    assert [r["id"] for r in run(db.all("SELECT id FROM tickwork_runs WHERE tick_at < ?1", (NOW,)))] == []


def test_housekeeping_passes_at_most_once_an_hour_once_a_pass_completes(db):
    census = every(15)
    ticks(db, [census], NOW)  # a pass completes
    runs_at(db, NOW - 40 * DAY)
    ticks(db, [census], NOW + 59 * MINUTE)
    assert count(db, "tickwork_runs WHERE tick_at < %d" % NOW) == 1
    ticks(db, [census], NOW + HOUR)
    assert count(db, "tickwork_runs WHERE tick_at < %d" % NOW) == 0


def test_a_pass_given_little_room_each_tick_carries_on_where_it_stopped_and_completes(db):
    runs_at(db, NOW - 40 * DAY)
    event(db, "old", NOW - 25 * HOUR, "succeeded")
    for minute in range(8):  # room for one delete a tick, however many statements it takes
        pass_at(db, now=NOW + minute * MINUTE, room=4)
    assert (count(db, "tickwork_runs"), count(db, "tickwork_events")) == (0, 0)
    [app] = run(db.all("SELECT housekeeping_done_at, housekeeping_next FROM tickwork_app"))
    assert app["housekeeping_done_at"] is not None and app["housekeeping_next"] == 0


def test_handled_records_are_looked_up_by_their_age_through_an_index_not_a_scan(db):
    from tickwork.housekeeping_store import HANDLED

    plan = [row["detail"] for row in run(db.all(f"EXPLAIN QUERY PLAN {HANDLED}", (None, None, None, NOW)))]
    assert any("USING COVERING INDEX tickwork_handled_by_at" in step for step in plan), plan
    assert not any(step.startswith("SCAN tickwork_handled") for step in plan), plan


@pytest.mark.parametrize("room", [0, 1])
def test_a_pass_is_not_begun_where_the_statements_left_cannot_take_its_lease_and_give_it_back(db, room):
    runs_at(db, NOW - 40 * DAY)
    before = db.statements_run
    assert pass_at(db, room=room) == 0
    assert db.statements_run == before
