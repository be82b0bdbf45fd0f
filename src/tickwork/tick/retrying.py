"""The retry clock, in one place: when a failed run's next attempt is due, and which it is. (The
pause itself is the schedule's Retry.pause_after; runs whose lease lapsed are retried by the same
rule in SQL, schedule_store's SCHEDULE_LAPSED_RETRIES.)"""

from __future__ import annotations

from typing import Any

from ..model import Kind, Schedule
from ..store.claims import Claim
from ..times import MARK


def failed_at(now: int, began: int, ended: int) -> int:
    """When a run that ended at `ended` (the invocation's clock, which began at `began`) failed, on
    the tick's clock, as due times are (a tick by hand may be far from the wall's), in whole
    10-second marks: a pause of a minute after a run that failed at once is the next minute's
    tick, not the mark after it."""
    return now + (ended - began) // MARK * MARK


def retried(schedule: Schedule, claim: Claim, failed: int, code: str | None,
            kind: str | None) -> tuple[dict[str, Any], str | None]:
    """A failed run's next attempt (next_attempt) and the kind its end records: `unretried`
    where an attempt was left but the action raised its code with retry=False, or the rule's
    `except` names the code; that failure is the due time's last, as one with none left is."""
    attempt = next_attempt(schedule, claim, failed)
    if not attempt:
        return attempt, Kind.RAISED if kind == Kind.UNRETRIED else kind
    if kind == Kind.UNRETRIED or (schedule.retry is not None and not schedule.retry.retries(code)):
        return {}, Kind.UNRETRIED
    return attempt, kind


def next_attempt(schedule: Schedule, claim: Claim, failed: int) -> dict[str, Any]:
    """A failed run's next attempt, as its end records it: when it is due, which attempt, and
    the call it makes again; nothing where no attempt is left, or it was a run by hand."""
    retry = schedule.retry if claim.retries else None
    pause = retry.pause_after(claim.attempt, claim.name, claim.due_for) if retry else None
    if pause is None:
        return {}
    c = claim.call
    return dict(retry=failed + pause, attempt=claim.attempt + 1, for_due=claim.due_for, at=c.at, n=c.n, i=c.i,
                dst=c.dst)
