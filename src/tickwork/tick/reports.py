"""What a tick reports: each run and skip as it saw it end."""

from __future__ import annotations

from dataclasses import dataclass
from ..model import Outcome
from ..kinds import Call


@dataclass(frozen=True)
class RunReport:
    """A run or a skip as the tick saw it end."""

    schedule: str
    due_at: int
    tick_at: int
    outcome: Outcome
    code: str | None = None
    kind: str | None = None
    detail: str | None = None
    started_at: int | None = None
    ended_at: int | None = None
    call: Call = Call()
    items: int | None = None  # what a purge run deleted
    trace: str | None = None  # the run's trace
    events: dict[str, int] | None = None  # what it emitted and kept: {event: count}
    attempt: int = 1  # the first run, or a retry's attempt
    next_attempt_at: int | None = None  # a failed run with attempts left: when it is tried again
    missed: int = 0  # the occurrences it covered besides its own (caught up on in this one call)
    origin: str = "due"  # why it ran: `due`, `by_hand`, `backfill` (a lag is a due run's alone)

    @property
    def duration_ms(self) -> int | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at


@dataclass(frozen=True)
class TickReport:
    at: int
    runs: list[RunReport]
