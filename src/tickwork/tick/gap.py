"""Ticks stopped: a tick that finds the app's previous tick longer ago than the threshold records
the gap, and, where the app has alerts, announces it."""

from __future__ import annotations

import logging

from ..database import operation
from ..outbox import alerts as alerting
from ..operating.health import TICKS_STOPPED_AFTER
from ..times import MINUTE, iso
from .budget import Budget
from .state import TickState
from .sweep import send

log = logging.getLogger("tickwork")

# A tick that finds the app's previous tick longer ago than this records the gap (ticks stopped).
GAP = TICKS_STOPPED_AFTER


@operation("gap")
async def note_gap(tick: TickState, budget: Budget, previous: int | None, clock: int | None) -> None:
    """Ticks stopped: the app's tick before this one began longer ago than the threshold, on
    the invocation's clock (`clock`, that tick's): a tick by hand for another time is no gap.
    It is recorded from that tick, or, where a tick for a time ahead came between, from as
    long before this one. (A tick before migration 0022 kept no clock.)"""
    if previous is None:
        return
    stopped = tick.now - previous if clock is None else budget.began - clock
    if previous > tick.now:
        previous = tick.now - stopped
    if stopped <= GAP or not budget.fits(alerting.GAP_WITH_ALERT if tick.alerts else 1):
        return
    log.warning("ticks stopped: the tick before this one, at %s, was %d minutes earlier",
                iso(previous), stopped // MINUTE, extra={"event": "ticks_stopped"})
    if tick.alerts is None:
        try:
            await tick.store.gap(tick.now, previous, budget.began)
        except Exception:
            log.exception("the gap in the ticks could not be recorded", extra={"event": "gap_unrecorded"})
        return
    statements = tick.alerts.gap(tick.now, previous, budget.began, tick.sender)
    try:
        kept = alerting.deliveries(statements, await tick.store.db.batch(statements))
    except Exception:
        log.exception("the gap in the ticks could not be recorded, nor its alert kept",
                      extra={"event": "gap_unrecorded"})
        return
    await send(tick, kept, "the gap's alert")
