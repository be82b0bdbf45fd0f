"""Queue consumers: each message of a queue goes to the consumer the app declares for it, at least
once and safe to repeat.

    from tickwork import call, consumer, handled

    @consumer("tickwork-events")                  # a queue the Worker consumes (wrangler.toml)
    async def on_event():
        order = call.input                        # the event's body; call.event its name
        handled.write("INSERT INTO shipments (order_id) VALUES (?1)", order["order"])

A consumer that returns leaves a handled record for the message's delivery, committed in one
batch with what it wrote through `handled.write` and what it emitted, so a crash between the two
cannot make a repeat do the work twice; a message whose delivery has one (or was set aside by an
operator) is acked without calling the consumer. Only the store's database is written so:
`handled.write` runs there, and what a consumer writes to another database itself is done at
least once. Handled records are kept 14 days, as long as a
queue can redeliver a message (housekeeping.HANDLED_KEPT). One that raises is retried by the
queue, with its delay; once the queue's `max_retries` are spent, its delivery is `failed` with
the error.
"""

from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass
from typing import Protocol

from ..context import new_trace, running
from ..database import Database, one_invocation, operation
from ..model import Consumer
from ..store.outbox import OutboxStore
from ..kinds import Call
from . import CONSUMER_WAIT, Outbox

log = logging.getLogger("tickwork")


class Message(Protocol):
    """A queue message, as the adapter hands it over."""

    id: str
    body: object
    attempts: int

    def ack(self) -> None: ...

    def retry(self) -> None: ...


@dataclass(frozen=True)
class Received:
    """A message read: the key its handled record is kept under, its event, its body, and the
    trace the consumer's call goes on in."""

    key: str
    event: str | None
    body: object
    trace: str


def received(message: Message) -> Received:
    """A message tickwork sent carries its delivery's id, and the trace of what emitted it, which
    the consumer's call continues; any other is keyed by its message id, in a trace of its own."""
    body = message.body
    if isinstance(body, dict) and body.get("tickwork") == 1 and "delivery" in body:
        trace = body.get("trace")
        return Received(body["delivery"], body.get("event"), body.get("body"),
                        trace if isinstance(trace, str) and trace else new_trace())
    return Received(f"message:{message.id}", None, body, new_trace())


@one_invocation()
async def consume(db: Database, consumer: Consumer, messages: list[Message], now: int, outbox: Outbox | None = None,
                  clock=None) -> None:
    """Deals with one batch of a queue's messages: acked once handled, retried otherwise."""
    store = OutboxStore(db)
    read = [(message, received(message)) for message in messages]
    try:
        done = await store.handled_already([r.key for _, r in read])
    except Exception:
        log.exception("%s: the handled records could not be read; the batch is retried", consumer.queue,
                      extra={"event": "consumer_read_failed"})
        for message in messages:
            message.retry()
        return
    for message, what in read:
        if what.key in done:
            if done[what.key]:
                log.info("%s: %s was set aside by an operator; acked without calling the consumer",
                         consumer.queue, what.key, extra={"event": "delivery_set_aside"})
            message.ack()  # delivered again: the consumer dealt with it already
            continue
        if await _one(store, consumer, message, what, now, outbox, clock or (lambda: now)):
            done[what.key] = False  # sent twice in one batch: the second is acked without a call


@operation("consume")
async def _one(store: OutboxStore, consumer: Consumer, message: Message, what: Received, now: int,
               outbox: Outbox | None, clock) -> bool:
    """Calls the consumer and commits what it did; True once the delivery is handled."""
    emitted: list = []
    writes: list = []
    try:
        with running(now, Call(input=what.body), outbox=emitted, writes=writes, trace=what.trace):
            await consumer.action()
    except Exception as error:
        spent = message.attempts > consumer.max_retries
        detail = f"{type(error).__name__}: {error}"
        log.error("%s: the consumer raised on %s (attempt %d%s): %s (trace %s)\n%s", consumer.queue, what.key,
                  message.attempts, ", the last" if spent else "", detail, what.trace,
                  "".join(traceback.format_exception(error)), extra={"event": "consumer_failed", "trace": what.trace})
        try:
            await store.raised(what.key, detail, clock(), spent, clock() + CONSUMER_WAIT)
        except Exception:
            log.exception("%s: the failure of %s could not be recorded", consumer.queue, what.key,
                          extra={"event": "consumer_failure_unrecorded", "trace": what.trace})
        message.retry()
        return False
    rows = outbox.rows(emitted, None, _sender(what.key), clock(), what.trace) if outbox and emitted else []
    try:
        await store.db.batch(list(writes) + store.handling(what.key, clock(), what.trace) + OutboxStore.emitting(rows))
    except Exception as error:
        meanwhile = await _handled_meanwhile(store, what.key)
        if what.key in meanwhile:
            if meanwhile[what.key]:
                log.warning("%s: D1 answered an error (%s) to the batch that records %s as handled, and it "
                            "was set aside by an operator meanwhile: it never runs again; acked",
                            consumer.queue, error, what.key,
                            extra={"event": "consumer_set_aside_meanwhile", "trace": what.trace})
            else:
                log.warning("%s: D1 answered an error (%s) to the batch that records %s as handled, and it "
                            "is handled: that batch landed all the same (a timeout after commit), or another "
                            "delivery of it was handled first and this one's work was undone; acked",
                            consumer.queue, error, what.key,
                            extra={"event": "consumer_handled_meanwhile", "trace": what.trace})
            message.ack()
            return True
        log.error("%s: %s was handled but could not be recorded (%s); the queue retries it",
                  consumer.queue, what.key, error, extra={"event": "consumer_unrecorded", "trace": what.trace})
        message.retry()
        return False
    message.ack()
    log.info("%s: handled %s (trace %s)", consumer.queue, what.key, what.trace,
             extra={"event": "consumer_handled", "trace": what.trace})
    if rows and outbox is not None:  # rows are made only with an outbox
        try:
            await outbox.send(Outbox.deliveries(rows), _sender(what.key))
        except Exception:
            log.exception("%s: what the consumer emitted was kept but not sent; the sweep sends it", consumer.queue,
                          extra={"event": "sent_later", "trace": what.trace})
    return True


async def _handled_meanwhile(store: OutboxStore, key: str) -> dict[str, bool]:
    try:
        return await store.handled_already([key])
    except Exception:
        return {}


def _sender(key: str) -> str:
    return f"consumer:{key}"
