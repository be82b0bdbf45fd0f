"""Housekeeping, the tick's last step: what is no longer needed is deleted, after all work that
can't wait, at most once an hour once a pass completes (schedules document, "What the tick
deletes"). One tick at a time holds the pass's lease; only its owner finishes or gives it back,
and a crashed owner loses it after the rest of its tick's budget and a minute. Its lease keeps to
the invocation's clock, as every lease (tick.Lease), and the ages count to the earlier of the
tick's time and that clock: a tick by hand for a time ahead or behind deletes nothing it or the
ticks on the clock just made. Each delete takes
1,000 rows, at most ten a tick, the budget and the statements left checked before each; a pass
that failed, hit its cap or was interrupted carries on at the next tick."""

from __future__ import annotations

import logging

from ..app import RETENTION as RETENTION  # run records, what operators dealt with; [tool.tickwork] retention
from ..database import Database, operation
from ..store.housekeeping import DELETES, ROWS_A_DELETE, HousekeepingStore
from ..times import DAY
from .budget import Budget
from .state import TickState

log = logging.getLogger("tickwork")

EVENTS_KEPT = DAY  # an event every delivery of which succeeded
# A handled record: as long as a queue keeps and may redeliver a message (its retention, 4 days
# by default, 14 at most), so a repeat is recognised however late it comes.
HANDLED_KEPT = 14 * DAY
MOST_DELETES = 10


async def housekeeping(db: Database, budget: Budget, owner: str, retention: int = RETENTION) -> int:
    """One pass, or as much of it as this tick may make while its `budget` lasts: its lease for
    the rest of the budget, taken on the invocation's clock (Budget.until); what is old by the
    earlier of that clock and the tick's time. Returns the rows deleted."""
    lease_until = budget.until()
    now = min(budget.tick_at, budget.wall())
    left = budget.room()
    if left is not None and left < 2:  # its lease taken and given back: no pass begun past the cap
        return 0
    store = HousekeepingStore(db)
    start = await store.take(owner, lease_until, budget.wall())
    if start is None:
        return 0
    deleted, deletes, completed, at = 0, 0, True, start
    try:
        for at in range(min(start, len(DELETES) - 1), len(DELETES)):
            delete = DELETES[at]
            while True:
                left = budget.room()
                cannot = left is not None and left < len(delete.statements) + 1
                if deletes == MOST_DELETES or budget.time_left() <= 0 or cannot:
                    completed = False
                    break
                count = await store.delete(delete, now - retention, now - EVENTS_KEPT, now, now - HANDLED_KEPT)
                deletes += 1
                deleted += count
                if count < ROWS_A_DELETE:
                    break
            if not completed:
                break
    except Exception:
        completed = False
        log.exception("housekeeping failed; the next tick carries on", extra={"event": "housekeeping_failed"})
    try:
        await store.finish(owner, completed, budget.wall(), at)
    except Exception:
        log.exception("housekeeping's lease could not be given back; it lapses at its end",
                      extra={"event": "housekeeping_lease_kept"})
    return deleted


@operation("housekeeping")
async def housekeep(tick: TickState, budget: Budget) -> None:
    """The tick's last step: housekeeping, where a pass is due."""
    if not tick.housekeeping_due or budget.time_left() <= 0:
        return
    await housekeeping(tick.store.db, budget, tick.sender, tick.retention)
