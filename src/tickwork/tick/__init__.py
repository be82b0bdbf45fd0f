"""What one tick does: run the schedules that are due, once each, and record every run and skip."""

import asyncio
import logging
import os
import time
from dataclasses import replace
from typing import Awaitable, Callable, Iterable

from .. import alerts as alerting
from ..alerts import Alerts
from ..database import Database, one_invocation, past_the_cap
from ..declared import Declared, declared
from ..model import Code, Kind, Outcome, Schedule
from ..outbox import Outbox
from ..outbox_store import OutboxStore
from ..schedule_store import (
    COALESCED_DETAIL, ROWS_PER_STATEMENT, Claim, Claimed, End, ScheduleStore, State, chunks, json_chunks,
)
from ..timing import Owing
from ..times import iso
from .reports import RunReport as RunReport, TickReport as TickReport
from .state import TickState as TickState
from .backfill import backfill
from .rows import schedule_of
from .housekeeping import RETENTION, housekeep
from .gap import GAP as GAP, note_gap
from .lapsed import end_lapsed
from .plan import plan
from .reconcile import reconcile, rebase_handed_over
from .runs import Ended, Runner
from .sweep import send, sweep, sweeps
from .budget import (
    ENDS as ENDS, ENDS_WITH_EVENTS as ENDS_WITH_EVENTS, EXPIRE as EXPIRE, FIRST_READ as FIRST_READ,
    RECONCILE as RECONCILE, SWEEP as SWEEP, WORKER_TICK_BUDGET as WORKER_TICK_BUDGET, Budget as Budget,
    Lease as Lease, chunked,
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


# A write that must land (runs' ends) is tried again at once, then after these pauses (seconds),
# the last one over and over, for as long as the runs' leases last.
RETRY_PAUSES = (0, 0.25, 1, 2, 4, 8, 15, 30)




def statements_for(claims: list[Claim], flush: int = ENDS, alerts: bool = False) -> int:
    """The most statements a tick's claims cost, whoever wins them: per chunk of rows, leases
    and starts, a batch of their ends (`flush`, and the retries they schedule), skips and their
    records (retries superseded apart) and, with `alerts`, those of skips dropping a retry and
    what their sends came to; per chunk of leases with calendars sharing an action, moments with
    the coalesced skips and their leases given back."""
    leases = [c for c in claims if c.reason is None]
    moments = sum(1 for part in chunks(leases) if any(c.moment is not None for c in part))
    retries = sum(1 for part in chunks(leases) if any(c.retries for c in part))
    retried = sum(1 for part in chunks(leases) if any(c.attempt > 1 for c in part))  # their covers
    superseded = sum(1 for c in claims if c.reason == Code.SUPERSEDED)
    skips = len(claims) - len(leases) - superseded
    covers = _chunks(sum(1 for c in claims if c.covers is not None))
    announced = 0
    if alerts and any(c.reason is not None and c.retrying is not None for c in claims):
        announced = alerting.TURNS * (_chunks(skips) + _chunks(superseded)) + 1
    return ((2 + flush) * _chunks(len(leases)) + 3 * moments + retries + retried + 2 * _chunks(skips)
            + 2 * _chunks(superseded) + covers + announced)


_chunks = chunked


class _Tick:
    def __init__(self, state: TickState, budget: Budget):
        self.state = state
        self.budget = budget
        self.wall = budget.began
        self.runner = Runner(state, budget, self)

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
        reports = await self.run_due(claims)
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

    async def run_due(self, due: list[tuple[Claim, Schedule]]) -> list[RunReport]:
        """The tick's first step: every due lease and skip claimed in one batch, then the runs
        side by side, their ends recorded as they finish."""
        spent = self.budget.elapsed()
        if self.budget.time - spent <= 0:  # the budget is spent: due runs stay due for the next tick
            due = [(claim, schedule) for claim, schedule in due if claim.reason is not None]
        room = self.budget.room()
        while room is not None and due and statements_for([c for c, _ in due], self.state.flush,
                                                          self.state.alerts is not None) > room:
            due.pop()  # the newest due first: they stay due for the next tick
        if not due:
            return []
        claims = [claim for claim, _ in due]
        lease = self.budget.lease(spent)
        alerts = self.state.alerts.skipping(self.state.now, self.wall, self.state.sender, GAP) if self.state.alerts else None
        try:
            claimed = await self.state.store.claim(claims, lease.until, self.state.now, lease.started, alerts)
        except Exception as error:
            claimed = await self.read_back(claims, error, lease)
        await send(self.state, alerting.sendable(claimed.alerted), "the skipped retries' alerts")
        reports = [self.skipped(c) for c in claims if c.reason is not None and c.run in claimed.recorded]
        reports += [
            self.skipped(replace(c, reason=Code.COALESCED, detail=COALESCED_DETAIL))
            for c in claims if c.reason is None and c.run in claimed.coalesced
        ]
        won = (claimed.leased & claimed.recorded) - claimed.coalesced
        runs = [(c, schedule) for c, schedule in due if c.reason is None and c.run in won]
        return reports + await self.runner.run(runs, lease)

    def cost(self, batch: list[Ended]) -> int:
        return self.ends_cost(batch)

    async def write(self, batch: list[Ended], ends_by: int) -> None:
        await self.write_ends(batch, ends_by)

    async def write_ends(self, batch: list, ends_by: int) -> None:
        """Runs' ends, with what the succeeded ones emitted, in one batch; then the sends."""
        ends = [end for end, _ in batch]

        async def write(late: str | None) -> list:
            if late is not None and any(end.writes for end in ends):
                return await self.write_apart(batch, late)
            return await self.write_together([(_noted(end, late), rows) for end, rows in batch])

        room = self.budget.left()
        cost = self.ends_cost(batch)
        if room is not None and cost > room:  # ends must be kept: past the cap, said so
            log.warning("%s: their ends take %d statements, %d past the tick's cap", _names(ends), cost, cost - room)
        kept = await self.must_land(_names(ends), "ends", ends_by, write)
        await send(self.state, kept, f"what {_names(ends)} emitted")

    async def write_together(self, batch: list) -> list:
        """Ends, what they emitted and the alerts of those that turn their schedules, in one
        batch; the deliveries kept."""
        if not batch:
            return []
        ends = [end for end, _ in batch]
        emitted = [row for _, rows in batch for row in rows]
        statements = self.state.store.ending(ends) + OutboxStore.emitting(emitted)
        if self.state.alerts is not None:
            statements += self.state.alerts.turning(ends, self.state.traces, self.state.sender)
        results = await self.state.store.db.batch(statements)
        return Outbox.deliveries(emitted) + alerting.deliveries(statements, results)

    async def write_apart(self, batch: list, late: str) -> list:
        """After D1 refused a batch holding runs' own writes: each of those runs tries again alone,
        so that writes D1 refuses, or a record another tick ended meanwhile, fail only their own
        run, none of its writes or events kept; then the other ends together."""
        rest = [(_noted(end, late), rows) for end, rows in batch if not end.writes]
        emitted = []
        for end, rows in batch:
            if not end.writes:
                continue
            try:
                emitted += await self.write_together([(_noted(end, late), rows)])
            except Exception as error:
                rest.append((_unwritten(end, error, late), []))
        return emitted + await self.write_together(rest)

    def may_write_now(self, queued: list, after: int) -> bool:
        """Ends may go in a batch of their own while one more batch for the rest still fits."""
        room = self.budget.left()
        return room is None or room - self.ends_cost(queued) >= self.state.flush * _chunks(after)

    def ends_cost(self, batch: list) -> int:
        """The statements a batch of ends costs, with the alerts of those that turn their schedules
        and what their sends came to."""
        return _ends_cost(batch) + (alerting.TURNS * _chunks(len(batch)) + 1 if self.state.alerts else 0)

    def skipped(self, claim: Claim) -> RunReport:
        log.info("%s: skipped the call due %s: %s", claim.name, iso(claim.due), claim.reason)
        return RunReport(
            claim.name, claim.due_for, self.state.now, Outcome.SKIPPED, claim.reason, detail=claim.detail,
            call=claim.call, attempt=claim.attempt,
        )

    async def read_back(self, claims: list[Claim], error: Exception, lease: Lease) -> Claimed:
        """After the claim batch answered an error: whether it landed, read back by run id.
        Unknown after the retries: treated as lost, which it is unless the batch landed."""
        names = _names(claims)
        try:
            claimed = await self.must_land(names, "read-back of the claims", lease.ends_by,
                                           lambda late: self.state.store.read_back(claims))
        except Exception:
            log.error(
                "%s: D1 answered an error (%s) to the batch that claims them, and whether it "
                "landed could not be read back: if it did not, they stay due; if it did, their "
                "runs' records end lease_expired at %s", names, error, iso(lease.until),
            )
            return Claimed(set(), set(), set())
        landed = "landed; the tick goes on" if claimed.leased | claimed.recorded else "did not land; they stay due"
        log.warning("%s: D1 answered an error (%s) to the batch that claims them, which %s", names, error, landed)
        return claimed

    async def must_land(self, names: str, what: str, by: int, write: Callable):
        """Runs `write(late)` until D1 takes it, while the leases last (to `by`, on the invocation's
        clock): `late` is None on the first attempt, then says what failed. Raises the last error
        when the leases are up, or at once when D1 takes no more calls from the invocation."""
        late, attempt = None, 1
        while True:
            try:
                return await write(late)
            except Exception as error:
                pause = RETRY_PAUSES[min(attempt - 1, len(RETRY_PAUSES) - 1)]
                attempt += 1
                if past_the_cap(error):  # every later call of the invocation is refused too
                    log.error("%s: the %s could not be recorded: %s; their leases lapse at %s", names, what, error,
                              iso(by))
                    raise
                if self.budget.wall() + pause * 1000 >= by:
                    log.error("%s: the %s could not be recorded before the leases lapse at %s: %s",
                              names, what, iso(by), error)
                    raise
                log.warning("%s: the %s were not recorded (%s); trying again", names, what, error)
                late = f"its end was recorded late, on attempt {attempt}: D1 answered {error}"
                await self.state.sleep(pause)

def _ends_cost(batch: list) -> int:
    """The statements a batch of ends costs: the ends, the events and deliveries kept with them,
    and what their sends came to."""
    emitted = [row for _, rows in batch for row in rows]
    events = len(json_chunks(emitted))
    writes = sum(1 + len(end.writes) for end, _ in batch if end.writes)  # each behind its check
    retries = sum(1 for part in chunks(batch) if any(end.retry is not None for end, _ in part))
    return ENDS * _chunks(len(batch)) + retries + 2 * events + events + writes


def _names(items) -> str:
    return ", ".join(item.name for item in items)


def _noted(end: End, late: str | None) -> End:
    return end if late is None else replace(end, detail="; ".join(filter(None, [end.detail, late])))


def _unwritten(end: End, error: Exception, late: str) -> End:
    """The end of a run whose own writes D1 refused: failed, none of them kept."""
    detail = (f"D1 refused the batch of its end and its {len(end.writes)} on_success writes, so none "
              f"was kept: {error}; {late}")
    return replace(end, outcome=Outcome.FAILED, code=Code.INTERNAL_FAULT, kind=Kind.RAISED, detail=detail, writes=())
