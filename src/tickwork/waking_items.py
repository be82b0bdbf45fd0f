"""Items handed over from a `fetch` or `queue` handler by an app with a wake queue (issue 27): a
`once` item due before the next minute tick is woken for at once, as the minute tick, which read
its moments before the item existed, could not (tick/wakes.py). Made by the Worker's `items`."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .database import Database
from .per_item import Bulk, Items
from .tick.wakes import Wakes, handed_over, send


class WakingItems(Items):
    def __init__(self, db: Database, now: Callable[[], int], room: Callable[[], int | None] | None, wakes: Wakes):
        super().__init__(db, now, room)
        self.wakes = wakes

    async def once(self, action: Any, input: object, at: int, **options: Any) -> str:
        id = await super().once(action, input, at, **options)
        await send(self.wakes, handed_over(at, self.now()))
        return id

    async def once_many(self, action: Any, inputs: Iterable, at: int, **options: Any) -> Bulk:
        bulk = await super().once_many(action, inputs, at, **options)
        if bulk.ids:
            await send(self.wakes, handed_over(at, self.now()))
        return bulk
