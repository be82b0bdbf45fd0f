"""The outbox (schedules document, "How a schedule runs" and the tick's second step): what a run
emits is delivered after it, never before it succeeded; a send that may not have reached the
queue is sent again; the sweep sends what is left; consumers dedupe on the delivery's id."""

import asyncio

import pytest
from helpers import open_store, run, ticks

from tickwork import EventError, Schedule, call, event, handled
from tickwork.consumers import Consumer, consume
from tickwork.grid import Every
from tickwork.outbox import SEND_WINDOW, Outbox
from tickwork.outbox_store import OutboxStore
from tickwork.times import MINUTE, utc

order_placed = event("order_placed", queue="EVENTS")
NINE = utc("2026-03-02 09:00")


class Queue:
    """A producer binding as the outbox sees it: what it was sent, or a send that raises."""

    def __init__(self, failures: int = 0):
        self.sent: list[list[dict]] = []
        self.failures = failures

    async def send_batch(self, bodies):
        if self.failures:
            self.failures -= 1
            raise ConnectionError("the network went away mid-send")
        self.sent.append(list(bodies))

    @property
    def messages(self):
        return [body for batch in self.sent for body in batch]


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
    db, queue = open_store(), Queue()
    place = placing({"order": 7})
    tick_with(db, place, queue, NINE)
    tick_with(db, place, queue, NINE + MINUTE)
    [delivery] = deliveries(db)
    [emitter] = run(db.all("SELECT trace FROM tickwork_runs"))
    assert queue.messages == [{"tickwork": 1, "delivery": delivery["id"], "event": "order_placed", "body": {"order": 7},
                               "trace": emitter["trace"]}]
    assert (delivery["state"], delivery["attempts"], delivery["name"]) == ("succeeded", 1, "order_placed")


def test_a_failed_run_emits_nothing():
    db, queue = open_store(), Queue()
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

    db, queue = open_store(), Queue()
    ticks(db, [Schedule("place", Every(MINUTE), place)], NINE, NINE + MINUTE, outbox=outbox(db, queue))
    assert refused == ["event.body_too_large"]
    assert [m["body"] for m in queue.messages] == [{"order": 1}]


def test_a_delivery_to_a_queue_the_app_consumes_waits_on_its_consumer():
    db, queue = open_store(), Queue()
    place = placing({"order": 7})
    ticks(db, [place], NINE, NINE + MINUTE, outbox=outbox(db, queue, consumed_here=True))
    assert deliveries(db)[0]["state"] == "running"


def test_a_send_that_raised_is_outcome_unknown_and_sent_again_by_a_later_ticks_sweep():
    db, queue = open_store(), Queue(failures=1)
    place = placing({"order": 7})
    tick_with(db, place, queue, NINE)
    tick_with(db, place, queue, NINE + MINUTE)
    assert (deliveries(db)[0]["state"], queue.sent) == ("outcome_unknown", [])
    tick_with(db, place, queue, NINE + MINUTE + 30_000)  # the sweep, its backoff of 10 s past
    assert [m["body"] for m in queue.messages] == [{"order": 7}]
    assert [(d["state"], d["attempts"]) for d in deliveries(db)] == [("succeeded", 2)]


class Killed(Outbox):
    """The Worker dies between the commit and the send."""

    async def send(self, deliveries, sender):
        pass


def test_a_worker_killed_between_the_commit_and_the_send_is_delivered_by_the_next_ticks_sweep():
    db, queue = open_store(), Queue()
    place = placing({"order": 7})
    ticks(db, [place], NINE)
    ticks(db, [place], NINE + MINUTE, outbox=Killed(db, {"EVENTS": queue}, frozenset(), lambda: NINE + MINUTE))
    assert queue.sent == [] and deliveries(db)[0]["state"] == "running"
    at = NINE + MINUTE + SEND_WINDOW  # the claim of the killed sender has lapsed
    ticks(db, [], at, outbox=outbox(db, queue, at=at))  # nothing else due: the sweep alone
    assert [m["body"] for m in queue.messages] == [{"order": 7}]
    assert deliveries(db)[0]["state"] == "succeeded"


def test_a_tick_with_nothing_to_send_or_run_still_makes_two_statements():
    db, queue = open_store(), Queue()
    place = placing({"order": 7})
    ticks(db, [place], NINE, NINE + MINUTE, outbox=outbox(db, queue))
    before = db.statements_run
    ticks(db, [place], NINE + MINUTE + 10_000, outbox=outbox(db, queue))
    assert db.statements_run - before == 2


def test_one_tick_sends_a_hundred_events_in_one_batch_and_records_them_in_one_statement():
    db, queue = open_store(), Queue()
    place = placing(*({"order": n} for n in range(100)))
    ticks(db, [place], NINE)
    before = db.statements_run
    ticks(db, [place], NINE + MINUTE, outbox=outbox(db, queue))
    assert [len(batch) for batch in queue.sent] == [100]
    # the first read; leases and starts; ends, events and deliveries; what the sends came to
    assert db.statements_run - before == 2 + 2 + 4 + 1


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
    queue = Queue()
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
