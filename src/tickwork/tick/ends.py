"""Runs' ends, recorded as the runs finish (Ends) and written under retry (Recorder): ends that
come while a batch of them is on its way share the next batch, and no end waits for a slow
sibling, unless the tick's statements are running out; then the rest wait to go together in one
last batch."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any, Awaitable, Callable, Iterable, TypeVar

from ..outbox import alerts as alerting
from ..database import operation, past_the_cap
from ..model import Code, Kind, Outcome
from ..outbox import Outbox
from ..store.ends import End, ends_cost
from ..store.outbox import Emitted, OutboxStore
from ..times import iso
from .budget import Budget, chunked
from .state import Sleep, TickState
from .sweep import send

log = logging.getLogger("tickwork")

T = TypeVar("T")
Ended = tuple[End, list[Emitted]]  # a run's end, and what it emitted
# A write that must land (runs' ends) is tried again at once, then after these pauses (seconds),
# the last one over and over, for as long as the runs' leases last.
RETRY_PAUSES = (0, 0.25, 1, 2, 4, 8, 15, 30)


class Ends:
    def __init__(
        self,
        write: Callable[[list[Ended]], Awaitable[None]],
        expected: int,
        may_write_now: Callable[[list[Ended], int], bool],
    ) -> None:
        """`write` records a batch of ends; `expected` is how many runs will end;
        `may_write_now(queued, after)` says whether the `queued` ends may go now and leave room
        for one more batch of the `after` still running."""
        self.write = write
        self.outstanding = expected
        self.may_write_now = may_write_now
        self.queue: list[Ended] = []
        self.writing: asyncio.Task[None] | None = None

    def add(self, end: Ended) -> None:
        self.queue.append(end)
        self.outstanding -= 1
        if self.writing is None or self.writing.done():
            self.writing = asyncio.create_task(self._write_queued())

    async def _write_queued(self) -> None:
        while self.queue:
            if self.outstanding and not self.may_write_now(self.queue, self.outstanding):
                return  # the last run's end takes these along
            batch, self.queue = self.queue, []
            try:
                await self.write(batch)
            except Exception:
                log.exception("the ends of %d runs could not be recorded; their records end "
                              "lease_expired when their leases lapse", len(batch), extra={"event": "ends_unrecorded"})

    async def done(self) -> None:
        """Waits until every end added has been written, or given up on."""
        while self.writing is not None and not self.writing.done():
            await self.writing


class Recorder:
    """Writes runs' ends under retry: with what the succeeded ones emitted and the alerts of those
    that turn their schedules, in one batch; apart, where D1 refused a batch holding runs' own
    writes; for as long as the runs' leases last."""

    def __init__(self, tick: TickState, budget: Budget):
        self.tick = tick
        self.budget = budget

    @operation("ends")
    async def write(self, batch: list[Ended], ends_by: int) -> None:
        """Runs' ends, with what the succeeded ones emitted, in one batch; then the sends."""
        ends = [end for end, _ in batch]

        async def write(late: str | None) -> list[Any]:
            if late is not None and any(end.writes for end in ends):
                return await self.write_apart(batch, late)
            return await self.write_together([(_noted(end, late), rows) for end, rows in batch])

        room = self.budget.left()
        cost = self.cost(batch)
        if room is not None and cost > room:  # ends must be kept: past the cap, said so
            log.warning("%s: their ends take %d statements, %d past the tick's cap", _names(ends), cost, cost - room,
                        extra={"event": "ends_past_cap"})
        kept = await must_land(self.budget, self.tick.sleep, _names(ends), "ends", ends_by, write)
        await send(self.tick, kept, f"what {_names(ends)} emitted")

    async def write_together(self, batch: list[Ended]) -> list[Any]:
        """Ends, what they emitted and the alerts of those that turn their schedules, in one
        batch; the deliveries kept."""
        if not batch:
            return []
        ends = [end for end, _ in batch]
        emitted = [row for _, rows in batch for row in rows]
        statements = self.tick.store.ending(ends) + OutboxStore.emitting(emitted)
        turning = [end for end in ends if end.ended is not None]  # a run through a Workflow turns nothing yet
        if self.tick.alerts is not None and turning:
            statements += self.tick.alerts.turning(turning, self.tick.traces, self.tick.sender)
        results = await self.tick.store.db.batch(statements)
        return Outbox.deliveries(emitted) + alerting.deliveries(statements, results)

    async def write_apart(self, batch: list[Ended], late: str) -> list[Any]:
        """After D1 refused a batch holding runs' own writes: each of those runs tries again alone,
        so that writes D1 refuses, or a record another tick ended meanwhile, fail only their own
        run, none of its writes or events kept; then the other ends together."""
        rest = [(_noted(end, late), rows) for end, rows in batch if not end.writes]
        emitted = []
        for end, rows in batch:
            if not end.writes:
                continue
            try:
                emitted += await self.write_together([(_noted(end, late), rows)])
            except Exception as error:
                rest.append((_unwritten(end, error, late), []))
        return emitted + await self.write_together(rest)

    def may_write_now(self, queued: list[Ended], after: int) -> bool:
        """Ends may go in a batch of their own while one more batch for the rest still fits."""
        room = self.budget.left()
        return room is None or room - self.cost(queued) >= self.tick.flush * chunked(after)

    def cost(self, batch: list[Ended]) -> int:
        """The statements a batch of ends costs, with the alerts of those that turn their schedules
        and what their sends came to."""
        return _ends_cost(batch) + (alerting.TURNS * chunked(len(batch)) + 1 if self.tick.alerts else 0)


async def must_land(budget: Budget, sleep: Sleep, names: str, what: str, by: int,
                    write: Callable[[str | None], Awaitable[T]]) -> T:
    """Runs `write(late)` until D1 takes it, while the leases last (to `by`, on the invocation's
    clock): `late` is None on the first attempt, then says what failed. Raises the last error
    when the leases are up, or at once when D1 takes no more calls from the invocation."""
    late, attempt = None, 1
    while True:
        try:
            return await write(late)
        except Exception as error:
            pause = RETRY_PAUSES[min(attempt - 1, len(RETRY_PAUSES) - 1)]
            attempt += 1
            if past_the_cap(error):  # every later call of the invocation is refused too
                log.error("%s: the %s could not be recorded: %s; their leases lapse at %s", names, what, error,
                          iso(by), extra={"event": "record_refused"})
                raise
            if budget.wall() + pause * 1000 >= by:
                log.error("%s: the %s could not be recorded before the leases lapse at %s: %s",
                          names, what, iso(by), error, extra={"event": "record_failed"})
                raise
            log.warning("%s: the %s were not recorded (%s); trying again", names, what, error,
                        extra={"event": "record_retried"})
            late = f"its end was recorded late, on attempt {attempt}: D1 answered {error}"
            await sleep(pause)


def _ends_cost(batch: list[Ended]) -> int:
    """The statements a batch of ends costs (store.ends.ends_cost): the ends, the events and
    deliveries kept with them, and what their sends came to."""
    return ends_cost([end for end, _ in batch], [row for _, rows in batch for row in rows])


def _names(items: Iterable[Any]) -> str:
    return ", ".join(item.name for item in items)


def _noted(end: End, late: str | None) -> End:
    return end if late is None else replace(end, detail="; ".join(filter(None, [end.detail, late])))


def _unwritten(end: End, error: Exception, late: str) -> End:
    """The end of a run whose own writes D1 refused: failed, none of them kept."""
    detail = (f"D1 refused the batch of its end and its {len(end.writes)} on_success writes, so none "
              f"was kept: {error}; {late}")
    return replace(end, outcome=Outcome.FAILED, code=Code.INTERNAL_FAULT, kind=Kind.RAISED, detail=detail, writes=())
