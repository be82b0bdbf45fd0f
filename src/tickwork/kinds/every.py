"""`every:` schedules: runs fall on a grid that `due` and `every`, kept in the state row, define."""

from dataclasses import dataclass

from . import Call, Covered, Timing
from .forms import every_form


def first_due(first_tick: int, every: int) -> int:
    """A schedule's first run is due one `every` after the first tick that sees it."""
    return first_tick + every


def next_due(due: int, every: int, tick: int) -> int:
    """The first grid time after `tick`: missed grid times collapse into this one."""
    if tick < due:
        return due
    return latest_slot(due, every, tick) + every


def latest_slot(due: int, every: int, tick: int) -> int:
    """The last grid time at or before `tick`, before `due` too (a run by hand)."""
    return due + (tick - due) // every * every


def rebased_due(due: int, new_every: int, tick: int) -> int:
    """A changed `every` takes effect from the kept due time or one new interval on, whichever is first."""
    return min(due, tick + new_every)


@dataclass(frozen=True)
class Every(Timing):
    every: int  # ms
    overdue: int | None = None  # ms: a call later than this after its grid time is skipped `overdue`

    @property
    def every_ms(self) -> int:
        return self.every

    @property
    def form(self) -> str:
        return every_form(self.every)

    def first_due(self, tick: int) -> int:
        return first_due(tick, self.every)

    def first_due_from(self, tick: int, starts: int | None) -> int:
        """Its grid begins at `starts`, the first call at it, where that is still to come."""
        return starts if starts is not None and starts > tick else self.first_due(tick)

    def owed(self, due: int, tick: int) -> Call:
        return Call()

    def following(self, due: int, tick: int) -> int:
        return next_due(due, self.every, tick)

    def slot(self, due: int, tick: int) -> int:
        return latest_slot(due, self.every, tick)

    def rebased(self, due: int, tick: int, was: str | None = None) -> int:
        return rebased_due(due, self.every, tick)

    def occurrences(self, due: int, start: int, end: int, most: int) -> list[Call]:
        first = due - (due - start) // self.every * self.every  # the first grid time at or after start
        return [Call(at=at) for at in range(first, end + 1, self.every)[:most]]

    def covered(self, due: int, tick: int, most: int) -> Covered | None:
        """Counted, not walked: a month of minutely slots costs nothing more than one."""
        if tick < due:
            return None
        return Covered((tick - due) // self.every + 1, due, latest_slot(due, self.every, tick))
