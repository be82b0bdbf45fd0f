"""The wake queue's messages (tick/wakes.py): each batch is one tick, at the latest moment its
wakes are for, in the queue's invocation. It takes the leases any tick takes, so a wake whose
run the minute tick or another wake made already makes nothing more, and a wake delivered twice
or late is harmless: its tick finds nothing due. It sends wakes only for the retries its own runs
put before the next minute tick. Nothing runs before its time: a wake delivered early ticks at
the clock's time, as does one delivered more than a few seconds late. Its messages are acked
once the tick ends, whatever its runs came to (those are recorded as any tick's); a tick that
failed outright is retried by the queue.
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable, Sequence

from ..database import Database
from ..tick.wakes import DelayedQueue, Wakes, wake_of
from ..times import SECOND, iso
from .consumers import Message

log = logging.getLogger("tickwork")

EARLY_MOST = 5 * SECOND  # a wake delivered before its moment waits for it, up to this
LATE_MOST = 5 * SECOND  # a wake delivered after its moment ticks at it, up to this (Queues' own latency)


async def consume_wakes(db: Database, app: Any, messages: Sequence[Message], *, queue: DelayedQueue,
                        clock: Callable[[], int], sleep: Callable[[float], Awaitable[Any]], cap: int,
                        outbox: Any = None, settings: dict | None = None, **options: Any) -> Any:
    """Ticks at the latest moment the batch's wakes are for (at the clock's time where the moment is
    ahead of it or over LATE_MOST behind); its report, or None where it did not tick. `options` are the
    tick's own (a test's `monotonic`)."""
    from ..invocation import run_pages_of, schema_current
    from ..tick import WORKER_TICK_BUDGET, tick

    ats = [at for at in (wake_of(message.body) for message in messages) if at is not None]
    for message in messages:
        if wake_of(message.body) is None:
            log.warning("the wake queue holds a message that is no wake (%s); acked", message.id,
                        extra={"event": "wake_invalid"})
            message.ack()
    if not ats:
        return None
    at = max(ats)
    if 0 < at - clock() <= EARLY_MOST:
        await sleep((at - clock()) / 1000)
    # Delivered early (no queue should), nothing runs before its time. Later than LATE_MOST (a
    # backlog, a retried batch), at the clock's time: its runs see the time they run at, and its
    # leases reach no further past its time than any tick's (lease_reach, kept for good, is the
    # lapsed leases' window every later tick reads).
    at = clock() if clock() - at > LATE_MOST else min(at, clock())
    report = None
    try:
        if await schema_current(db, app, at):
            report = await tick(
                db, app.declared, at, budget=WORKER_TICK_BUDGET, started_at=clock(), max_statements=cap,
                outbox=outbox, retention=app.retention, settings=settings, alerts=app.alerts,
                run_pages=run_pages_of(app), wakes=Wakes(queue, clock, minute=False), sleep=sleep, **options,
            )
    except Exception:  # D1 failed the tick's first read: the queue delivers the wake again
        log.exception("the wake's tick at %s failed; the queue delivers it again", iso(at),
                      extra={"event": "wake_failed"})
        for message in messages:
            if wake_of(message.body) is not None:
                message.retry()
        return None
    for message in messages:
        if wake_of(message.body) is not None:
            message.ack()
    return report
