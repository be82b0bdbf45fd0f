"""The outbox's sweep, a step of the tick after every step that keeps deliveries: what is left to
send is claimed and sent; and the sends of what a step kept, at once, which the sweep makes again
where they fail."""

from __future__ import annotations

import logging
from typing import Any

from .budget import SWEEP, Budget
from .state import TickState

log = logging.getLogger("tickwork")


def sweeps(tick: TickState, budget: Budget) -> bool:
    """Whether the first read found a delivery left to send by the invocation's clock."""
    return tick.outbox is not None and tick.sweep_at is not None and tick.sweep_at <= budget.began


async def sweep(tick: TickState, budget: Budget) -> None:
    """The outbox's sweep, where a delivery is left to send."""
    if tick.outbox is None or not sweeps(tick, budget):
        return
    if not budget.fits(SWEEP) or budget.time_left() <= 0:
        return  # each step starts only while the tick's statements and budget last
    try:
        await tick.outbox.sweep(budget.wall(), tick.sender, budget.until(0))  # sent at once: the grace alone
    except Exception:
        log.exception("the outbox's sweep failed; the next tick sweeps again", extra={"event": "sweep_failed"})


async def send(tick: TickState, deliveries: list[Any], what: str) -> None:
    """Sends deliveries a step kept, claimed by the tick; those that fail wait for the sweep."""
    if not deliveries or tick.outbox is None:
        return
    try:
        await tick.outbox.send(deliveries, tick.sender)
    except Exception:
        log.exception("%s was kept but not sent; the sweep sends it", what, extra={"event": "sent_later"})
