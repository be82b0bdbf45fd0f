"""Runs' ends, recorded as the runs finish: ends that come while a batch of them is on its way
share the next batch, and no end waits for a slow sibling, unless the tick's statements are
running out; then the rest wait to go together in one last batch."""

import asyncio
import logging
from typing import Awaitable, Callable

log = logging.getLogger("tickwork")


class Ends:
    def __init__(
        self,
        write: Callable[[list], Awaitable[None]],
        expected: int,
        may_write_now: Callable[[int, int], bool],
    ):
        """`write` records a batch of ends; `expected` is how many runs will end;
        `may_write_now(queued, after)` says whether the `queued` ends may go now and leave room
        for one more batch of the `after` still running."""
        self.write = write
        self.outstanding = expected
        self.may_write_now = may_write_now
        self.queue: list = []
        self.writing: asyncio.Task | None = None

    def add(self, end) -> None:
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
                              "lease_expired when their leases lapse", len(batch))

    async def done(self) -> None:
        """Waits until every end added has been written, or given up on."""
        while self.writing is not None and not self.writing.done():
            await self.writing
