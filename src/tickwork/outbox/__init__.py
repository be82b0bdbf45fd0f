"""Sending what the outbox holds: after what emitted it committed, and again from the sweep.

Messages go out with the Queue binding's batch send (100 messages and 256 KB a batch). A send
that raised may or may not have reached the queue: the delivery is `outcome_unknown` and is sent
again later, since consumers dedupe on its id. A delivery to a queue the app consumes itself
waits on its consumer (`running`, leased) until the handled record says `succeeded`; to any
other queue, a send that went through is all there is to know: `succeeded`.

Beside it in this package: `consumers` (a queue's messages to the app's consumer, and the handled
records that make a repeat do nothing) and `alerts` (failures announced through the outbox).
"""

import json
import logging
import os
import time
from typing import Any, Callable, Iterator, Mapping, Protocol

from ..database import Database, operation
from ..store.outbox import Delivery, Emitted, OutboxStore, Sent
from ..times import HOUR, MINUTE, SECOND

log = logging.getLogger("tickwork")

BATCH_MESSAGES = 100
BATCH_BYTES = 256 * 1024
# A claimed delivery not sent by then is the sweep's again. A send is made at once, so its lease is
# the grace every lease outlives its work by, model.LEASE_GRACE: the tick's Budget.until(0), as the
# sweep is given it (tick/budget.py's Lease). Written out, so that a fetch's sends import no more.
SEND_WINDOW = MINUTE
CONSUMER_WAIT = 15 * MINUTE  # how long a delivery waits on the app's consumer before it is sent again
SWEEP_MOST = 100


class Queue(Protocol):
    async def send_batch(self, bodies: list[dict]) -> None:
        """Sends the bodies as one batch of messages, or raises."""


def envelope(delivery: Delivery) -> dict:
    message = {"tickwork": 1, "delivery": delivery.id, "event": delivery.name, "body": json.loads(delivery.body)}
    if delivery.trace is not None:  # the consumer's call continues it
        message["trace"] = delivery.trace
    return message


def backoff(attempts: int) -> int:
    """The wait before sending again after `attempts` sends: 10 s, 20 s, 40 s, ... at most an hour."""
    return min(10 * SECOND * 2 ** max(attempts - 1, 0), HOUR)


class Outbox:
    def __init__(
        self,
        db: Database,
        queues: Mapping[str, Queue],
        consumed_here: frozenset[str] = frozenset(),
        clock: Callable[[], int] | None = None,
    ):
        """`queues` are the producer bindings by name; `consumed_here` those whose queue the app
        itself consumes; `clock` gives the wall time, epoch ms (by default, the system's)."""
        self.store = OutboxStore(db)
        self.queues = queues
        self.consumed_here = consumed_here
        self.clock: Callable[[], int] = _wall_ms if clock is None else clock

    def rows(self, emitted: list[Any], run: str | None, sender: str, at: int,
             trace: str | None = None) -> list[Emitted]:
        """Records for OutboxStore.emitting: a new event and delivery id for each thing emitted,
        in the `trace` of what emitted it."""
        return [
            Emitted(id=_id(), name=e.event, body=e.body, run=run, queue=e.queue, delivery=_id(), sender=sender,
                    lease_until=at + SEND_WINDOW, at=at, trace=trace)
            for e in emitted
        ]

    @staticmethod
    def deliveries(rows: list[Emitted]) -> list[Delivery]:
        return [Delivery(row.delivery, row.queue, row.name, row.body, trace=row.trace) for row in rows]

    @operation("sweep")
    async def sweep(self, now: int, sender: str, lease_until: int) -> int:
        """The tick's second step: sends what is left to send by `now`, on the invocation's clock,
        as every lease is (a tick's own time may be ahead of it), each claimed till `lease_until`,
        the tick's (Budget.until). Returns how many it sent."""
        deliveries = await self.store.sweep(now, sender, lease_until, SWEEP_MOST)
        await self.send(deliveries, sender)
        return len(deliveries)

    @operation("send")
    async def send(self, deliveries: list[Delivery], sender: str) -> None:
        """Sends deliveries claimed by `sender`, and records what each send came to."""
        outcomes: list[Sent] = []
        for queue, batch in _batches(deliveries):
            outcomes += await self._send(queue, batch, sender)
        if outcomes:
            await self.store.sent(outcomes, self.clock())

    async def _send(self, queue: str, batch: list[Delivery], sender: str) -> list[Sent]:
        binding = self.queues.get(queue)
        now = self.clock()
        if binding is None:
            why = f"no queue is bound as {queue}"
            log.error("%s: %s; the deliveries stay pending", queue, why, extra={"event": "queue_unbound"})
            return [Sent(d.id, sender, "pending", None, now + backoff(d.attempts), why) for d in batch]
        try:
            await binding.send_batch([envelope(d) for d in batch])
        except Exception as error:
            why = f"{type(error).__name__}: {error}"
            log.warning("%s: a send of %d messages raised (%s); they are sent again", queue, len(batch), why,
                        extra={"event": "send_failed"})
            return [Sent(d.id, sender, "outcome_unknown", None, now + backoff(d.attempts), why) for d in batch]
        if queue in self.consumed_here:
            return [Sent(d.id, sender, "running", now + CONSUMER_WAIT) for d in batch]
        return [Sent(d.id, sender, "succeeded") for d in batch]


def _batches(deliveries: list[Delivery]) -> Iterator[tuple[str, list[Delivery]]]:
    """Per queue, batches within the batch send's limits."""
    by_queue: dict[str, list[Delivery]] = {}
    for delivery in deliveries:
        by_queue.setdefault(delivery.queue, []).append(delivery)
    for queue, pending in by_queue.items():
        batch: list[Delivery] = []
        size = 0
        for delivery in pending:
            length = len(json.dumps(envelope(delivery), ensure_ascii=False).encode())  # as a queue is sent it
            if batch and (len(batch) == BATCH_MESSAGES or size + length > BATCH_BYTES):
                yield queue, batch
                batch, size = [], 0
            batch.append(delivery)
            size += length
        if batch:
            yield queue, batch


def _wall_ms() -> int:
    return int(time.time() * 1000)


def _id() -> str:
    return os.urandom(16).hex()


