"""Runs whose lease lapsed, ended before any claim: a lease is taken only where none is open
(TAKE_LEASES requires NOT LEASE_OPEN), so a row whose run's lease lapsed is claimable only once
that run's record is ended. The schedules they start failing are announced."""

from __future__ import annotations

import json
from dataclasses import replace

from ..outbox import alerts as alerting
from ..database import operation
from ..model import Retry
from ..store.schedules import State
from .budget import EXPIRE, Budget
from .state import TickState
from .sweep import send


def expire_cost(tick: TickState) -> int:
    """The statements ending the runs whose leases lapsed take, with their alerts and sends."""
    return EXPIRE + (alerting.LAPSED_ALERTS + 1 if tick.alerts else 0)


async def end_lapsed(tick: TickState, budget: Budget, due: list[State], lapsed: bool) -> list[State]:
    """Where the first read found a lease lapsed and the statements allow, its run ended; the due
    rows as they are then (their lapsed leases gone)."""
    if not lapsed or not budget.fits(expire_cost(tick)):
        return due
    await expire_leases(tick, budget)
    return [_without_lease(s) if s.lease_expired(budget.began) else s for s in due]


@operation("expire")
async def expire_leases(tick: TickState, budget: Budget) -> None:
    """Ends the runs whose leases lapsed, announcing the schedules they start failing."""
    window = (budget.began, tick.lapse_from)
    alerts = tick.alerts.lapsed(window, budget.began, tick.sender) if tick.alerts else []
    results = await tick.store.expire_leases(window, declared_retries(tick), alerts, tick.now)
    await send(tick, alerting.deliveries(alerts, results), "the lapsed runs' alerts")


def declared_retries(tick: TickState) -> str:
    """The declared schedules' retries, for runs whose lease lapsed: {name: [attempts, pause]},
    with [.., ceiling, jitter] where the rule has either."""
    return json.dumps({s.name: _lapsed_rule(s.retry) for s in tick.declared.by_name.values() if s.retry is not None})


def _lapsed_rule(retry: Retry) -> list[int | None]:
    more = [retry.ceiling, retry.jitter] if retry.ceiling is not None or retry.jitter else []
    return [retry.attempts, retry.pause, *more]


def _without_lease(state: State) -> State:
    return replace(state, lease_run=None, lease_until=None)
