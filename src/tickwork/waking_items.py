"""Items handed over by an app with a wake queue (issue 27): a `once` item due before the next
minute tick is woken for, as the minute tick, which read its moments before the item existed,
could not (tick/wakes.py). From a `fetch` or `queue` handler (the Worker's `items`) the wake is
sent at once; inside a run, it is noted for the tick, which sends it with its own wakes."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .database import Database
from .per_item import Bulk, Items
from .tick.wakes import Wakes, handed_over, send


class WakingItems(Items):
    def __init__(self, db: Database, now: Callable[[], int], room: Callable[[], int | None] | None,
                 wakes: Wakes | None = None, noted: list[int] | None = None):
        super().__init__(db, now, room)
        self.wakes, self.noted = wakes, noted

    async def once(self, action: Any, input: object, at: int, **options: Any) -> str:
        id = await super().once(action, input, at, **options)
        await self._wake(at)
        return id

    async def once_many(self, action: Any, inputs: Iterable, at: int, **options: Any) -> Bulk:
        bulk = await super().once_many(action, inputs, at, **options)
        if bulk.ids:
            await self._wake(at)
        return bulk

    async def _wake(self, at: int) -> None:
        ats = handed_over(at, self.now())
        if self.noted is not None:
            self.noted += ats
        elif self.wakes is not None:
            await send(self.wakes, ats)
