"""How runs end: the batch that records their ends, which gives their leases back, each run's own
writes behind the check that its record is still running, and the retries a failed end schedules."""

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from ..database import Statement
from .sql import chunks, json_chunks, json_lists, json_rows

if TYPE_CHECKING:  # typing only: what loads the ends need not load the outbox's statements
    from .outbox import Emitted

STACK_KEPT = 4000  # characters of a raised run's traceback its record keeps, the end: where it raised


@dataclass(frozen=True)
class End:
    """How a run ended, to record."""

    name: str
    run: str
    outcome: str
    code: str | None
    kind: str | None
    detail: str | None
    ended: int | None  # None for a run going on through a Workflow (workflow_runs): its end comes later
    items: int | None = None  # what a purge run deleted, and each batch's count (JSON)
    batches: str | None = None
    events: str | None = None  # what a run emitted and kept: JSON {"event": count}
    writes: tuple[Statement, ...] = field(default=(), compare=False)  # a succeeded run's own statements
    retry: int | None = None  # a failed run with attempts left: when its next attempt is due,
    attempt: int | None = None  # which attempt that is, the due time it is for, and its call
    for_due: int | None = None
    at: int | None = None
    n: int | None = None
    i: int | None = None
    dst: str | None = None
    times: int | None = None  # a schedule handed over with `times`: this end counts as a call made
    stack: str | None = None  # a raised run's traceback, its end: at most STACK_KEPT characters
    beside: bool = False  # `overlap: allow`: its record keeps its own lease, which a later run's does not take

    # The columns of an end's row, by name: every field but its writes, statements of their own.
    COLUMNS: ClassVar[tuple[str, ...]] = (
        "name", "run", "outcome", "code", "kind", "detail", "ended", "items", "batches", "events", "retry",
        "attempt", "for_due", "at", "n", "i", "dst", "stack")  # not `times`: COUNT_CALLS takes its own JSON

    def row(self) -> list[object]:
        """The end as RECORD_ENDS reads it, column by column (COLUMNS)."""
        return [getattr(self, column) for column in self.COLUMNS]


ENDS = json_rows(*End.COLUMNS)

# Runs' ends, written again after an error, so each only while its record is still `running`.
RECORD_ENDS = f"""
{ENDS}
UPDATE tickwork_runs AS r
SET outcome = j.outcome, code = j.code, kind = j.kind, detail = j.detail, ended_at = j.ended,
    items = j.items, batches = j.batches, events = j.events, stack = j.stack
FROM j WHERE r.id = j.run AND r.outcome = 'running'
"""

# A run's own statements (`on_success.write`) go in its end's batch behind this, which fails the
# batch whole (outcome is NOT NULL) once the run's record is no longer running: its end written
# already by a batch that landed though D1 answered an error, or its lease lapsed and another
# tick recorded it lease_expired. So they commit once, and never with a failed run.
STILL_RUNNING = "UPDATE tickwork_runs SET outcome = NULL WHERE id = ?1 AND outcome <> 'running'"

# In the end's batch, before the end is recorded (which gives the lease back): a failed run with
# attempts left makes its retry the row's due time, unless the next due time comes first, and
# keeps that one aside. Only while the run still holds the lease, its record running: an end
# written again, or one whose lease lapsed, schedules nothing more.
SCHEDULE_RETRIES = f"""
{ENDS}
UPDATE tickwork_schedules AS s
SET retry_next = s.due_at, due_at = MIN(s.due_at, j.retry), retry_attempt = j.attempt, retry_due = j.for_due,
    retry_at = j.at, retry_n = j.n, retry_i = j.i, retry_dst = j.dst
FROM j WHERE s.name = j.name AND s.lease_run = j.run AND j.retry IS NOT NULL AND s.removed_at IS NULL
  AND EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.id = j.run AND r.outcome = 'running')
"""


# A handed-over schedule with `times` counts each call made, succeeded or failed, in the end's
# batch before the end is recorded, so only while the run holds the lease and its record is
# running: an end written again counts nothing, nor a run whose lease lapsed (its call's fate
# unknown). Only `calls_made` is set, which no index names. ?1: JSON [name, run, ended, times]; only
# in a batch with such an end.
MADE_ITS_CALLS = "made_its_calls"
COUNTED = """WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS run,
                  json_extract(value, '$[2]') AS ended, json_extract(value, '$[3]') AS times FROM json_each(?1))"""
COUNT_CALLS = f"""
{COUNTED}
UPDATE tickwork_schedules AS s SET calls_made = IFNULL(s.calls_made, 0) + 1
FROM j WHERE s.name = j.name AND s.lease_run = j.run AND s.ended IS NULL
  AND EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.id = j.run AND r.outcome = 'running')
"""

# Then, of the same rows, those whose count is reached end, removed at the end's moment: the only
# rows this writes (`removed_at` is in the rows' indexes; a row still counting is not touched).
END_COUNTED = f"""
{COUNTED}
UPDATE tickwork_schedules AS s SET ended = '{MADE_ITS_CALLS}', removed_at = j.ended
FROM j WHERE s.name = j.name AND s.ended IS NULL AND s.calls_made >= j.times
"""


# The same for ends of runs side by side (`overlap: allow`), only in a batch with one: a run that
# gave the row's lease to a later one still schedules its retry, where the row keeps none pending
# (it keeps one), and still counts its call. Its record running is what says its end is its own.
SCHEDULE_RETRIES_BESIDE = SCHEDULE_RETRIES.replace("s.lease_run = j.run", "s.retry_attempt IS NULL")
COUNT_CALLS_BESIDE = COUNT_CALLS.replace("s.lease_run = j.run AND ", "")


def end_chunks(ends: list[End]) -> list[tuple[list[End], str]]:
    """`ends` in chunks of at most ROWS_PER_STATEMENT, each with its rows as one JSON list of at
    most JSON_BYTES: failed runs' details and stacks make rows large, and D1 takes no string
    past 2,000,000 bytes."""
    found: list[tuple[list[End], str]] = []
    for part in chunks(ends):
        start = 0
        for text, count in json_lists([end.row() for end in part]):
            found.append((part[start : start + count], text))
            start += count
    return found


def _ends_apart(ends: list[End]) -> list[tuple[list[End], str]]:
    """end_chunks, the ends of runs side by side (`overlap: allow`) in chunks of their own: only
    theirs take the BESIDE statements, every other end its own."""
    return [*end_chunks([e for e in ends if not e.beside]), *end_chunks([e for e in ends if e.beside])]


def end_statements(ends: list[End]) -> list[Statement]:
    """The statements that record how runs ended, which gives their leases back, for a batch,
    each run's own writes first, behind the check that its record is still running; per chunk of
    ends, the retries they schedule, then the ends."""
    statements: list[Statement] = [s for end in ends if end.writes for s in [(STILL_RUNNING, (end.run,)), *end.writes]]
    for part, chunk in _ends_apart(ends):
        beside = part[0].beside
        if any(end.retry is not None for end in part):
            statements.append((SCHEDULE_RETRIES_BESIDE if beside else SCHEDULE_RETRIES, (chunk,)))
        counted = [[end.name, end.run, end.ended, end.times] for end in part if end.times is not None]
        if counted:
            statements += [(COUNT_CALLS_BESIDE if beside else COUNT_CALLS, (json.dumps(counted),)),
                           (END_COUNTED, (json.dumps(counted),))]
        statements.append((RECORD_ENDS, (chunk,)))
    return statements


def ends_cost(ends: list[End], emitted: "list[Emitted]") -> int:
    """The statements end_statements(ends) and OutboxStore.emitting(emitted) make, and one per
    chunk of events for what their sends came to. Counted, not built: the tick asks it whenever
    it weighs what it has left."""
    parts = [part for part, _ in _ends_apart(ends)]
    retries = sum(1 for part in parts if any(end.retry is not None for end in part))
    retries += 2 * sum(1 for part in parts if any(end.times is not None for end in part))  # COUNT_CALLS, END_COUNTED
    writes = sum(1 + len(end.writes) for end in ends if end.writes)  # each behind its check
    events = len(json_chunks([row.row() for row in emitted]))
    return len(parts) + retries + writes + 2 * events + events


class EndRecords:
    """The statements that record how runs ended, for the batch the tick sends them in."""

    @staticmethod
    def ending(ends: list[End]) -> list[Statement]:
        """end_statements, for the tick that holds the store."""
        return end_statements(ends)
