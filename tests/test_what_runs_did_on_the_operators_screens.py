"""What a run did, on the operator's screens (schedules document, "The purge schedule"): `history`
and `why` show a purge's `2 records purged` where an action's run shows the events it emitted,
and each run's trace."""

from helpers import run
from test_purge_schedules import chores, purge_of
from harness import FakeQueue, OperatorHarness
from test_the_operators_command import NINE
from test_the_outbox import order_placed, outbox

from tickwork import Schedule, event
from tickwork.grid import Every
from tickwork.times import DAY, HOUR, MINUTE

reminder = event("reminder_due", queue="EVENTS")


async def remind_and_place():
    await reminder.emit({"todo": 1})
    await reminder.emit({"todo": 2})
    await order_placed.emit({"order": 7})


def emitting(app: OperatorHarness):
    app.tick([Schedule("place", Every(MINUTE), remind_and_place)], NINE, NINE + MINUTE,
             outbox=outbox(app.db, FakeQueue()))


def purged(app: OperatorHarness):
    chores(app.db, NINE - 40 * DAY, NINE - 31 * DAY, NINE - DAY)
    app.tick([purge_of()], NINE - HOUR, NINE)


def test_history_shows_a_purges_records_purged(app):
    purged(app)
    _, answer, _ = app.run("history", "chores_done.purge", now=NINE + MINUTE)
    assert answer["runs"][0]["items"] == 2
    _, text, _ = app.run("history", "chores_done.purge", now=NINE + MINUTE, json_=False)
    assert "DID" in text and "2 records purged" in text


def test_history_shows_the_events_an_actions_run_emitted(app):
    emitting(app)
    _, answer, _ = app.run("history", "place", now=NINE + 2 * MINUTE)
    assert answer["runs"][0]["events"] == {"order_placed": 1, "reminder_due": 2}
    _, text, _ = app.run("history", "place", now=NINE + 2 * MINUTE, json_=False)
    assert "3 events emitted (order_placed 1, reminder_due 2)" in text


def test_why_says_what_the_last_run_purged_or_emitted(app):
    purged(app)
    emitting(app)
    _, purge, _ = app.run("why", "chores_done.purge", now=NINE + 2 * MINUTE)
    assert purge["last_due_what"].startswith("ran: succeeded in 0 ms, 2 records purged, by the tick at")
    _, place, _ = app.run("why", "place", now=NINE + 2 * MINUTE)
    assert "3 events emitted (order_placed 1, reminder_due 2)" in place["last_due_what"]


def test_history_and_why_give_each_runs_trace(app):
    emitting(app)
    [record] = run(app.db.all("SELECT trace FROM tickwork_runs"))
    _, history, _ = app.run("history", "place", now=NINE + 2 * MINUTE)
    assert history["runs"][0]["trace"] == record["trace"]
    _, why, _ = app.run("why", "place", now=NINE + 2 * MINUTE)
    assert f"in trace {record['trace']}" in why["last_due_what"]
