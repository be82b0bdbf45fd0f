"""What one tick does, step by step. Each step reads the TickState and the Budget, and starts only
while the tick's time and statements last. A step catches and logs the failures the steps after
it can do without, and they run: the gap's record, the rebase, the claim batch (read back), the
runs' ends, the sends of what steps kept, the backfill step, the sweep, housekeeping's deletes.
What no step catches fails the tick, and the invocation ticks on at its next mark: the first
read, a deploy's reconcile and the read after it, ending the lapsed leases, housekeeping's
lease (each done again by the next tick).

The order keeps these invariants:
1. Lapsed leases are ended before any claim: TAKE_LEASES requires NOT LEASE_OPEN, so a row whose
   run's lease lapsed is claimable only once that run is ended.
2. The rebase of handed-over calendars comes before the plan: no call is made at a moment kept
   for the old reading of their days.
3. Due runs come before backfill: a backfilled run takes the schedule's own lease, and gives way
   to its due run. The open Workflow runs are settled after both: a run settled gives its lease
   back to the next tick's claims, and its end's alert goes with the sweep.
4. The sweep comes after every step that keeps deliveries (ends, alerts); the steps before it
   leave it its statements (held from the plan on).
5. Housekeeping comes last, after all work that cannot wait.
"""

from __future__ import annotations

from .backfill import backfill
from .budget import SWEEP, Budget
from .concurrency import within_limits
from .due import run_due
from .ends import Recorder
from .housekeeping import housekeep
from .lapsed import end_lapsed
from .plan import plan
from .reconcile import rebase_handed_over
from .reports import RunReport
from .probe import probe
from .rows import schedule_of
from .runs import Runner
from .state import TickState
from .sweep import sweep, sweeps
from .wakes import send_wakes
from .workflows import settle


async def run(tick: TickState, budget: Budget) -> list[RunReport]:
    """The tick's steps in order; the runs and skips it made."""
    runner = Runner(tick, budget, Recorder(tick, budget))
    rows, lapsed = await probe(tick, budget)
    rows = await end_lapsed(tick, budget, rows, lapsed)
    due = await rebase_handed_over(tick, budget, [(s, r) for r in rows if (s := schedule_of(tick, r)) is not None])
    moments = tick.declared.claiming_moments
    claims = [(claim, schedule) for schedule, row in due
              for claim in plan(schedule, row, tick.now, tick.owing, clock=budget.began,
                                claims_moment=schedule.name in moments)]
    if sweeps(tick, budget):
        budget.hold("sweep", SWEEP)
    tick.reports += await run_due(tick, budget, runner, within_limits(claims))
    if tick.backfill_pending:
        tick.reports += await backfill(tick, budget, runner.run, lambda row: schedule_of(tick, row))
    await settle(tick, budget, runner.recorder)
    budget.release("sweep")
    await sweep(tick, budget)
    await send_wakes(tick)
    await housekeep(tick, budget)
    return tick.reports
