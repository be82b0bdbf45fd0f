"""What the runtime knows of a schedule, and what a run or a skip ends as."""

from dataclasses import dataclass
from enum import StrEnum
from typing import Awaitable, Callable

from .errors import ScheduleError as ScheduleError  # its home is errors.py; `tickwork.ScheduleError` reads it here
from .kinds import Timing
from .times import MINUTE

Action = Callable[[], Awaitable[object]]

RUN_LIMIT = 15 * MINUTE  # a run is stopped at 15 minutes, whatever its tick's budget
LEASE_GRACE = MINUTE  # a lease outlives its tick's budget by this much


@dataclass(frozen=True)
class Retry:
    """`retry: 3 after 1m`: a failed run is tried again for the same due time, up to `attempts`
    times more, the first after `pause` (ms), each pause twice the one before."""

    attempts: int
    pause: int

    def pause_after(self, attempt: int) -> int | None:
        """The pause after attempt `attempt` (1 the first run) failed; None where none is left."""
        return self.pause * 2 ** (attempt - 1) if attempt <= self.attempts else None


# Retry.pause_after in SQL, for the runs whose lease lapsed (store.leases.SCHEDULE_LAPSED_RETRIES),
# which a statement must retry as a failed end would: {pause} and {attempt} are SQL expressions,
# {attempts} the attempts declared. tests/test_retries.py holds the two to one rule.
PAUSE_AFTER_SQL = "{pause}\n                               * (1 << ({attempt} - 1))"
ATTEMPT_LEFT_SQL = "{attempt} <= {attempts}"


@dataclass(frozen=True)
class Schedule:
    """One declared entry: an `every:` schedule, a calendar or a pulse, calling `action`."""

    name: str
    timing: Timing  # grid.Every, calendar.Calendar or pulse.Pulse
    action: Action
    source: str = ""  # file:line of the declaration, for logs
    retry: Retry | None = None  # opt-in: by default a failure is tried again at the next due time
    limit: int | None = None  # the run's own limit (ms), within RUN_LIMIT


@dataclass(frozen=True)
class Consumer:
    """A queue's consumer: its messages go to `action` (consumers.py)."""

    queue: str  # the queue's name
    action: Action
    max_retries: int = 3  # the queue's, from wrangler.toml


class Outcome(StrEnum):
    RUNNING = "running"  # leased and under way; a lost run stays here until its lease expires
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"


class Code(StrEnum):
    PAUSED = "paused"  # skipped: an operator paused the schedule
    RUNNING = "running"  # skipped: the previous run still holds the lease
    OVERDUE = "overdue"  # skipped: a call (of any repeating kind) is later than its `overdue:` allows
    COALESCED = "coalesced"  # skipped: another calendar of the action makes the call for this moment
    LEASE_EXPIRED = "lease_expired"  # failed: the run's worker was lost while it held the lease
    DEADLINE_EXCEEDED = "deadline_exceeded"  # failed: past the run limit or the tick's budget
    INTERNAL_FAULT = "internal_fault"  # failed: the action raised and named no code of its own
    EXPIRED = "expired"  # skipped: a handed-over schedule's `expires` passed; it has ended
    SUPERSEDED = "superseded"  # skipped: the next due time came before a pending retry
    SKIP_DATE = "skip_date"  # skipped: a calendar's occurrence falls on one of its `skip:` dates, not missed
    UNDECLARED = "undeclared"  # skipped: a calendar came due while a deploy had removed it
    ACTION_GONE = "action_gone"  # failed: a handed-over schedule's action is no longer in the app; it has ended


class Kind(StrEnum):
    """What kind of failure a code is; an exception an action raises is kind `raised`."""

    RAISED = "raised"
    DEADLINE = "deadline"
    LOST = "lost"


class ActionError(Exception):
    """Raise it from an action to record the failure under a code of your own."""

    def __init__(self, code: str, message: str = ""):
        super().__init__(message or code)
        self.code = code


def what_a_run_did(items: int | None, events: dict | None) -> str:
    """What the screens say a run did: a purge's `2 records purged`, where an action's run says
    what it emitted, `3 events emitted (reminder_due 2, order_placed 1)`; "" where neither."""
    if items is not None:
        return f"{items} record{'' if items == 1 else 's'} purged"
    if not events:
        return ""
    count = sum(events.values())
    names = ", ".join(f"{name} {n}" for name, n in sorted(events.items()))
    return f"{count} event{'' if count == 1 else 's'} emitted ({names})"
