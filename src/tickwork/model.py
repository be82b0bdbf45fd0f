"""What the runtime knows of a schedule, and what a run or a skip ends as."""

from dataclasses import dataclass
from enum import StrEnum
from typing import Awaitable, Callable

from .errors import ScheduleError as ScheduleError  # its home is errors.py; `tickwork.ScheduleError` reads it here
from .kinds import Timing
from .times import MINUTE

Action = Callable[[], Awaitable[object]]

RUN_LIMIT = 15 * MINUTE  # a run is stopped at 15 minutes, whatever its tick's budget
# A run through a Workflow (`workflow:`) has no wall limit of its own: its instance is terminated
# past `limit:`, by default a day, at most 30 days, the run records' default retention.
WORKFLOW_LIMIT = 30 * 24 * 60 * MINUTE
WORKFLOW_DEFAULT_LIMIT = 24 * 60 * MINUTE
LEASE_GRACE = MINUTE  # a lease outlives its tick's budget by this much


@dataclass(frozen=True)
class Retry:
    """`retry: 3 after 1m`: a failed run is tried again for the same due time, up to `attempts`
    times more, the first after `pause` (ms), each pause twice the one before; `up to 30m` stops
    the pauses growing at `ceiling`, `jitter 30s` adds to each an offset in [0, `jitter`) drawn
    from (schedule, due time, attempt), and `except invalid_input` names codes never retried
    (`never`), as an ActionError raised with retry=False is not."""

    attempts: int
    pause: int
    ceiling: int | None = None
    jitter: int = 0  # whole seconds, in ms
    never: tuple[str, ...] = ()

    def pause_after(self, attempt: int, name: str = "", due: int = 0) -> int | None:
        """The pause after attempt `attempt` (1 the first run) of `name`'s due time `due` failed;
        None where none is left."""
        if attempt > self.attempts:
            return None
        return self.grown(attempt) + jitter_of(seed_of(name), due, attempt, self.jitter)

    def grown(self, attempt: int) -> int:
        """The pause after attempt `attempt`, before its jitter: doubled, up to the ceiling."""
        doubled = self.pause * 2 ** (attempt - 1)
        return doubled if self.ceiling is None else min(doubled, self.ceiling)

    def retries(self, code: str | None) -> bool:
        """Whether a failure under `code` may be tried again (its attempts left apart)."""
        return code not in self.never

    def settings(self) -> dict[str, object]:
        """The rule as a manifest entry and a handed-over schedule's JSON keep it (kinds.forms
        .retry_of_entry reads it back): a rule of attempts and pause alone is kept as 0.1.0 kept it."""
        kept: dict[str, object] = {"retry_attempts": self.attempts, "retry_pause_ms": self.pause}
        if self.ceiling is not None:
            kept["retry_ceiling_ms"] = self.ceiling
        if self.jitter:
            kept["retry_jitter_ms"] = self.jitter
        if self.never:
            kept["retry_except"] = list(self.never)
        return kept


# A jitter offset is drawn from the schedule's name, the due time and the attempt, by arithmetic
# SQLite does alike (a lapsed run's retry is scheduled in SQL): every racing tick draws the same.
_MIX = 1_000_003  # a prime; every product stays far inside SQLite's 64-bit integers
_BASE = 65_599


def seed_of(name: str) -> int:
    """A name's seed: a polynomial hash of every character of it (SEEDS_SQL computes the same),
    so two names differing in one character anywhere never share it."""
    seed = 0
    for char in name:
        seed = (seed * _BASE + ord(char)) % _MIX
    return seed


def jitter_of(seed: int, due: int, attempt: int, jitter: int) -> int:
    """An offset in [0, `jitter`) in whole seconds, the same for the same (seed, due, attempt);
    squared, so that due times a day apart do not fall into a few offsets."""
    mixed = (seed + due // 1000 % _MIX * 7_919 + attempt * 104_729) % _MIX
    return mixed * mixed % _MIX * (jitter // 1000) // _MIX * 1000


# seed_of in SQL, for the names of {names} (a CTE with a column `name`): CTEs `seeds(name, seed)`
# and its steps, one character a row; the statement's WITH must be RECURSIVE. A name's row of
# `seeds` is read once its last character is in.
SEEDS_SQL = f"""seed_steps(name, k, seed) AS (
    SELECT DISTINCT name, 0, 0 FROM {{names}}
    UNION ALL
    SELECT name, k + 1, (seed * {_BASE} + unicode(substr(name, k + 1, 1))) % {_MIX} FROM seed_steps
    WHERE k < length(name)),
  seeds(name, seed) AS (SELECT name, seed FROM seed_steps WHERE k = length(name))"""


# Retry.pause_after in SQL, for the runs whose lease lapsed (store.leases.SCHEDULE_LAPSED_RETRIES),
# which a statement must retry as a failed end would: {pause}, {attempt}, {ceiling}, {jitter},
# {seed} (seed_of the schedule's name, from SEEDS_SQL) and {due} are SQL expressions, {attempts}
# the attempts declared (a NULL ceiling or jitter is none; integers, as D1 may bind a float).
# tests/test_retries.py and test_retries_that_stop.py hold the two to one rule.
_MIXED = f"({{seed}} + CAST({{due}} AS INTEGER) / 1000 % {_MIX} * 7919 + {{attempt}} * 104729) % {_MIX}"
PAUSE_AFTER_SQL = ("MIN({pause} * (1 << ({attempt} - 1)), IFNULL({ceiling}, {pause} * (1 << ({attempt} - 1))))"
                   f"\n                               + {_MIXED} * {_MIXED} % {_MIX}"
                   f" * (CAST(IFNULL({{jitter}}, 0) AS INTEGER) / 1000) / {_MIX} * 1000")
ATTEMPT_LEFT_SQL = "{attempt} <= {attempts}"

# A due time's jitter (`jitter:`) is jitter_of's draw for attempt 0, the one a retry never makes:
# due_jitter in Python, DUE_JITTER_SQL the twin migration 0028 computes `runs_at` with.
DUE_ATTEMPT = 0
DUE_JITTER_SQL = (f"{_MIXED} * ({_MIXED}) % {_MIX} * (CAST({{jitter}} AS INTEGER) / 1000) / {_MIX} * 1000"
                  .format(seed="jitter_seed", due="due_at", attempt=DUE_ATTEMPT, jitter="jitter_ms"))


def due_jitter(name: str, due: int, jitter: int | None) -> int:
    """How long after its nominal due time `due` a schedule with `jitter` runs: the same for
    every tick that works it out, in [0, jitter)."""
    return 0 if not jitter else jitter_of(seed_of(name), due, DUE_ATTEMPT, jitter)


@dataclass(frozen=True)
class Schedule:
    """One declared entry: an `every:` schedule, a calendar or a pulse, calling `action`."""

    name: str
    timing: Timing  # grid.Every, calendar.Calendar or pulse.Pulse
    action: Action
    source: str = ""  # file:line of the declaration, for logs
    retry: Retry | None = None  # opt-in: by default a failure is tried again at the next due time
    limit: int | None = None  # the run's own limit (ms), within RUN_LIMIT
    starts: int | None = None  # `starts:`: no call before it (epoch ms)
    times: int | None = None  # a handed-over one's `times`: it ends after that many calls made
    overlap: str | None = None  # `skip`, `buffer` or `allow` (kinds.rules.OVERLAPS); None: the kind's own rule
    jitter: int | None = None  # ms: each due time runs up to this much after it (due_jitter)
    concurrency: tuple[str, int] | None = None  # declared `concurrency:`: the key (the action's where unnamed), K
    workflow: str | None = None  # `workflow: REPORTS`: the run creates an instance of that Workflow binding

    @property
    def form(self) -> str:
        """The form its state row keeps: its timing's, and its jitter where it has one."""
        from .kinds.forms import jittered_form

        return jittered_form(self.timing.form, self.jitter)


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
    WORKFLOW_ERRORED = "workflow_errored"  # failed: the run's Workflow instance errored
    TERMINATED = "terminated"  # failed: the run's Workflow instance was terminated (by an operator, or elsewhere)
    WORKFLOW_UNSTARTED = "workflow_unstarted"  # failed: the Workflow binding refused to create the instance


class Kind(StrEnum):
    """What kind of failure a code is; an exception an action raises is kind `raised`."""

    RAISED = "raised"
    DEADLINE = "deadline"
    LOST = "lost"
    UNRETRIED = "unretried"  # raised, with attempts left, and not retried: retry=False or `except`


class ActionError(Exception):
    """Raise it from an action to record the failure under a code of your own; with
    `retry=False` the due time's attempts end with it (a failure that will not heal)."""

    def __init__(self, code: str, message: str = "", retry: bool = True):
        super().__init__(message or code)
        self.code = code
        self.retry = retry  # False: never tried again, whatever attempts the schedule has left


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
