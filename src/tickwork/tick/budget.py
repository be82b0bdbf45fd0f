"""One tick's budget: its time and its D1 statements, the clocks it is measured on, and how every
lease it takes is timed. One `Budget` per tick, made from the invocation's (`Invocation`); the
steps read it instead of working out what is left each their own way."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import Callable

from ..database import Database
from ..model import LEASE_GRACE, RUN_LIMIT
from ..store.sql import ROWS_PER_STATEMENT
from ..times import MINUTE

# A Worker's cron run has 15 minutes of wall time; a tick stops its runs a minute before, so
# that their ends are recorded and their leases given back before the platform cuts it off.
WORKER_TICK_BUDGET = 14 * MINUTE

# A tick's first batch: the app's tick marked, the due rows read. Lapsed leases cost three more;
# a reconcile after a deploy, beside reading the declared rows, marking the removed, seeding,
# rebasing, recording what calendars declared again missed, declaring again, reading the last
# deploy marker's set and marking the deploy, sealing and reading the due rows again.
FIRST_READ = 2
EXPIRE = 3
RECONCILE = 9
# The sweep: its claim, and what the sends came to. Ends with events: the events and
# deliveries, and what their sends came to, beside the statement of the ends (which gives their
# leases back).
SWEEP = 2
ENDS = 1
ENDS_WITH_EVENTS = 4


def chunked(rows: int) -> int:
    """The statements `rows` rows take, ROWS_PER_STATEMENT a statement."""
    return ceil(rows / ROWS_PER_STATEMENT)


@dataclass(frozen=True)
class Lease:
    """How every lease a tick takes is timed: the due runs', a backfill round's (they start at
    `started`, may run `limit` ms) and housekeeping's pass. It ends, `until`, a minute after its
    work must end, on the invocation's clock, and every tick compares it with its own clock,
    never with its time: a tick by hand for a time ahead neither ends a lease still running nor
    takes one that holds up the ticks on the clock (schedule_store's leases). Ends must land by
    then. (The outbox's deliveries are leased on the same clock, for its windows.)"""

    started: int
    limit: int

    @property
    def ends_by(self) -> int:
        return self.started + self.limit + LEASE_GRACE

    @property
    def until(self) -> int:
        return self.ends_by


class Budget:
    """A tick's time and statements as it goes on. `tick_at` is the tick's time, `began` the wall
    time its invocation began; what has elapsed since is measured on `monotonic` (seconds).
    Statements a later step must have are held for it (`hold`) from where the steps before it
    would otherwise spend them: `room()` is net of what is held, `left()` is not."""

    def __init__(self, db: Database, tick_at: int, began: int, time: int, monotonic: Callable[[], float],
                 cap: int | None, for_later: int = 0):
        self.db = db
        self.tick_at = tick_at
        self.began = began
        self.time = time
        self.monotonic = monotonic
        self.started = monotonic()
        self.cap = cap
        self.before = db.statements_run
        self.for_later = for_later  # statements left to the invocation's later ticks, which backfills do not spend
        self.held: dict[str, Callable[[], int]] = {}

    def elapsed(self) -> int:
        return round((self.monotonic() - self.started) * 1000)

    def time_left(self) -> int:
        return self.time - self.elapsed()

    def wall(self) -> int:
        """Wall time inside the tick: when its invocation began plus what has elapsed since."""
        return self.began + self.elapsed()

    def left(self) -> int | None:
        """The statements the tick may still make, what is held included; None without a cap."""
        return None if self.cap is None else self.cap - (self.db.statements_run - self.before)

    def room(self) -> int | None:
        """The statements the step under way may still make: what is left beside what is held."""
        left = self.left()
        return None if left is None else left - sum(held() for held in self.held.values())

    def fits(self, statements: int) -> bool:
        room = self.room()
        return room is None or room >= statements

    def hold(self, step: str, statements: int | Callable[[], int]) -> None:
        """Keeps `statements` for `step` until it is released: a count, or what it comes to as the
        tick goes on (the ends still to record)."""
        self.held[step] = statements if callable(statements) else (lambda: statements)

    def release(self, step: str) -> None:
        self.held.pop(step, None)

    def lease(self, spent: int | None = None) -> Lease:
        """The lease for runs starting once `spent` ms of the budget are gone (by default, now)."""
        if spent is None:
            spent = self.elapsed()
        return Lease(self.began + spent, min(self.time - spent, RUN_LIMIT))

    def lease_reach(self) -> tuple[int, int]:
        """The longest and shortest the tick's leases may last past it (its `now`; less than none
        for a tick ahead of its clock): a lease given later in the budget lasts longer, till the
        run limit no longer cuts it short (Lease)."""
        longest = self.lease(max(self.time - RUN_LIMIT, 0)).until
        return longest - self.tick_at, self.lease(0).until - self.tick_at

    def until(self, window: int | None = None) -> int:
        """When a lease of `window` ms taken now ends (by default, for the rest of the budget), on
        the invocation's clock as every lease (Lease): housekeeping's pass, deliveries."""
        spent = self.elapsed()
        return Lease(self.began + spent, self.time - spent if window is None else window).until


class Invocation:
    """What an invocation has of its time and statements as its ticks go on, on the wall `clock`
    (epoch ms): each tick's Budget is what is left of it."""

    def __init__(self, db: Database, clock: Callable[[], int], time: int, cap: int):
        self.db = db
        self.clock = clock
        self.time = time
        self.cap = cap
        self.started = clock()
        self.before = db.statements_run

    def spent(self) -> int:
        return self.clock() - self.started

    def statements_left(self) -> int:
        return self.cap - (self.db.statements_run - self.before)
