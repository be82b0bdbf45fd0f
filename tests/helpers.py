"""Small pieces the runtime tests share: recording actions and a frozen monotonic clock."""

import asyncio

from tickwork.grid import Every
from tickwork import Schedule, clock
from tickwork.schedule_store import ScheduleStore
from tickwork.tick import tick
from tickwork.times import MINUTE


class Calls:
    """An action that records `clock.now_ms` at each call."""

    def __init__(self):
        self.at: list[int] = []

    async def __call__(self):
        self.at.append(clock.now_ms)


def every(minutes: int, name: str = "census", action=None) -> Schedule:
    return Schedule(name, Every(minutes * MINUTE), action or Calls())


def frozen():
    """A monotonic clock that never moves: a tick then spends none of its budget."""
    return 0.0


async def tick_at(db, schedules, now, **options):
    options.setdefault("monotonic", frozen)
    return await tick(db, schedules, now, **options)


def ticks(db, schedules, *moments, **options):
    async def all_ticks():
        return [await tick_at(db, schedules, moment, **options) for moment in moments]

    return asyncio.run(all_ticks())


def state(db, name="census"):
    return asyncio.run(ScheduleStore(db).state(name))


def runs(db, name="census"):
    return asyncio.run(ScheduleStore(db).runs(name))
