"""Each run in a new trace (schedules document, "How a schedule runs": "in a new trace"), which
what it emits carries to the consumers that handle it; and what a run emitted, on its record."""

import json
import logging
import re
from types import SimpleNamespace

import pytest
from helpers import MIGRATIONS, open_store, run, ticks
from harness import FakeQueue
from test_the_outbox import Message, consumed, order_placed, outbox, placing
from test_worker_adapter import D1Shaped

from tickwork import Schedule, call, event, handled
from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.adapters.workers import describe, emitting
from tickwork.app import App
from tickwork.consumers import Consumer, consume
from tickwork.grid import Every
from tickwork.outbox_store import OutboxStore
from tickwork.per_item import Items
from tickwork.times import MINUTE, utc

NINE = utc("2026-03-02 09:00")
TRACE = re.compile(r"[0-9a-f]{32}")
reminder = event("reminder_due", queue="EVENTS")


class Traces:
    """An action that keeps the `call.trace` of each of its runs."""

    def __init__(self):
        self.seen: list[str] = []

    async def __call__(self):
        self.seen.append(call.trace)


def records(db, name=None):
    return run(db.all("SELECT * FROM tickwork_runs WHERE ?1 IS NULL OR schedule = ?1 ORDER BY tick_at, schedule",
                      (name,)))


def test_each_run_is_in_a_new_trace_which_its_record_keeps_and_the_action_reads():
    db, census, sweep = open_store(), Traces(), Traces()
    schedules = [Schedule("census", Every(MINUTE), census), Schedule("sweep", Every(MINUTE), sweep)]
    ticks(db, schedules, NINE, NINE + MINUTE, NINE + 2 * MINUTE)
    kept = [r["trace"] for r in records(db)]
    assert len(kept) == 4 and all(TRACE.fullmatch(t) for t in kept)
    assert len(set(kept)) == 4
    assert kept == [t for pair in zip(census.seen, sweep.seen) for t in pair]


def test_a_skip_is_no_run_and_has_no_trace():
    db = open_store()
    census = Schedule("census", Every(MINUTE), Traces())
    ticks(db, [census], NINE)
    run(db.all("UPDATE tickwork_schedules SET paused = 1"))
    ticks(db, [census], NINE + MINUTE)
    [skip] = records(db)
    assert (skip["outcome"], skip["trace"]) == ("skipped", None)


def test_a_failed_runs_log_line_says_its_trace(caplog):
    async def broken():
        raise ValueError("the todo list is missing")

    db = open_store()
    with caplog.at_level(logging.ERROR, logger="tickwork"):
        ticks(db, [Schedule("census", Every(MINUTE), broken)], NINE, NINE + MINUTE)
    [record] = records(db)
    assert f"census: run failed: internal_fault: ValueError: the todo list is missing (trace {record['trace']})" \
        in caplog.text


def test_the_workers_line_for_a_run_says_its_trace():
    db = open_store()
    reports = ticks(db, [Schedule("census", Every(MINUTE), Traces())], NINE, NINE + MINUTE)
    [report] = reports[1].runs
    [record] = records(db)
    assert report.trace == record["trace"]
    assert describe(report).endswith(f" [trace {record['trace']}]")


def test_what_a_run_emits_is_kept_and_sent_in_the_runs_trace():
    db, queue = open_store(), FakeQueue()
    ticks(db, [placing({"order": 7})], NINE, NINE + MINUTE, outbox=outbox(db, queue))
    [record] = records(db)
    [kept] = run(db.all("SELECT trace FROM tickwork_events"))
    assert kept["trace"] == record["trace"]
    assert [message["trace"] for message in queue.messages] == [record["trace"]]


def test_a_delivery_the_sweep_sends_again_keeps_its_trace():
    db, queue = open_store(), FakeQueue(failures=1)
    ticks(db, [placing({"order": 7})], NINE, NINE + MINUTE, outbox=outbox(db, queue, at=NINE + MINUTE))
    ticks(db, [], NINE + 3 * MINUTE, outbox=outbox(db, queue, at=NINE + 3 * MINUTE))
    [record] = records(db)
    assert [message["trace"] for message in queue.messages] == [record["trace"]]


seen_by_consumer: list[str] = []


async def ship():
    seen_by_consumer.append(call.trace)
    handled.write("INSERT INTO shipments (order_id) VALUES (?1)", call.input["order"])
    await reminder.emit({"shipped": call.input["order"]})


@pytest.fixture
def shop():
    db = open_store()
    run(db.all("CREATE TABLE shipments (order_id INTEGER)"))
    seen_by_consumer.clear()
    return db


def test_a_consumers_call_continues_the_trace_of_the_run_that_emitted(shop):
    queue = FakeQueue()
    ticks(shop, [placing({"order": 7})], NINE, NINE + MINUTE, outbox=outbox(shop, queue, consumed_here=True))
    [record] = records(shop)
    run(consume(shop, Consumer("tickwork-events", ship), [Message(queue.messages[0])], NINE + MINUTE,
                outbox(shop, queue, consumed_here=True)))
    assert seen_by_consumer == [record["trace"]]
    [kept] = run(shop.all("SELECT trace FROM tickwork_handled"))
    assert kept["trace"] == record["trace"]
    # and what the consumer emitted goes on in the same trace
    assert [m["trace"] for m in queue.messages] == [record["trace"], record["trace"]]


def test_a_message_tickwork_did_not_send_is_handled_in_a_trace_of_its_own(shop):
    consumed(shop, [Message({"order": 3}, id="foreign-1")], Consumer("q", ship))
    consumed(shop, [Message({"order": 4}, id="foreign-2")], Consumer("q", ship))
    assert all(TRACE.fullmatch(t) for t in seen_by_consumer) and len(set(seen_by_consumer)) == 2
    kept = [r["trace"] for r in run(shop.all("SELECT trace FROM tickwork_handled ORDER BY delivery"))]
    assert kept == seen_by_consumer


def test_a_consumer_that_raises_logs_the_trace_it_continued(shop, caplog):
    async def broken():
        raise RuntimeError("the carrier is down")

    queue = FakeQueue()
    ticks(shop, [placing({"order": 7})], NINE, NINE + MINUTE, outbox=outbox(shop, queue, consumed_here=True))
    [record] = records(shop)
    with caplog.at_level(logging.ERROR, logger="tickwork"):
        consumed(shop, [Message(queue.messages[0])], Consumer("tickwork-events", broken))
    assert f"RuntimeError: the carrier is down (trace {record['trace']})" in caplog.text


def test_a_run_record_keeps_what_the_run_emitted_by_event():
    async def remind_and_place():
        await reminder.emit({"todo": 1})
        await reminder.emit({"todo": 2})
        await order_placed.emit({"order": 7})

    db = open_store()
    schedule = Schedule("place", Every(MINUTE), remind_and_place)
    reports = ticks(db, [schedule], NINE, NINE + MINUTE, outbox=outbox(db, FakeQueue()))
    [record] = records(db)
    assert json.loads(record["events"]) == {"order_placed": 1, "reminder_due": 2}
    assert reports[1].runs[0].events == {"order_placed": 1, "reminder_due": 2}


def test_a_failed_run_keeps_no_events_on_its_record():
    db = open_store()
    ticks(db, [placing({"order": 7}, then_raise=True)], NINE, NINE + MINUTE, outbox=outbox(db, FakeQueue()))
    [record] = records(db)
    assert (record["outcome"], record["events"]) == ("failed", None)
    assert run(OutboxStore(db).deliveries()) == []


def test_a_run_asked_for_by_hand_is_in_a_new_trace():
    db, census = open_store(), Traces()
    schedule = Schedule("census", Every(15 * MINUTE), census)
    ticks(db, [schedule], NINE)
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada'", (NINE,)))
    ticks(db, [schedule], NINE + MINUTE)
    [record] = records(db)
    assert record["by_hand"] == "ada" and TRACE.fullmatch(record["trace"]) and census.seen == [record["trace"]]


# Left by migrations 0001 to 0009: an event whose send may not have landed, a handled record.
BEFORE_TRACES = """
INSERT INTO tickwork_events (id, name, body, run, emitted_at)
VALUES ('e-1', 'order_placed', '{"order": 7}', NULL, {at});
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, next_attempt_at, updated_at)
VALUES ('d-1', 'e-1', 'EVENTS', 'outcome_unknown', 1, {at}, {at});
INSERT INTO tickwork_handled (delivery, handled_at) VALUES ('message:old', {at});
"""


def test_a_delivery_left_from_before_traces_is_sent_after_migration_0010_and_handled_in_a_trace_of_its_own(shop):
    fresh = SQLiteDatabase()
    scripts = sorted(MIGRATIONS.glob("00*.sql"))
    for script in scripts:
        if script.name.startswith("0010_"):
            fresh._conn.executescript(BEFORE_TRACES.replace("{at}", str(NINE)))
        fresh._conn.executescript(script.read_text())
    run(fresh.all("CREATE TABLE shipments (order_id INTEGER)"))
    queue = FakeQueue()
    ticks(fresh, [], NINE + MINUTE, outbox=outbox(fresh, queue, at=NINE + MINUTE, consumed_here=True))
    [message] = queue.messages
    assert message["delivery"] == "d-1" and "trace" not in message
    run(consume(fresh, Consumer("tickwork-events", ship), [Message(message)], NINE + MINUTE))
    assert TRACE.fullmatch(seen_by_consumer[0])
    kept = run(fresh.all("SELECT delivery, trace FROM tickwork_handled ORDER BY delivery"))
    assert kept == [{"delivery": "d-1", "trace": seen_by_consumer[0]}, {"delivery": "message:old", "trace": None}]


class QueueBinding:
    """A Queue binding as the Worker's env holds it: `sendBatch` of `{"body": ...}` messages."""

    def __init__(self):
        self.bodies: list[dict] = []

    async def sendBatch(self, messages):
        self.bodies += [message["body"] for message in messages]


def test_each_emitting_block_of_a_fetch_starts_a_trace_of_its_own(tmp_path):
    path = str(tmp_path / "d1.sqlite")
    db = open_store(path)
    app = App(store="DB", schedules=(), producers={"EVENTS": "tickwork-events"})
    env = SimpleNamespace(DB=D1Shaped(path), EVENTS=QueueBinding())

    async def two_requests():
        seen = []
        for order in (7, 8):
            async with emitting(app, env):
                seen.append(call.trace)
                await order_placed.emit({"order": order})
        return seen

    seen = run(two_requests())
    assert all(TRACE.fullmatch(t) for t in seen) and len(set(seen)) == 2
    assert [body["trace"] for body in env.EVENTS.bodies] == seen
    kept = run(db.all("SELECT trace FROM tickwork_events ORDER BY emitted_at, json_extract(body, '$.order')"))
    assert [row["trace"] for row in kept] == seen


seen_by_reminder: list[str] = []


async def remind():
    seen_by_reminder.append(call.trace)


def test_every_call_of_a_schedule_handed_over_starts_a_trace_of_its_own():
    db = open_store()
    seen_by_reminder.clear()
    run(Items(db, lambda: NINE).every(remind, {"todo": 17}, "1m"))
    ticks(db, [], NINE + MINUTE, NINE + 2 * MINUTE)
    kept = [r["trace"] for r in records(db)]
    assert kept == seen_by_reminder and len(set(kept)) == 2 and all(TRACE.fullmatch(t) for t in kept)
