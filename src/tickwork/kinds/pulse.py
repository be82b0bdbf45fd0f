"""Pulses: a cycle counted from the Unix epoch, split into `intervals` shares called in turn.

Share k of all time starts at floor(k * cycle / intervals); its `i` is k mod intervals. A tick
calls the share it falls in: a missed share is not made up, the next call is for the next `i`.
"""

from dataclasses import dataclass

from . import Call, Covered, Timing
from .forms import pulse_form


@dataclass(frozen=True)
class Pulse(Timing):
    cycle: int  # ms
    intervals: int = 1
    overdue: int | None = None  # ms: a call later than this after its share's start is skipped `overdue`

    @property
    def form(self) -> str:
        return pulse_form(self.cycle, self.intervals)

    def start(self, share: int) -> int:
        return share * self.cycle // self.intervals

    def share(self, moment: int) -> int:
        """The share whose time `moment` falls in."""
        return ((moment + 1) * self.intervals - 1) // self.cycle

    def first_due(self, tick: int) -> int:
        return self.start(self.share(tick) + 1)

    def owed(self, due: int, tick: int) -> Call:
        share = self.share(tick)
        return Call(n=self.intervals, i=share % self.intervals)

    def following(self, due: int, tick: int) -> int:
        return self.start(self.share(tick) + 1)

    def slot(self, due: int, tick: int) -> int:
        """The start of the share the tick calls: how late the call is is counted from there."""
        return self.start(self.share(tick))

    def call_of(self, share: int) -> Call:
        return Call(at=self.start(share), n=self.intervals, i=share % self.intervals)

    def occurrences(self, due: int, start: int, end: int, most: int) -> list[Call]:
        first = self.share(start)
        first += self.start(first) < start
        return [self.call_of(k) for k in range(first, self.share(end) + 1)[:most]]

    def covered(self, due: int, tick: int, most: int) -> Covered | None:
        """Counted, not walked."""
        if tick < due:
            return None
        first, last = self.share(due), self.share(tick)
        return Covered(last - first + 1, self.start(first), self.start(last))
