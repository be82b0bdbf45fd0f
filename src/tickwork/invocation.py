"""What one cron invocation does: a tick at its scheduled time, and, while the app has queues
bound but no wake queue, another at each 10-second mark of its minute (:10 to :50), so `once`
items and short retries run, and events are swept, as often as a server's own timer would. With
a wake queue (`[tool.tickwork] wakes`, tick/wakes.py) the invocation ticks once and ends: what
runs before the next minute is woken for at its second by a delayed message.
Each tick ends before the next minute's invocation begins; a mark already past when the tick
before it ends is left out.

A nothing-due tick costs 2 D1 statements and writes one row, so a minute of them at the marks
costs 12 and writes 6 (259,200 rows a month), and the invocation's wall time is the minute less
a little; with a wake queue, 2 and 1, and the invocation ends with its tick.
All ticks of an invocation share its statement cap and its budget.
An isolate's first invocation reads the store's schema first, one statement more (none written).
"""

import logging
from typing import Awaitable, Callable, cast

from .app import App
from .database import Database, one_invocation
from .outbox import Outbox
from .store.facade import ScheduleStore
from .store.app_row import out_of_date
from .tick import ENDS_WITH_EVENTS, FIRST_READ, SWEEP, WORKER_TICK_BUDGET, TickReport, tick
from .tick.budget import Invocation
from .tick.wakes import Wakes
from .times import MARK, MINUTE, iso

log = logging.getLogger("tickwork")

# What a tick keeps for each later mark of its invocation, so that a long backfill leaves each its
# tick: the first read, a batch of due runs claimed (2 statements) and ended, the sweep.
MARK_KEPT = FIRST_READ + 2 + ENDS_WITH_EVENTS + SWEEP


def run_pages_of(app: App) -> str | None:
    """The console's page of a run up to its id, where the app sets the console's address
    (`[tool.tickwork] console_url`): what the alerts link to. None without one."""
    address = (app.console or {}).get("url")
    return f"{address.rstrip('/')}/run?id=" if address else None


def marks_ahead(scheduled: int, now: int) -> list[int]:
    """The 10-second marks of the minute of `scheduled` still to come at `now`; none for an
    invocation running outside its minute (a tick by hand at another time, one started late)."""
    if not scheduled <= now < scheduled + MINUTE:
        return []
    return [mark for mark in (scheduled + k * MARK for k in range(1, 6)) if mark >= now]


def ticks_at_marks(app: App, wakes: Wakes | None) -> bool:
    """The one place the 10-second marks are decided: while queues are bound and no wake queue
    is, the marks stay, as the fallback that times `once` items and short retries."""
    return app.has_queues and wakes is None


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
    wakes: Wakes | None = None,
    metrics=None,
) -> list[TickReport]:
    """Ticks at `scheduled`, then at the marks ahead while the app has queues. `clock` is the
    wall clock (epoch ms), `sleep` waits seconds; `cap` is the invocation's D1 statements;
    `settings` the app's, as the invocation began; `wakes` its wake queue, where it binds one;
    `metrics` the Analytics Engine dataset bound."""
    invocation = Invocation(db, clock, WORKER_TICK_BUDGET, cap)
    if not await schema_current(db, app, scheduled):
        return []
    declared = app.declared  # made at an isolate's first tick: a manifest it cannot be made from fails the invocation
    reports = []
    ats = [scheduled] + (marks_ahead(scheduled, invocation.started) if ticks_at_marks(app, wakes) else [])
    for k, at in enumerate(ats):
        if at != scheduled:
            if clock() > at:
                continue  # the tick before ran past this mark
            await sleep((at - clock()) / 1000)
        spent, left = invocation.spent(), invocation.statements_left()
        if spent >= invocation.time or left < FIRST_READ:
            break
        try:
            reports.append(await tick(
                db, declared, at, budget=invocation.time - spent, started_at=clock(),
                max_statements=left, outbox=outbox, retention=app.retention, settings=settings,
                alerts=app.alerts, for_later=MARK_KEPT * (len(ats) - 1 - k), run_pages=run_pages_of(app),
                wakes=wakes, metrics=metrics,
            ))
        except Exception:  # D1 failed the tick's first read: what is due stays due for the next
            log.exception("the tick at %s failed; the invocation ticks on at its next mark", iso(at),
                          extra={"event": "tick_failed"})
    return reports


async def schema_current(db: Database, app: App, scheduled: int) -> bool:
    """Whether the store's tables are at this tickwork's schema, read at an isolate's first
    invocation (and at each while they are not): a Worker deployed before `wrangler d1 migrations
    apply` refuses to tick, saying why, rather than failing at each statement against old tables.
    A read D1 failed tells nothing: the ticks go on, and the next invocation reads again."""
    if app.schema_current:
        return True
    try:
        problem = out_of_date(await ScheduleStore(db).schema(), cast(str, app.store))  # a ticking app binds one
    except Exception:
        log.exception("the store's schema could not be read at %s; the invocation ticks", iso(scheduled),
                      extra={"event": "schema_unread"})
        return True
    if problem:
        log.error("%s; the tick at %s is refused, as is every tick until then", problem, iso(scheduled),
                  extra={"event": "tick_refused"})
        return False
    app.schema_current = True
    return True
