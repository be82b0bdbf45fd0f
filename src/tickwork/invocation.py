"""What one cron invocation does: a tick at its scheduled time, and, while the app has queues
bound, another at each 10-second mark of its minute (:10 to :50), so queues are read and events
swept as often as a server's own timer would. Each ends before the next minute's invocation
begins; a mark already past when the tick before it ends is left out.

A nothing-due tick costs 2 D1 statements and writes one row, so a minute of them costs 12 and
writes 6 (259,200 rows a month), and the invocation's wall time is the minute less a little.
All ticks of an invocation share its statement cap and its budget.
"""

import logging
from typing import Awaitable, Callable

from .app import App
from .database import Database, one_invocation
from .outbox import Outbox
from .tick import FIRST_READ, WORKER_TICK_BUDGET, TickReport, tick
from .times import MINUTE, SECOND, iso

log = logging.getLogger("tickwork")

MARK = 10 * SECOND


def marks_ahead(scheduled: int, now: int) -> list[int]:
    """The 10-second marks of the minute of `scheduled` still to come at `now`; none for an
    invocation running outside its minute (a tick by hand at another time, one started late)."""
    if not scheduled <= now < scheduled + MINUTE:
        return []
    return [mark for mark in (scheduled + k * MARK for k in range(1, 6)) if mark >= now]


@one_invocation(lambda *_, cap, **__: cap)
async def cron_invocation(
    db: Database,
    app: App,
    scheduled: int,
    *,
    clock: Callable[[], int],
    sleep: Callable[[float], Awaitable],
    cap: int,
    outbox: Outbox | None = None,
    settings: dict | None = None,
) -> list[TickReport]:
    """Ticks at `scheduled`, then at the marks ahead while the app has queues. `clock` is the
    wall clock (epoch ms), `sleep` waits seconds; `cap` is the invocation's D1 statements;
    `settings` the app's, as the invocation began."""
    started, before = clock(), db.statements_run
    declared = app.declared  # made at an isolate's first tick: a manifest it cannot be made from fails the invocation
    reports = []
    for at in [scheduled] + (marks_ahead(scheduled, started) if app.has_queues else []):
        if at != scheduled:
            if clock() > at:
                continue  # the tick before ran past this mark
            await sleep((at - clock()) / 1000)
        spent = clock() - started
        left = cap - (db.statements_run - before)
        if spent >= WORKER_TICK_BUDGET or left < FIRST_READ:
            break
        try:
            reports.append(await tick(
                db, declared, at, budget=WORKER_TICK_BUDGET - spent, started_at=clock(),
                max_statements=left, outbox=outbox, retention=app.retention, settings=settings,
                alerts=app.alerts,
            ))
        except Exception:  # D1 failed the tick's first read: what is due stays due for the next
            log.exception("the tick at %s failed; the invocation ticks on at its next mark", iso(at))
    return reports
