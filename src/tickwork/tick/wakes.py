"""Exact timing between ticks (issue 27): a tick that finds a row running before the next minute
tick, a `once` item or a retry under a minute, sends a delayed message for that moment to the
app's wake queue, and the queue's invocation ticks then (outbox/wakes.py), taking the same
leases as any tick: a wake that finds its run made already, by the minute tick or another wake,
makes nothing more. So the cron invocation need not stay open all minute at the 10-second marks.

What is sent follows what is due soon, not what exists: the moments are read by the tick's
first statement along the index of due rows (app_row.MARK_TICK's `wakes`), and a retry under a
minute is known from the run that failed; one message a second, all in one batch send. A
nothing-due tick sends nothing. A send that fails is no loss: the row runs at the next tick.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from ..times import HOUR, MINUTE, SECOND, iso
from .state import TickState

log = logging.getLogger("tickwork")

LONGEST_DELAY = 12 * HOUR // SECOND  # Queues' `delaySeconds` at most
BATCH_MESSAGES = 100  # a batch send's most messages


class DelayedQueue(Protocol):
    async def send_delayed(self, messages: list[tuple[dict[str, Any], int]]) -> None:
        """Sends each body delivered after its delay, whole seconds, as one batch, or raises."""


@dataclass(frozen=True)
class Wakes:
    """The wake queue, as a tick sends to it. `clock` is the wall clock (epoch ms) the delays are
    counted from; `minute` is False for a wake's own tick, which sends only for the retries its
    runs made: the minute tick sent the rest of its minute's moments already."""

    queue: DelayedQueue
    clock: Callable[[], int]
    minute: bool = True


def next_tick(at: int) -> int:
    """The minute tick after `at`: the cron trigger runs each minute."""
    return (at // MINUTE + 1) * MINUTE


def wake_until(tick: TickState) -> int | None:
    """How far ahead the first read looks for moments to wake at; None: not at all."""
    return next_tick(tick.now) if tick.wakes is not None and tick.wakes.minute else None


def message(at: int) -> dict[str, Any]:
    return {"tickwork": 1, "wake": at}


def wake_of(body: object) -> int | None:
    """The moment a wake message is for; None for a body that is no wake (a NaN would raise, and
    the queue retry its batch for ever)."""
    at = body.get("wake") if isinstance(body, dict) and body.get("tickwork") == 1 else None
    if isinstance(at, (int, float)) and not isinstance(at, bool) and math.isfinite(at):
        return int(at)
    return None


def moments(tick: TickState) -> list[int]:
    """The whole seconds to wake at: the rows the first read found running before the next tick,
    the retries this tick's runs put before it, and the `once` items they handed over for then."""
    until = next_tick(tick.now)
    found = list(tick.wake_at)
    found += [r.next_attempt_at for r in tick.reports if r.next_attempt_at is not None]
    return sorted({-(-at // SECOND) * SECOND for at in found if tick.now < at < until} | set(tick.handed_wakes))


async def send_wakes(tick: TickState) -> list[int]:
    """Sends a wake for each moment (`moments`); the moments sent."""
    if tick.wakes is None:
        return []
    return await send(tick.wakes, moments(tick))


async def send(wakes: Wakes, ats: list[int]) -> list[int]:
    """One wake for each of `ats` (whole seconds), in one batch send; the moments sent. A send
    that raises is logged: what is due then runs at the next tick."""
    if not ats:
        return []
    now = wakes.clock()
    # Whole seconds, rounded down: the wake's consumer waits out the rest (outbox/wakes.EARLY_MOST).
    messages = [(message(at), min(max((at - now) // SECOND, 0), LONGEST_DELAY)) for at in ats]
    try:
        for first in range(0, len(messages), BATCH_MESSAGES):
            await wakes.queue.send_delayed(messages[first:first + BATCH_MESSAGES])
    except Exception:
        log.exception("the wakes for %s could not be sent; what is due then runs at the next tick",
                      ", ".join(iso(at) for at in ats), extra={"event": "wakes_unsent"})
        return []
    return ats


def handed_over(at: int, now: int) -> list[int]:
    """The wake for a `once` item handed over at `now` for `at`, where the minute tick that would
    have woken for it has read its moments already: one due before the next tick."""
    return [max(-(-at // SECOND) * SECOND, now)] if at < next_tick(now) else []
