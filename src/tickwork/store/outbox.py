"""The outbox's events, deliveries and handled records, kept in the app's D1 database.

A delivery is claimed before it is sent (`running`, leased to a sender), so of two senders at
once one sends it; what a sender learnt is written only while the lease is still its own.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..database import Database, Row, Statement
from .sql import json_chunks, json_rows

SET_ASIDE_STATES = "('dismissed', 'cancelled')"


def new_deliveries(id: str, event: str, queue: str, sender: str, lease_until: str, at: str) -> str:
    """The head of a statement keeping deliveries (each value SQL): each begins `running`, its
    first attempt leased to the sender that sends it next, as the sweep would lease it."""
    return (f"INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, lease_run, lease_until, updated_at)\n"
            f"SELECT {id}, {event}, {queue}, 'running', 1, {sender}, {lease_until}, {at}")


@dataclass(frozen=True)
class Emitted:
    """An event emitted, to keep with its delivery, which goes out leased to `sender` until
    `lease_until`; `run` the run that emitted it (None outside a run), `trace` what emitted it."""

    id: str
    name: str
    body: str
    run: str | None
    queue: str
    delivery: str
    sender: str
    lease_until: int
    at: int
    trace: str | None = None

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "id", "name", "body", "run", "queue", "delivery", "sender", "lease_until", "at", "trace")

    def row(self) -> list[object]:
        """The event as EMITTED reads it, column by column (COLUMNS)."""
        return [getattr(self, column) for column in self.COLUMNS]


EMITTED = json_rows(*Emitted.COLUMNS)

# With a run's end, in its batch: only where that end landed as `succeeded`. Outside a run
# (`run` NULL), always. The deliveries go out leased to the sender that sends them next.
RECORD_EVENTS = f"""
{EMITTED}
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT j.id, j.name, j.body, j.run, j.at, j.trace FROM j
WHERE j.run IS NULL OR EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.id = j.run AND r.outcome = 'succeeded')
ON CONFLICT (id) DO NOTHING
"""

RECORD_DELIVERIES = f"""
{EMITTED}
{new_deliveries("j.delivery", "j.id", "j.queue", "j.sender", "j.lease_until", "j.at")}
FROM j JOIN tickwork_events AS e ON e.id = j.id
WHERE true
ON CONFLICT (id) DO NOTHING
"""

# The sweep: deliveries to send by now, and running ones past their lease, oldest first, each
# looked up through its own index; claimed for this sender in the same statement.
SWEEP = """
UPDATE tickwork_deliveries
SET state = 'running', lease_run = ?2, lease_until = ?3, attempts = attempts + 1, updated_at = ?1
WHERE id IN (
    SELECT id FROM (
        SELECT id, next_attempt_at AS since FROM tickwork_deliveries
        WHERE state IN ('pending', 'outcome_unknown') AND next_attempt_at <= ?1
        UNION ALL
        SELECT id, lease_until AS since FROM tickwork_deliveries
        WHERE state = 'running' AND lease_until <= ?1
    ) ORDER BY since LIMIT CAST(?4 AS INTEGER))
  AND (state IN ('pending', 'outcome_unknown') OR lease_until <= ?1)
RETURNING id, queue, attempts,
  (SELECT name FROM tickwork_events WHERE id = event) AS name,
  (SELECT body FROM tickwork_events WHERE id = event) AS body,
  (SELECT trace FROM tickwork_events WHERE id = event) AS trace
"""

@dataclass(frozen=True)
class Sent:
    """What a send came to, to record."""

    id: str
    sender: str
    state: str
    lease_until: int | None = None
    next_attempt: int | None = None
    error: str | None = None

    COLUMNS: ClassVar[tuple[str, ...]] = ("id", "sender", "state", "lease_until", "next_attempt", "error")

    def row(self) -> list[object]:
        """What the send came to as RECORD_SENT reads it, column by column (COLUMNS)."""
        return [getattr(self, column) for column in self.COLUMNS]


SENT = json_rows(*Sent.COLUMNS)

# What a send came to: succeeded, running (on to a consumer of the app's, until the lease),
# pending or outcome_unknown (sent again from `next_attempt`). Only while it is this sender's.
RECORD_SENT = f"""
{SENT}
UPDATE tickwork_deliveries AS d
SET state = j.state, lease_until = j.lease_until, next_attempt_at = j.next_attempt,
    lease_run = CASE WHEN j.state = 'running' THEN j.sender END, last_error = j.error, updated_at = ?2
FROM j WHERE d.id = j.id AND d.state = 'running' AND d.lease_run = j.sender
"""

# The messages a consumer is done with: handled already (by delivery id, or message id), or of
# a delivery an operator set aside (dismissed or cancelled), which never runs again.
HANDLED_ALREADY = f"""
SELECT delivery, 0 AS set_aside FROM tickwork_handled WHERE delivery IN (SELECT value FROM json_each(?1))
UNION ALL
SELECT id, 1 FROM tickwork_deliveries WHERE id IN (SELECT value FROM json_each(?1)) AND state IN {SET_ASIDE_STATES}
"""

# No ON CONFLICT: of two consumers handling one delivery at once, the second's batch fails
# whole, its own writes with it. ?3 is the trace the consumer's call continued.
RECORD_HANDLED = "INSERT INTO tickwork_handled (delivery, handled_at, trace) VALUES (?1, ?2, ?3)"

DELIVERY_SUCCEEDED = f"""
UPDATE tickwork_deliveries
SET state = 'succeeded', lease_run = NULL, lease_until = NULL, last_error = NULL, updated_at = ?2
WHERE id = ?1 AND state NOT IN {SET_ASIDE_STATES}
"""

# A consumer that raised: the queue retries the message; the delivery keeps waiting on it (its
# lease moved on), or is `failed` once the queue's retries are spent.
DELIVERY_RAISED = """
UPDATE tickwork_deliveries
SET last_error = ?2, updated_at = ?3,
    state = CASE WHEN ?4 THEN 'failed' ELSE state END,
    lease_until = CASE WHEN ?4 THEN NULL ELSE ?5 END,
    lease_run = CASE WHEN ?4 THEN NULL ELSE lease_run END
WHERE id = ?1 AND state IN ('running', 'pending', 'outcome_unknown')
"""

SELECT_DELIVERIES_WITH_EVENTS = """
SELECT d.*, e.name, e.body, e.run FROM tickwork_deliveries AS d JOIN tickwork_events AS e ON e.id = d.event
ORDER BY e.emitted_at, d.id
"""


@dataclass(frozen=True)
class Delivery:
    """A delivery to send: its event's name and body (JSON), through the binding `queue`."""

    id: str
    queue: str
    name: str
    body: str
    attempts: int = 1
    trace: str | None = None  # the trace of what emitted it, carried by the message


class OutboxStore:
    def __init__(self, db: Database):
        self.db = db

    @staticmethod
    def emitting(rows: Sequence[Emitted]) -> list[Statement]:
        """The statements that keep emitted events and their deliveries."""
        statements: list[Statement] = []
        for chunk in json_chunks([r.row() for r in rows]):
            statements += [(RECORD_EVENTS, (chunk,)), (RECORD_DELIVERIES, (chunk,))]
        return statements

    async def sweep(self, now: int, sender: str, lease_until: int, most: int) -> list[Delivery]:
        """Claims for `sender` the deliveries left to send, oldest first, at most `most`."""
        rows = await self.db.all(SWEEP, (now, sender, lease_until, most))
        return [Delivery(r["id"], r["queue"], r["name"], r["body"], int(r["attempts"]), r["trace"]) for r in rows]

    async def sent(self, outcomes: list[Sent], now: int) -> None:
        """Records what sends came to, in one batch."""
        rows = [s.row() for s in outcomes]
        await self.db.batch([(RECORD_SENT, (chunk, now)) for chunk in json_chunks(rows)])

    async def handled_already(self, deliveries: list[str]) -> dict[str, bool]:
        """Of `deliveries`, those a consumer is done with, each True where an operator set it aside."""
        rows = await self.db.all(HANDLED_ALREADY, (json.dumps(deliveries),))
        done: dict[str, bool] = {}
        for row in rows:
            done[row["delivery"]] = done.get(row["delivery"], False) or bool(row["set_aside"])
        return done

    @staticmethod
    def handling(delivery: str, now: int, trace: str | None = None) -> list[Statement]:
        """The statements that say a consumer handled `delivery` (in `trace`), for its batch."""
        return [(RECORD_HANDLED, (delivery, now, trace)), (DELIVERY_SUCCEEDED, (delivery, now))]

    async def raised(self, delivery: str, error: str, now: int, spent: bool, wait_until: int) -> None:
        await self.db.all(DELIVERY_RAISED, (delivery, error, now, spent, wait_until))

    async def deliveries(self) -> list[Row]:
        return await self.db.all(SELECT_DELIVERIES_WITH_EVENTS)
