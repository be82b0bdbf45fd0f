"""What one tick does: run the schedules that are due, once each, and record every run and skip.

The tick is a pipeline of steps (pipeline.py) sharing one TickState (state.py) and one Budget
(budget.py); this module makes them and keeps the names the tick's callers import."""

import asyncio
import os
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable

from ..outbox import alerts as alerting
from ..outbox.alerts import Alerts
from ..database import Database, one_invocation
from .declared import DeclaredSet, declared
from ..model import Schedule
from ..outbox import Outbox
from ..store.facade import ScheduleStore
from ..times import MARK as MARK
from ..kinds import Owing
from . import pipeline
from .budget import (
    ENDS as ENDS, ENDS_WITH_EVENTS as ENDS_WITH_EVENTS, EXPIRE as EXPIRE, FIRST_READ as FIRST_READ,
    RECONCILE as RECONCILE, SWEEP as SWEEP, WORKER_TICK_BUDGET as WORKER_TICK_BUDGET, Budget as Budget,
    Lease as Lease,
)
from .due import statements_for as statements_for
from .ends import RETRY_PAUSES as RETRY_PAUSES, _ends_cost as _ends_cost
from .gap import GAP as GAP
from .housekeeping import RETENTION as RETENTION
from .reports import RunReport as RunReport, TickReport as TickReport
from .state import TickState as TickState
from .wakes import Wakes as Wakes

if TYPE_CHECKING:
    from ..metrics import Dataset


@one_invocation(lambda *_, max_statements=None, **__: max_statements)  # type: ignore[untyped-decorator]
async def tick(
    db: Database,
    schedules: DeclaredSet | Iterable[Schedule],
    now: int,
    *,
    budget: int = WORKER_TICK_BUDGET,
    monotonic: Callable[[], float] = time.monotonic,
    started_at: int | None = None,
    max_statements: int | None = None,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    outbox: Outbox | None = None,
    retention: int = RETENTION,
    settings: dict[str, Any] | None = None,
    alerts: str | None = None,
    for_later: int = 0,
    run_pages: str | None = None,
    wakes: Wakes | None = None,
    metrics: "Dataset | None" = None,
) -> TickReport:
    """Runs one tick at `now` (epoch ms) against `db`.

    `budget` is the tick's time in ms; `monotonic` measures how much of it is spent, in seconds,
    and `sleep` waits between attempts at a write D1 refused. What runs emit goes through
    `outbox` (to the app's queues), written with their ends, and the outbox's sweep is the
    tick's second step; housekeeping, keeping run records `retention` ms, is its last.
    `started_at` is the wall time the invocation began (a cron run may start after its
    `scheduledTime`), from which leases and run records are timed; `now` by default.
    `max_statements` caps the D1 statements the tick makes: due schedules beyond what it leaves
    room for stay due for the next tick, oldest due first. `settings` are the app's (a Worker's
    vars) as the invocation began, which a purge's `after:` may read. `alerts` is the producer
    binding the outbox sends the app's alerts to (alerts.py): schedules failing and recovering,
    ticks stopped; `run_pages`, the console's page of a run up to its id, which the alerts of
    schedules failing and recovering then link to (`run_url`); `wakes`, the app's wake queue, which
    the tick sends a delayed message to for each moment a row runs before the next (wakes.py).
    `for_later` of the statements are left to the ticks after it in its invocation: its backfill
    step does not spend them. `metrics`, an Analytics Engine dataset, is written a data point per
    run and skip (metrics.py).
    """
    spending = Budget(db, now, now if started_at is None else started_at, budget, monotonic, max_statements, for_later)
    alerting_to = None if outbox is None or alerts is None else Alerts(alerts, run_pages)
    flush = (ENDS if outbox is None else ENDS_WITH_EVENTS) + (alerting.TURNS if alerting_to else 0)
    state = TickState(ScheduleStore(db), declared(schedules), now, outbox, alerting_to, os.urandom(16).hex(), flush,
                      sleep, retention, settings or {}, Owing(now), wakes=wakes)
    reports = await pipeline.run(state, spending)
    if metrics is not None and reports:
        from ..metrics import write_points  # at first use: an app binding no dataset never loads it

        write_points(metrics, reports)
    return TickReport(now, reports)
