"""The due step: every due lease and skip claimed in one batch (as many as the statements left
allow, oldest due first), the batch read back where D1 answered an error, then the runs."""

from __future__ import annotations

import logging
from dataclasses import replace

from ..outbox import alerts as alerting
from ..model import Code, Outcome, Schedule
from ..database import operation
from ..store.claims import COALESCED_DETAIL, Claim, Claimed
from ..store.sql import chunks
from ..times import iso
from .budget import ENDS, Budget, Lease, chunked
from .ends import _names, must_land
from .gap import GAP
from .reports import RunReport
from .runs import Runner, missed_of, said
from .state import TickState
from .sweep import send

log = logging.getLogger("tickwork")


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
    covers = chunked(sum(1 for c in claims if c.covers is not None))
    announced = 0
    if alerts and any(c.reason is not None and c.retrying is not None for c in claims):
        announced = alerting.TURNS * (chunked(skips) + chunked(superseded)) + 1
    return ((2 + flush) * chunked(len(leases)) + 3 * moments + retries + retried + 2 * chunked(skips)
            + 2 * chunked(superseded) + covers + announced)


async def run_due(tick: TickState, budget: Budget, runner: Runner,
                  due: list[tuple[Claim, Schedule]]) -> list[RunReport]:
    """The tick's first step: every due lease and skip claimed in one batch, then the runs
    side by side, their ends recorded as they finish."""
    spent = budget.elapsed()
    if budget.time - spent <= 0:  # the budget is spent: due runs stay due for the next tick
        due = [(claim, schedule) for claim, schedule in due if claim.reason is not None]
    room = budget.room()
    while room is not None and due and statements_for([c for c, _ in due], tick.flush,
                                                      tick.alerts is not None) > room:
        due.pop()  # the newest due first: they stay due for the next tick
    if not due:
        return []
    claims = [claim for claim, _ in due]
    lease = budget.lease(spent)
    alerts = tick.alerts.skipping(tick.now, budget.began, tick.sender, GAP) if tick.alerts else None
    try:
        with operation("claim"):
            claimed = await tick.store.claim(claims, lease.until, tick.now, lease.started, alerts)
    except Exception as error:
        claimed = await read_back(tick, budget, claims, error, lease)
    await send(tick, alerting.sendable(claimed.alerted), "the skipped retries' alerts")
    reports = [skipped(tick, c) for c in claims if c.reason is not None and c.run in claimed.recorded]
    reports += [
        skipped(tick, replace(c, reason=Code.COALESCED, detail=COALESCED_DETAIL))
        for c in claims if c.reason is None and c.run in claimed.coalesced
    ]
    won = (claimed.leased & claimed.recorded) - claimed.coalesced
    runs = [(c, schedule) for c, schedule in due if c.reason is None and c.run in won]
    return reports + await runner.run(runs, lease)


def skipped(tick: TickState, claim: Claim) -> RunReport:
    log.info("%s: skipped the call due %s: %s", claim.name, iso(claim.due), claim.reason, extra=said(claim, "skip"))
    return RunReport(
        claim.name, claim.due_for, tick.now, Outcome.SKIPPED, claim.reason, detail=claim.detail,
        call=claim.call, attempt=claim.attempt, missed=missed_of(claim),
    )


@operation("read_back")
async def read_back(tick: TickState, budget: Budget, claims: list[Claim], error: Exception,
                    lease: Lease) -> Claimed:
    """After the claim batch answered an error: whether it landed, read back by run id.
    Unknown after the retries: treated as lost, which it is unless the batch landed."""
    names = _names(claims)
    try:
        claimed = await must_land(budget, tick.sleep, names, "read-back of the claims", lease.ends_by,
                                  lambda late: tick.store.read_back(claims))
    except Exception:
        log.error(
            "%s: D1 answered an error (%s) to the batch that claims them, and whether it "
            "landed could not be read back: if it did not, they stay due; if it did, their "
            "runs' records end lease_expired at %s", names, error, iso(lease.until),
            extra={"event": "claims_unknown"},
        )
        return Claimed(set(), set(), set())
    landed = "landed; the tick goes on" if claimed.leased | claimed.recorded else "did not land; they stay due"
    log.warning("%s: D1 answered an error (%s) to the batch that claims them, which %s", names, error, landed,
                extra={"event": "claims_read_back"})
    return claimed
