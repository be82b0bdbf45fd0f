"""Backfills an operator asked for, as the tick makes them: each occurrence once per
(schedule, at), under the schedule's own lease, however ticks race."""

import json
from dataclasses import dataclass
from typing import ClassVar

from ..database import Database, Row, Statement
from ..kinds import Call
from .claims import CALL_COLUMNS
from .leases import LEASE_AFTER_LAPSES, LEASE_OPEN, RUNNING_BESIDE
from .schedules import ONE_OFF_DONE, State
from .sql import chunks, json_rows

# A schedule `s` whose backfills are made now: not paused, not removed (or a one-off item done), no
# run of its own under way, nor one beside a later run on its record's own lease (`overlap: allow`):
# an occurrence going is not made twice. Those waiting are no more read than claimed, so they hold
# none up.
MAKES_NOW = (f"s.paused = 0 AND (s.removed_at IS NULL OR s.ended = '{ONE_OFF_DONE}') AND NOT {LEASE_OPEN}"
             f" AND NOT {RUNNING_BESIDE}")

# A backfill's schedule `s` (a LEFT JOIN's) gone: its row deleted, or an item ended but a one-off's
# `done` (cancelled, expired, its action gone: handed over again, it owes nothing from before).
GONE = f"s.name IS NULL OR (s.ended IS NOT NULL AND s.ended != '{ONE_OFF_DONE}')"
GONE_STATE = "ended"  # what a backfill whose schedule is gone ends as

# The pending backfills, oldest asked first, of schedules making them now or gone, each with its
# schedule's row (the tick's first read said some are pending: otherwise this is never sent). ?1
# how many at most. Those asked at one moment go in the order they were asked (the rowid, which
# the index holds), so none is sorted; those waiting are passed over in it.
PENDING = f"""
SELECT s.*, {LEASE_OPEN} AS lease_open, b.id AS backfill_id, b.from_at AS backfill_from, b.to_at AS backfill_to, b.who AS backfill_who,
       b.next_at AS backfill_next, {GONE} AS gone
FROM tickwork_backfills AS b INDEXED BY tickwork_backfills_pending
LEFT JOIN tickwork_schedules AS s ON s.name = b.schedule
WHERE b.state = 'pending' AND ({MAKES_NOW} OR {GONE})
ORDER BY b.requested_at, b.rowid LIMIT CAST(?1 AS INTEGER)
"""  # noqa: E501

# The backfills in ?1 (a JSON list of ids) the read found gone end (?2 the tick): only while still
# pending, and their schedule still gone as this statement finds it (one handed over again since
# keeps its backfill), however ticks race.
END_GONE = f"""
UPDATE tickwork_backfills AS b SET state = '{GONE_STATE}', ended_at = ?2
WHERE b.id IN (SELECT value FROM json_each(?1)) AND b.state = 'pending'
  AND NOT EXISTS (SELECT 1 FROM tickwork_schedules AS s WHERE s.name = b.schedule AND NOT ({GONE}))
"""

# An occurrence is made where a backfill made it, or a run for it succeeded: a run is for its due
# time, or, covering several occurrences, for the last of them. Each looked for through an index
# by schedule and moment: a schedule's other records are never read, however many.
MADE_RUN = """
EXISTS (SELECT 1 FROM tickwork_backfilled AS x WHERE x.schedule = j.name AND x.at = j.at)
OR EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.schedule = j.name AND r.due_at = j.at
           AND r.covers_last IS NULL AND r.outcome = 'succeeded')
OR EXISTS (SELECT 1 FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_last_covered
           WHERE r.schedule = j.name AND r.covers_last = j.at AND r.outcome = 'succeeded')
"""

# Which of the occurrences in ?1 (JSON [name, at]) are made already.
MADE = f"""
{json_rows("name", "at")}
SELECT j.name, j.at FROM j WHERE {MADE_RUN}
"""

@dataclass(frozen=True)
class Step:
    """What a round does for one backfill: claim the occurrence `at` (a run of `call`), or, with
    no run, only go on to `next`."""

    backfill: str
    name: str
    next: int
    who: str
    call: Call | None = None  # the occurrence's
    run: str | None = None
    trace: str | None = None

    # The columns of a step's row, by name: the occurrence's call's own (CALL_COLUMNS), NULL without one.
    COLUMNS: ClassVar[tuple[str, ...]] = ("name", "at", "n", "i", "dst", "run", "backfill", "who", "trace", "next")

    def row(self) -> list[object]:
        """The step as STEPS reads it, column by column (COLUMNS)."""
        return [self._column(column) for column in self.COLUMNS]

    def _column(self, column: str) -> object:
        if column in CALL_COLUMNS:
            return None if self.call is None else getattr(self.call, column)
        return getattr(self, column)


STEPS = json_rows(*Step.COLUMNS)

# The schedule's own lease, as the due runs take it (not paused, no live lease: never two runs of
# a schedule at once), moving no due time; only for an occurrence not made yet, of a backfill still
# pending (not cancelled meanwhile), of a schedule not removed or a one-off item done.
TAKE_BACKFILL_LEASES = f"""
{STEPS}
UPDATE tickwork_schedules AS s SET lease_run = j.run, lease_until = ?2
FROM j
WHERE s.name = j.name AND j.run IS NOT NULL AND {MAKES_NOW} AND {LEASE_AFTER_LAPSES}
  AND EXISTS (SELECT 1 FROM tickwork_backfills AS b WHERE b.id = j.backfill AND b.state = 'pending')
  AND NOT ({MADE_RUN})
RETURNING lease_run AS run
"""

# In the lease's batch: the occurrence is this run's, once and for all (its key is unique).
MARK_MADE = f"""
{STEPS}
INSERT INTO tickwork_backfilled (schedule, at, run, backfill)
SELECT j.name, j.at, j.run, j.backfill FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.lease_run = j.run
WHERE true
ON CONFLICT DO NOTHING
"""

# ... and its start, recorded as a backfill with who asked; the ids it returns are the witnesses.
RECORD_BACKFILL_STARTS = f"""
{STEPS}
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, outcome, at, n, i, dst, backfill, trace)
SELECT j.run, j.name, j.at, ?2, ?3, 'running', j.at, j.n, j.i, j.dst, j.who, j.trace
FROM j JOIN tickwork_backfilled AS x ON x.schedule = j.name AND x.at = j.at AND x.run = j.run
WHERE true
RETURNING id
"""

# ... and the backfill goes on past it: past an occurrence claimed only where this batch won it,
# past occurrences found made (no run) always; done once past the end of its range.
ADVANCE = f"""
{STEPS}
UPDATE tickwork_backfills AS b
SET next_at = MAX(b.next_at, j.next),
    made = b.made + (j.run IS NOT NULL),
    state = CASE WHEN MAX(b.next_at, j.next) > b.to_at THEN 'done' ELSE b.state END,
    ended_at = CASE WHEN MAX(b.next_at, j.next) > b.to_at THEN ?2 ELSE b.ended_at END
FROM j
WHERE b.id = j.backfill AND b.state = 'pending'
  AND (j.run IS NULL OR EXISTS (
      SELECT 1 FROM tickwork_backfilled AS x WHERE x.schedule = j.name AND x.at = j.at AND x.run = j.run))
"""

# The statements a round of claims costs per chunk.
CLAIM_STATEMENTS = 4


@dataclass(frozen=True)
class Pending:
    """A backfill still to make, with its schedule's row."""

    id: str
    schedule: State
    start: int  # where it goes on from
    end: int
    who: str

    @classmethod
    def from_row(cls, row: Row) -> "Pending":
        return cls(row["backfill_id"], State.from_row(row), int(row["backfill_next"]), int(row["backfill_to"]),
                   row["backfill_who"])


class BackfillStore:
    def __init__(self, db: Database):
        self.db = db

    async def pending(self, most: int) -> tuple[list[Pending], list[str]]:
        """The pending backfills to make now, and the ids of those whose schedule is gone."""
        rows = await self.db.all(PENDING, (most,))
        gone = [row["backfill_id"] for row in rows if row["gone"]]
        return [Pending.from_row(row) for row in rows if not row["gone"]], gone

    async def end_gone(self, ids: list[str], tick: int) -> None:
        await self.db.all(END_GONE, (json.dumps(ids), tick))

    async def made(self, occurrences: list[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which of the (schedule, at) were made already: backfilled, or a run for them succeeded."""
        if not occurrences:
            return set()
        results = await self.db.batch([(MADE, (json.dumps(rows),)) for rows in chunks(occurrences)])
        return {(row["name"], int(row["at"])) for rows in results for row in rows}

    async def claim(self, steps: list[Step], lease_until: int, tick: int, started: int) -> set[str]:
        """Takes the schedules' leases for the occurrences, marks them made and records the runs'
        starts, and moves the backfills on, in one transaction; the runs it recorded."""
        statements: list[Statement] = []
        for chunk in map(json.dumps, chunks([step.row() for step in steps])):
            statements += [(TAKE_BACKFILL_LEASES, (chunk, lease_until)), (MARK_MADE, (chunk,)),
                           (RECORD_BACKFILL_STARTS, (chunk, tick, started)), (ADVANCE, (chunk, tick))]
        results = await self.db.batch(statements)
        made = [rows for (sql, _), rows in zip(statements, results, strict=False) if sql == RECORD_BACKFILL_STARTS]
        return {row["id"] for rows in made for row in rows}
