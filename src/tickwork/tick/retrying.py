"""The retry clock, in one place: when a failed run's next attempt is due, and which it is. (The
pause itself is the schedule's Retry.pause_after; runs whose lease lapsed are retried by the same
rule in SQL, schedule_store's SCHEDULE_LAPSED_RETRIES.)"""

from __future__ import annotations

from typing import Any

from ..model import Schedule
from ..store.claims import Claim
from ..times import MARK


def failed_at(now: int, began: int, ended: int) -> int:
    """When a run that ended at `ended` (the invocation's clock, which began at `began`) failed, on
    the tick's clock, as due times are (a tick by hand may be far from the wall's), in whole
    10-second marks: a pause of a minute after a run that failed at once is the next minute's
    tick, not the mark after it."""
    return now + (ended - began) // MARK * MARK


def next_attempt(schedule: Schedule, claim: Claim, failed: int) -> dict[str, Any]:
    """A failed run's next attempt, as its end records it: when it is due, which attempt, and
    the call it makes again; nothing where no attempt is left, or it was a run by hand."""
    pause = schedule.retry.pause_after(claim.attempt) if claim.retries and schedule.retry else None
    if pause is None:
        return {}
    c = claim.call
    return dict(retry=failed + pause, attempt=claim.attempt + 1, for_due=claim.due_for, at=c.at, n=c.n, i=c.i,
                dst=c.dst)
