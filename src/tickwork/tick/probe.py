"""The tick's first read: the app's tick marked and the due rows read in one batch (MARK_TICK), its
columns answering each later step whether it has anything to do; then the gap, and, only where
the declared set changed since the rows were last reconciled with it, a reconcile."""

from __future__ import annotations

import logging

from ..database import operation
from ..store.sql import ROWS_PER_STATEMENT, json_chunks
from ..store.schedules import State
from .budget import FIRST_READ, RECONCILE, Budget
from .gap import note_gap
from .reconcile import reconcile
from .state import TickState
from .wakes import wake_until

log = logging.getLogger("tickwork")


def most_rows(budget: Budget) -> int | None:
    """No more rows than the statements left could claim; None without a cap."""
    if budget.cap is None:
        return None
    return max(budget.cap - FIRST_READ, 0) // 4 * ROWS_PER_STATEMENT


@operation("probe")
async def probe(tick: TickState, budget: Budget) -> tuple[list[State], bool]:
    """The rows due now, oldest first, and whether a run's lease lapsed; the probe's other answers
    kept in `tick` for the steps they concern."""
    most = most_rows(budget)
    reached = await tick.store.reach(tick.now, budget.lease_reach(), most, budget.began, wake_until(tick))
    tick.sweep_at = reached.sweep_at
    tick.lapse_from = reached.lapse_from
    tick.housekeeping_due = reached.housekeeping_due
    tick.backfill_pending = reached.backfill_pending
    tick.wake_at = reached.wakes
    tick.workflows_due = reached.workflows_due
    await note_gap(tick, budget, reached.prev_tick, reached.prev_clock)
    fingerprint = tick.declared.fingerprint
    if reached.fingerprint == fingerprint:
        return reached.due, reached.lapsed
    if not budget.fits(len(json_chunks(tick.declared.names)) + RECONCILE):
        log.warning("the declared schedules changed, and reconciling them takes more statements "
                    "than this tick has left; a later tick does it", extra={"event": "reconcile_deferred"})
        return [], reached.lapsed
    await reconcile(tick, fingerprint, reached.fingerprint is not None)
    return await tick.store.due(tick.now, most), reached.lapsed
