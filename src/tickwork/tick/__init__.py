"""What one tick does: run the schedules that are due, once each, and record every run and skip."""

import asyncio
import logging
import os
import time
from typing import Awaitable, Callable, Iterable

from .. import alerts as alerting
from ..alerts import Alerts
from ..database import Database, one_invocation
from ..declared import Declared, declared
from ..model import Schedule
from ..outbox import Outbox
from ..schedule_store import ROWS_PER_STATEMENT, ScheduleStore, State, json_chunks
from ..timing import Owing
from .reports import RunReport as RunReport, TickReport as TickReport
from .state import TickState as TickState
from .backfill import backfill
from .rows import schedule_of
from .housekeeping import RETENTION, housekeep
from .gap import GAP as GAP, note_gap
from .due import statements_for as statements_for, run_due
from .ends import RETRY_PAUSES as RETRY_PAUSES, Recorder
from .lapsed import end_lapsed
from .plan import plan
from .reconcile import reconcile, rebase_handed_over
from .runs import Runner
from .sweep import sweep, sweeps
from .budget import (
    ENDS as ENDS, ENDS_WITH_EVENTS as ENDS_WITH_EVENTS, EXPIRE as EXPIRE, FIRST_READ as FIRST_READ,
    RECONCILE as RECONCILE, SWEEP as SWEEP, WORKER_TICK_BUDGET as WORKER_TICK_BUDGET, Budget as Budget,
    Lease as Lease,
)

log = logging.getLogger("tickwork")



@one_invocation(lambda *_, max_statements=None, **__: max_statements)
async def tick(
    db: Database,
    schedules: Declared | Iterable[Schedule],
    now: int,
    *,
    budget: int = WORKER_TICK_BUDGET,
    monotonic: Callable[[], float] = time.monotonic,
    started_at: int | None = None,
    max_statements: int | None = None,
    sleep: Callable[[float], Awaitable] = asyncio.sleep,
    outbox: Outbox | None = None,
    retention: int = RETENTION,
    settings: dict | None = None,
    alerts: str | None = None,
    for_later: int = 0,
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
    ticks stopped. `for_later` of the statements are left to the ticks after it in its invocation:
    its backfill step does not spend them.
    """
    spending = Budget(db, now, now if started_at is None else started_at, budget, monotonic, max_statements, for_later)
    alerting_to = None if outbox is None or alerts is None else Alerts(alerts)
    flush = (ENDS if outbox is None else ENDS_WITH_EVENTS) + (alerting.TURNS if alerting_to else 0)
    state = TickState(ScheduleStore(db), declared(schedules), now, outbox, alerting_to, os.urandom(16).hex(), flush,
                      sleep, retention, settings or {}, Owing(now))
    return await _Tick(state, spending).run()


class _Tick:
    def __init__(self, state: TickState, budget: Budget):
        self.state = state
        self.budget = budget
        self.wall = budget.began
        self.runner = Runner(state, budget, Recorder(state, budget))

    async def run(self) -> TickReport:
        most = None
        if self.budget.cap is not None:  # no more rows than the statements left could claim
            most = max(self.budget.cap - FIRST_READ, 0) // 4 * ROWS_PER_STATEMENT
        states, lapsed = await self.due_states(most)
        states = await end_lapsed(self.state, self.budget, states, lapsed)
        due = await rebase_handed_over(self.state, self.budget, [(schedule, s) for s in states if (schedule := schedule_of(self.state, s)) is not None])
        moments = self.state.declared.claiming_moments
        claims = [(claim, schedule) for schedule, state in due
                  for claim in plan(schedule, state, self.state.now, self.state.owing, clock=self.wall,
                                    claims_moment=schedule.name in moments)]
        if sweeps(self.state, self.budget):
            self.budget.hold("sweep", SWEEP)  # the steps before the sweep leave it its statements
        reports = await run_due(self.state, self.budget, self.runner, claims)
        if self.state.backfill_pending:
            reports += await backfill(self.state, self.budget, self.runner.run, lambda row: schedule_of(self.state, row))
        self.budget.release("sweep")
        await sweep(self.state, self.budget)
        await housekeep(self.state, self.budget)
        return TickReport(self.state.now, reports)

    async def due_states(self, most: int | None) -> tuple[list[State], bool]:
        """The rows due now, oldest first, and whether a run's lease lapsed. Only when the
        declared set changed since the rows were last reconciled with it are they reconciled."""
        reached = await self.state.store.reach(self.state.now, self.budget.lease_reach(), most, self.wall)
        self.state.sweep_at = reached.sweep_at
        self.state.lapse_from = reached.lapse_from
        self.state.housekeeping_due = reached.housekeeping_due
        self.state.backfill_pending = reached.backfill_pending
        await note_gap(self.state, self.budget, reached.prev_tick, reached.prev_clock)
        fingerprint = self.state.declared.fingerprint
        if reached.fingerprint == fingerprint:
            return reached.due, reached.lapsed
        if not self.budget.fits(len(json_chunks(self.state.declared.names)) + RECONCILE):
            log.warning("the declared schedules changed, and reconciling them takes more statements "
                        "than this tick has left; a later tick does it")
            return [], reached.lapsed
        await reconcile(self.state, fingerprint)
        return await self.state.store.due(self.state.now, most), reached.lapsed
