"""The outbox (schedules document, "How a schedule runs" and the tick's second step): what a run
emits is delivered after it, never before it succeeded; a send that may not have reached the
queue is sent again; the sweep sends what is left; consumers dedupe on the delivery's id."""

import asyncio
import logging

import pytest
from harness import FakeQueue
from helpers import nested, open_store, run, ticks

from tickwork import EventError, Schedule, call, event, handled
from tickwork.consumers import Consumer, consume
from tickwork.events import LARGEST_BODY
from tickwork.grid import Every
from tickwork.json_values import json_text
from tickwork.model import LEASE_GRACE
from tickwork.operator_store import OperatorStore
from tickwork.outbox import SEND_WINDOW, Outbox, envelope
from tickwork.outbox_store import Delivery, OutboxStore
from tickwork.housekeeping import housekeeping
from tickwork.tick.budget import Budget
from tickwork.times import DAY, HOUR, MINUTE, utc

order_placed = event("order_placed", queue="EVENTS")
NINE = utc("2026-03-02 09:00")


class Message:
    """A queue message as the consumer's Worker receives it."""

    def __init__(self, body, attempts=1, id="m-1"):
        self.body, self.attempts, self.id = body, attempts, id
        self.acked = self.retried = False

    def ack(self):
        self.acked = True

    def retry(self):
        self.retried = True


def outbox(db, queue, consumed_here=False, at=NINE):
    return Outbox(db, {"EVENTS": queue}, frozenset({"EVENTS"} if consumed_here else ()), lambda: at)


def deliveries(db):
    return run(OutboxStore(db).deliveries())


def placing(*bodies, then_raise=False):
    async def place():
        for body in bodies:
            await order_placed.emit(body)
        if then_raise:
            raise RuntimeError("the order service is down")

    return Schedule("place", Every(MINUTE), place)


def tick_with(db, schedule, queue, at, **options):
    return ticks(db, [schedule], at, outbox=outbox(db, queue, at=at, **options))


def test_what_a_run_emits_is_sent_after_its_end_with_its_delivery_id():
    db, queue = open_store(), FakeQueue()
    place = placing({"order": 7})
    tick_with(db, place, queue, NINE)
    tick_with(db, place, queue, NINE + MINUTE)
    [delivery] = deliveries(db)
    [emitter] = run(db.all("SELECT trace FROM tickwork_runs"))
    assert queue.messages == [{"tickwork": 1, "delivery": delivery["id"], "event": "order_placed", "body": {"order": 7},
                               "trace": emitter["trace"]}]
    assert (delivery["state"], delivery["attempts"], delivery["name"]) == ("succeeded", 1, "order_placed")


def test_a_failed_run_emits_nothing():
    db, queue = open_store(), FakeQueue()
    place = placing({"order": 7}, then_raise=True)
    ticks(db, [place], NINE, NINE + MINUTE, outbox=outbox(db, queue))
    assert queue.sent == [] and deliveries(db) == []


def test_a_body_over_a_queue_messages_size_is_refused_when_emitted_and_the_run_keeps_the_rest():
    refused = []

    async def place():
        await order_placed.emit({"order": 1})
        try:
            await order_placed.emit({"blob": "x" * 140_000})
        except EventError as error:
            refused.append(error.code)

    db, queue = open_store(), FakeQueue()
    ticks(db, [Schedule("place", Every(MINUTE), place)], NINE, NINE + MINUTE, outbox=outbox(db, queue))
    assert refused == ["event.body_too_large"]
    assert [m["body"] for m in queue.messages] == [{"order": 1}]


def emitting(body):
    """What emitting `body` in a run comes to: the store, the queue, and the codes of the errors emit raised."""
    refused = []

    async def place():
        try:
            await order_placed.emit(body)
        except EventError as error:
            refused.append(error.code)

    db, queue = open_store(), FakeQueue()
    ticks(db, [Schedule("place", Every(MINUTE), place)], NINE, NINE + MINUTE, outbox=outbox(db, queue))
    return db, queue, refused


@pytest.mark.parametrize("body", [nested(10_000), nested(101), {"name": "\ud800"}], ids=["10000-deep", "101-deep", "surrogate"])
def test_a_body_nested_too_deep_or_not_unicode_is_refused_as_body_invalid_and_the_run_goes_on(body):
    db, queue, refused = emitting(body)
    assert refused == ["event.body_invalid"]
    assert run(db.all("SELECT outcome FROM tickwork_runs")) == [{"outcome": "succeeded"}]


def test_a_body_is_measured_in_the_utf8_bytes_it_is_kept_and_sent_in():
    db, queue, refused = emitting({"note": "é" * 60_000})  # 120,011 bytes as JSON; 360,011 escaped
    assert refused == []
    assert [m["body"] for m in queue.messages] == [{"note": "é" * 60_000}]
    [row] = run(db.all("SELECT length(CAST(body AS BLOB)) AS bytes FROM tickwork_events"))
    assert row["bytes"] == 120_011


@pytest.mark.parametrize("body, size, refused", [
    ({"note": "é" * 63_738 + "x"}, LARGEST_BODY, []),
    ({"note": "é" * 63_739}, LARGEST_BODY + 1, ["event.body_too_large"]),  # in fewer characters than that
], ids=["at-the-limit", "a-byte-over"])
def test_a_body_is_kept_up_to_the_largest_a_message_takes_in_utf8_bytes(body, size, refused):
    assert json_text(body)[1] == size
    assert emitting(body)[2] == refused


def test_batches_are_measured_in_the_utf8_bytes_they_are_sent_in():
    db, queue = open_store(), FakeQueue()
    # 100,011 bytes of JSON each: two fit in a batch's 256 KB, three do not (nor one escaped)
    place = placing({"note": "é" * 50_000}, {"note": "ü" * 50_000}, {"note": "ß" * 50_000})
    ticks(db, [place], NINE, NINE + MINUTE, outbox=outbox(db, queue))
    assert [len(batch) for batch in queue.sent] == [2, 1]


def test_a_delivery_to_a_queue_the_app_consumes_waits_on_its_consumer():
    db, queue = open_store(), FakeQueue()
    place = placing({"order": 7})
    ticks(db, [place], NINE, NINE + MINUTE, outbox=outbox(db, queue, consumed_here=True))
    assert deliveries(db)[0]["state"] == "running"


def test_a_send_that_raised_is_outcome_unknown_and_sent_again_by_a_later_ticks_sweep():
    db, queue = open_store(), FakeQueue(failures=1)
    place = placing({"order": 7})
    tick_with(db, place, queue, NINE)
    tick_with(db, place, queue, NINE + MINUTE)
    assert (deliveries(db)[0]["state"], queue.sent) == ("outcome_unknown", [])
    tick_with(db, place, queue, NINE + MINUTE + 30_000)  # the sweep, its backoff of 10 s past
    assert [m["body"] for m in queue.messages] == [{"order": 7}]
    assert [(d["state"], d["attempts"]) for d in deliveries(db)] == [("succeeded", 2)]


def test_the_sweep_does_not_start_once_the_ticks_budget_is_spent():
    db, queue = open_store(), FakeQueue(failures=1)
    place = placing({"order": 7})
    tick_with(db, place, queue, NINE)
    tick_with(db, place, queue, NINE + MINUTE)  # outcome_unknown: the sweep's from 10 s later
    readings = iter([0.0])

    def spent_after_the_first_step():
        return next(readings, 15 * 60.0)  # the tick's start, then past its 14 minutes

    at = NINE + MINUTE + 30_000
    ticks(db, [place], at, outbox=outbox(db, queue, at=at), monotonic=spent_after_the_first_step)
    assert queue.sent == [] and deliveries(db)[0]["state"] == "outcome_unknown"
    tick_with(db, place, queue, at + 10_000)  # the next tick's sweep sends it
    assert [m["body"] for m in queue.messages] == [{"order": 7}]


def set_aside(db, at):
    """Two deliveries whose sends raised (`outcome_unknown`): one dismissed, one cancelled."""
    queue = FakeQueue(failures=1)
    place = placing({"order": 1}, {"order": 2})
    ticks(db, [place], at - MINUTE, at, outbox=outbox(db, queue, at=at))
    dismissed, cancelled = sorted(deliveries(db), key=lambda d: d["body"])
    operator = OperatorStore(db)
    assert run(operator.change("dismiss", dismissed["id"], "ada", at)).changed
    assert run(operator.change("cancel", cancelled["id"], "ada", at)).changed
    return queue, [dismissed, cancelled]


def test_a_delivery_dismissed_or_cancelled_is_never_sent_again():
    db = open_store()
    queue, _ = set_aside(db, NINE)
    for at in (NINE + MINUTE, NINE + 2 * HOUR, NINE + 2 * DAY):  # past every backoff and lease
        ticks(db, [], at, outbox=outbox(db, queue, at=at))
    assert queue.sent == []
    assert [d["state"] for d in sorted(deliveries(db), key=lambda d: d["body"])] == ["dismissed", "cancelled"]


def test_a_message_of_a_delivery_dismissed_or_cancelled_is_acked_without_calling_the_consumer(shop):
    _, set_apart = set_aside(shop, NINE)
    messages = [Message(envelope(Delivery(d["id"], "EVENTS", d["name"], d["body"])), id=d["id"]) for d in set_apart]
    consumed(shop, messages, now=NINE + MINUTE)
    assert [(m.acked, m.retried) for m in messages] == [(True, False)] * 2
    assert run(shop.all("SELECT COUNT(*) AS n FROM shipments")) == [{"n": 0}]


def test_a_set_aside_deliverys_message_is_acked_unrun_as_long_as_a_queue_redelivers_whatever_the_retention(shop):
    _, set_apart = set_aside(shop, NINE)
    later = NINE + 13 * DAY  # a queue may still redeliver it; run records are kept a day here
    run(housekeeping(shop, Budget(shop, later, later, MINUTE, lambda: 0.0, None), "tick", DAY))
    messages = [Message(envelope(Delivery(d["id"], "EVENTS", d["name"], d["body"])), id=d["id"]) for d in set_apart]
    consumed(shop, messages, now=later)
    assert [(m.acked, m.retried) for m in messages] == [(True, False)] * 2
    assert run(shop.all("SELECT COUNT(*) AS n FROM shipments")) == [{"n": 0}]


class Killed(Outbox):
    """The Worker dies between the commit and the send."""

    async def send(self, deliveries, sender):
        pass


def test_a_worker_killed_between_the_commit_and_the_send_is_delivered_by_the_next_ticks_sweep():
    db, queue = open_store(), FakeQueue()
    place = placing({"order": 7})
    ticks(db, [place], NINE)
    ticks(db, [place], NINE + MINUTE, outbox=Killed(db, {"EVENTS": queue}, frozenset(), lambda: NINE + MINUTE))
    assert queue.sent == [] and deliveries(db)[0]["state"] == "running"
    at = NINE + MINUTE + SEND_WINDOW  # the claim of the killed sender has lapsed
    ticks(db, [], at, outbox=outbox(db, queue, at=at))  # nothing else due: the sweep alone
    assert [m["body"] for m in queue.messages] == [{"order": 7}]
    assert deliveries(db)[0]["state"] == "succeeded"


def test_the_sweep_leases_what_it_claims_as_the_tick_leases_all_it_takes():
    """The sweep's claim lasts as Budget.until(0) has it (a send made at once, with the grace every
    lease has), on the tick's clock even where the outbox's own reads another time."""
    db, queue = open_store(), FakeQueue()
    place = placing({"order": 7})
    ticks(db, [place], NINE)
    ticks(db, [place], NINE + MINUTE, outbox=Killed(db, {"EVENTS": queue}, frozenset(), lambda: NINE + MINUTE))
    began = NINE + MINUTE + SEND_WINDOW  # the claim of the killed sender has lapsed
    ticks(db, [], began, started_at=began, outbox=Killed(db, {"EVENTS": queue}, frozenset(), lambda: began + HOUR))
    budget = Budget(db, began, began, MINUTE, lambda: 0.0, None)
    assert deliveries(db)[0]["lease_until"] == budget.until(0) == began + SEND_WINDOW
    assert SEND_WINDOW == LEASE_GRACE


def test_a_tick_with_nothing_to_send_or_run_still_makes_two_statements():
    db, queue = open_store(), FakeQueue()
    place = placing({"order": 7})
    ticks(db, [place], NINE, NINE + MINUTE, outbox=outbox(db, queue))
    before = db.statements_run
    ticks(db, [place], NINE + MINUTE + 10_000, outbox=outbox(db, queue))
    assert db.statements_run - before == 2


def test_one_tick_sends_a_hundred_events_in_one_batch_and_records_them_in_one_statement():
    db, queue = open_store(), FakeQueue()
    place = placing(*({"order": n} for n in range(100)))
    ticks(db, [place], NINE)
    before = db.statements_run
    ticks(db, [place], NINE + MINUTE, outbox=outbox(db, queue))
    assert [len(batch) for batch in queue.sent] == [100]
    # the first read; leases and starts; ends, events and deliveries; what the sends came to
    assert db.statements_run - before == 2 + 2 + 3 + 1


async def shipping():
    handled.write("INSERT INTO shipments (order_id) VALUES (?1)", call.input["order"])


SHIPPING = Consumer("tickwork-events", shipping, max_retries=2)


def consumed(db, messages, consumer=SHIPPING, now=NINE):
    run(consume(db, consumer, messages, now))
    return messages


@pytest.fixture
def shop():
    db = open_store()
    run(db.all("CREATE TABLE shipments (order_id INTEGER)"))
    return db


def sent_to_ourselves(db):
    queue = FakeQueue()
    ticks(db, [placing({"order": 7})], NINE, NINE + MINUTE, outbox=outbox(db, queue, consumed_here=True))
    return queue.messages[0]


def test_a_consumer_that_succeeded_leaves_a_handled_record_with_its_own_writes(shop):
    body = sent_to_ourselves(shop)
    [message] = consumed(shop, [Message(body)])
    assert message.acked
    assert run(shop.all("SELECT order_id FROM shipments")) == [{"order_id": 7}]
    assert deliveries(shop)[0]["state"] == "succeeded"


def test_a_message_delivered_twice_is_handled_once(shop):
    body = sent_to_ourselves(shop)
    consumed(shop, [Message(body, id="m-1")])
    [again] = consumed(shop, [Message(body, id="m-2")])
    assert again.acked
    assert run(shop.all("SELECT COUNT(*) AS n FROM shipments")) == [{"n": 1}]


def test_a_message_redelivered_days_after_its_event_went_is_still_handled_once(shop):
    body = sent_to_ourselves(shop)
    consumed(shop, [Message(body, id="m-1")])
    later = NINE + 4 * DAY  # a queue's default retention: it may redeliver until then
    run(housekeeping(shop, Budget(shop, later, later, MINUTE, lambda: 0.0, None), "tick"))
    assert run(shop.all("SELECT COUNT(*) AS n FROM tickwork_events")) == [{"n": 0}]  # gone after 24 hours
    [again] = consumed(shop, [Message(body, id="m-2")], now=later)
    assert again.acked
    assert run(shop.all("SELECT COUNT(*) AS n FROM shipments")) == [{"n": 1}]


def test_a_handled_batch_that_timed_out_after_it_committed_is_acked_and_says_so(shop, caplog):
    from faults import Faulty, at

    body = sent_to_ourselves(shop)
    with caplog.at_level(logging.WARNING, logger="tickwork"):
        [message] = consumed(Faulty(shop, at("consume"), landed=True), [Message(body)])
    assert message.acked and not message.retried
    assert run(shop.all("SELECT COUNT(*) AS n FROM shipments")) == [{"n": 1}]
    assert "that batch landed all the same (a timeout after commit)" in caplog.text and "acked" in caplog.text


def test_a_delivery_set_aside_while_its_consumer_ran_is_acked_and_the_log_says_so_not_that_it_was_handled(shop, caplog):
    from faults import Faulty, Meanwhile, at

    place = placing({"order": 1})
    ticks(shop, [place], NINE - MINUTE, NINE, outbox=outbox(shop, FakeQueue(failures=1)))
    [unknown] = deliveries(shop)  # its send raised: a message of it may be in the queue all the same
    message = Message(envelope(Delivery(unknown["id"], "EVENTS", unknown["name"], unknown["body"])))

    async def the_operator_dismisses_it():
        assert (await OperatorStore(shop).change("dismiss", unknown["id"], "ada", NINE + MINUTE)).changed

    lost = Meanwhile(Faulty(shop, at("consume")), at("consume"), the_operator_dismisses_it)
    with caplog.at_level(logging.WARNING, logger="tickwork"):
        consumed(lost, [message], now=NINE + MINUTE)
    assert message.acked and not message.retried
    assert run(shop.all("SELECT COUNT(*) AS n FROM tickwork_handled")) == [{"n": 0}]
    assert "set aside by an operator" in caplog.text and "landed all the same" not in caplog.text


def test_two_deliveries_of_one_message_handled_at_once_do_the_work_once(shop):
    body = sent_to_ourselves(shop)

    async def both():
        await asyncio.gather(consume(shop, SHIPPING, [Message(body, id="a")], NINE),
                             consume(shop, SHIPPING, [Message(body, id="b")], NINE))

    run(both())
    assert run(shop.all("SELECT COUNT(*) AS n FROM shipments")) == [{"n": 1}]


async def broken():
    handled.write("INSERT INTO shipments (order_id) VALUES (?1)", call.input["order"])
    raise RuntimeError("the carrier is down")


def test_a_consumer_that_raises_is_retried_and_its_delivery_fails_once_the_retries_are_spent(shop):
    body = sent_to_ourselves(shop)
    breaking = Consumer("tickwork-events", broken, max_retries=2)
    for attempts in (1, 2):
        [message] = consumed(shop, [Message(body, attempts=attempts)], breaking)
        assert message.retried and deliveries(shop)[0]["state"] == "running"
    consumed(shop, [Message(body, attempts=3)], breaking)
    delivery = deliveries(shop)[0]
    assert (delivery["state"], delivery["last_error"]) == ("failed", "RuntimeError: the carrier is down")
    assert run(shop.all("SELECT COUNT(*) AS n FROM shipments")) == [{"n": 0}]


def test_a_message_tickwork_did_not_send_is_handled_once_by_its_message_id(shop):
    consumed(shop, [Message({"order": 3}, id="foreign-1")])
    consumed(shop, [Message({"order": 3}, id="foreign-1")])
    assert run(shop.all("SELECT order_id FROM shipments")) == [{"order_id": 3}]


# Found in the review of issues 8 and 9 (tests/test_defects_found_in_review.py, split by rule).
CALLED: list = []


async def counting_shipper():
    CALLED.append(call.input)
    handled.write("INSERT INTO shipments (order_id) VALUES (?1)", 7)


def test_a_delivery_sent_twice_into_one_batch_calls_its_consumer_once():
    db = open_store()
    run(db.all("CREATE TABLE shipments (order_id INTEGER)"))
    body = sent_to_ourselves(db)  # sent again after an outcome_unknown: two messages, one delivery
    CALLED.clear()
    first, second = Message(body, id="m-1"), Message(body, id="m-2")
    run(consume(db, Consumer("tickwork-events", counting_shipper), [first, second], NINE))
    assert first.acked and second.acked
    assert len(CALLED) == 1


def emitting_events(name, count, pad=0):
    async def emit():
        for k in range(count):
            await order_placed.emit({"k": k, "pad": "x" * pad})

    return Schedule(name, Every(MINUTE), emit)


def test_a_run_emitting_twenty_large_events_keeps_its_end_and_its_events():
    import sqlite3

    from helpers import runs

    db, queue = open_store(), FakeQueue()
    db._conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 2_000_000)  # D1: 2,000,000 bytes a string or row
    place = [emitting_events("place", 20, pad=100_000)]  # each body within what emit allows
    ticks(db, place, NINE)
    clock = [0.0]

    async def sleep(seconds):
        clock[0] += seconds

    ticks(db, place, NINE + MINUTE, outbox=outbox(db, queue, at=NINE + MINUTE), sleep=sleep,
          monotonic=lambda: clock[0])
    assert [r["outcome"] for r in runs(db, "place")] == ["succeeded"]
    assert len(deliveries(db)) == 20


def test_an_outbox_made_without_a_clock_sends_on_the_wall_clock():
    """Its clock is optional: left out, the sends are recorded at the wall time (it raised,
    None not being callable, at the first send)."""
    db, queue = open_store(), FakeQueue()
    box = Outbox(db, {"EVENTS": queue})
    rows = box.rows([order_placed_emitted()], None, "fetch", NINE)
    run(db.batch(OutboxStore.emitting(rows)))
    run(box.send(Outbox.deliveries(rows), "fetch"))
    assert [m["body"] for m in queue.messages] == [{"order": 7}]
    assert deliveries(db)[0]["state"] == "succeeded"
    assert deliveries(db)[0]["updated_at"] > NINE  # the wall clock's, today, not the emitting's


def order_placed_emitted():
    from tickwork.events import Emitted

    return Emitted("order_placed", "EVENTS", '{"order": 7}')
