"""Schedule state rows, leases and run records, kept in the app's D1 database.

Every write that two ticks could race on is one conditional statement, and the rows its
`RETURNING` gives back say who won: D1 has no locks and `meta.changes` is only approximate.
"""

import json
from dataclasses import dataclass
from enum import Enum

from .database import Database, Row
from .model import Code, Kind, Outcome
from .timing import Call

# A tick's first batch marks the app's tick, kept once on its own row, and reads the rows due
# by now through the index on the due time: what exists but is not due is never read. The mark
# also answers the declared set the rows were last reconciled with, and the earliest lease any
# row holds, declared or removed, so runs whose worker was lost end whoever held them.
MARK_TICK = """
UPDATE tickwork_app SET prev_tick = last_tick, last_tick = MAX(IFNULL(last_tick, ?1), ?1)
WHERE id = 1
RETURNING fingerprint,
  (SELECT MIN(lease_until) FROM tickwork_schedules WHERE lease_until IS NOT NULL) AS earliest_lease
"""

# ?2 caps the rows to what the tick has statements left for (-1: no cap); the oldest due first.
SELECT_DUE = """
SELECT * FROM tickwork_schedules WHERE removed_at IS NULL AND due_at <= ?1
ORDER BY due_at LIMIT ?2
"""

# Reconciling, only when a deploy changed the declared set: first the rows of the declared names
# (?1 a JSON list), and the rows of every other name marked removed at this tick.
SELECT_NAMED = "SELECT * FROM tickwork_schedules WHERE name IN (SELECT value FROM json_each(?1))"

# The app's previous tick is the last that reached a schedule this tick finds removed.
MARK_REMOVED = """
UPDATE tickwork_schedules
SET removed_at = ?2, last_tick = IFNULL((SELECT prev_tick FROM tickwork_app WHERE id = 1), last_tick)
WHERE removed_at IS NULL AND name NOT IN (SELECT value FROM json_each(?1))
"""

# Then, in one batch: new rows, changed forms rebased, returning rows declared again, and the
# declared set sealed as reconciled. ?1 of SEED is a JSON list of [name, every_ms, form, due_at].
SEED = """
INSERT INTO tickwork_schedules (name, every_ms, form, due_at, first_tick, last_tick)
SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
       json_extract(value, '$[3]'), ?2, ?2
FROM json_each(?1) WHERE true
ON CONFLICT (name) DO NOTHING
"""
ROWS_PER_STATEMENT = 200  # D1 takes 100 KB a statement

# Rows from before migration 0002 have no form; they were all `every:` schedules.
STORED_FORM = "IFNULL(s.form, 'every ' || s.every_ms)"

# ?1: JSON [name, every_ms, form, due_at, old form, old due_at]; only rows still as the tick read
# them, so of two ticks reconciling at once the second changes nothing.
REBASE = f"""
UPDATE tickwork_schedules AS s
SET every_ms = json_extract(j.value, '$[1]'), form = json_extract(j.value, '$[2]'),
    due_at = json_extract(j.value, '$[3]'), removed_at = NULL
FROM json_each(?1) AS j
WHERE s.name = json_extract(j.value, '$[0]') AND {STORED_FORM} = json_extract(j.value, '$[4]')
  AND s.due_at = json_extract(j.value, '$[5]')
"""

DECLARED_AGAIN = """
UPDATE tickwork_schedules SET removed_at = NULL
WHERE removed_at IS NOT NULL AND name IN (SELECT value FROM json_each(?1))
"""

SEAL = "UPDATE tickwork_app SET fingerprint = ?1 WHERE id = 1"

# The lease: due time unchanged, not paused, no live lease. Taking it also moves the due time on,
# so a second tick with the same due time finds nothing to take.
TAKE_LEASE = """
UPDATE tickwork_schedules SET lease_run = ?3, lease_until = ?4, due_at = ?5
WHERE name = ?1 AND due_at = ?2 AND paused = 0
  AND (lease_until IS NULL OR lease_until <= ?6)
RETURNING name
"""

# In the lease's batch, for calendars of an action that has several: the moment goes to the
# first run that claims it, and only that run records a start.
CLAIM_MOMENT = """
INSERT INTO tickwork_moments (action, at, run)
SELECT ?2, ?3, ?1 FROM tickwork_schedules WHERE name = ?4 AND lease_run = ?1
ON CONFLICT DO NOTHING
"""

# In the lease's batch: inserts only where that batch's lease (and moment, if claimed) went to
# this run; the id it returns is the witness.
RECORD_START = """
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, outcome, at, n, i, dst)
SELECT ?1, name, ?2, ?3, ?4, 'running', ?6, ?7, ?8, ?9 FROM tickwork_schedules
WHERE name = ?5 AND lease_run = ?1
  AND (?10 IS NULL OR EXISTS (
      SELECT 1 FROM tickwork_moments WHERE action = ?10 AND at = ?6 AND run = ?1))
RETURNING id
"""

# A skip moves the due time on and marks the row with the skip's record, which the same batch
# then writes: only where the mark is this skip's, so of two racing ticks one records it.
SKIP_PAUSED = """
UPDATE tickwork_schedules SET due_at = ?3, skip_run = ?5
WHERE name = ?1 AND due_at = ?2 AND paused = 1
"""

SKIP_RUNNING = """
UPDATE tickwork_schedules SET due_at = ?3, skip_run = ?5
WHERE name = ?1 AND due_at = ?2 AND paused = 0 AND lease_until > ?4
"""

# A call owed but not made because it is overdue.
SKIP_OWED = """
UPDATE tickwork_schedules SET due_at = ?3, skip_run = ?5
WHERE name = ?1 AND due_at = ?2 AND paused = 0
  AND (lease_until IS NULL OR lease_until <= ?4)
"""

RECORD_SKIP = """
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome, code, detail, at, n, i, dst)
SELECT ?1, name, ?3, ?4, 'skipped', ?5, ?6, ?7, ?8, ?9, ?10 FROM tickwork_schedules
WHERE name = ?2 AND skip_run = ?1
RETURNING id
"""

# A leased run whose moment another calendar of the action made: the lease goes back, recorded.
RECORD_COALESCED = """
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome, code, detail, at, n, i, dst)
VALUES (?1, ?2, ?3, ?4, 'skipped', ?5, ?6, ?7, ?8, ?9, ?10)
ON CONFLICT (id) DO NOTHING
"""

RECORD_END = """
UPDATE tickwork_runs SET outcome = ?2, code = ?3, kind = ?4, detail = ?5, ended_at = ?6
WHERE id = ?1 AND outcome = 'running'
"""

GIVE_BACK_LEASE = """
UPDATE tickwork_schedules SET lease_run = NULL, lease_until = NULL
WHERE name = ?1 AND lease_run = ?2
"""

FAIL_EXPIRED_RUNS = f"""
UPDATE tickwork_runs
SET outcome = 'failed', code = '{Code.LEASE_EXPIRED}', kind = '{Kind.LOST}', ended_at = ?1,
    detail = 'the run held its lease past ' || ?1 || ' and its end was never recorded: '
             || 'its worker was lost, or could not reach D1 to record the end'
WHERE outcome = 'running'
  AND id IN (SELECT lease_run FROM tickwork_schedules WHERE lease_until <= ?1)
"""

CLEAR_EXPIRED_LEASES = """
UPDATE tickwork_schedules SET lease_run = NULL, lease_until = NULL
WHERE lease_until <= ?1
"""

# After a write that answered an error, whether it landed: whose lease the row holds, and
# whether the run's (or skip's) record exists. Both are written only in that write's batch.
WRITTEN_BY = """
SELECT (SELECT lease_run FROM tickwork_schedules WHERE name = ?1) = ?2 AS leased,
       EXISTS (SELECT 1 FROM tickwork_runs WHERE id = ?2) AS recorded
"""

SELECT_STATE = "SELECT * FROM tickwork_schedules WHERE name = ?1"

# A declared schedule was reached by the app's last tick; a removed one keeps its own.
LAST_TICK = """
SELECT CASE WHEN s.removed_at IS NULL THEN a.last_tick ELSE s.last_tick END AS last_tick
FROM tickwork_schedules AS s, tickwork_app AS a WHERE s.name = ?1 AND a.id = 1
"""

SELECT_RUNS = "SELECT * FROM tickwork_runs WHERE schedule = ?1 ORDER BY due_at, started_at"


@dataclass(frozen=True)
class State:
    name: str
    every: int
    due_at: int
    paused: bool
    lease_run: str | None
    lease_until: int | None
    first_tick: int
    last_tick: int
    form: str
    removed_at: int | None = None  # the tick that found it no longer declared

    @classmethod
    def from_row(cls, row: Row) -> "State":
        number = _number
        return cls(
            name=row["name"],
            every=int(row["every_ms"]),
            due_at=int(row["due_at"]),
            paused=bool(row["paused"]),
            lease_run=row["lease_run"],
            lease_until=number(row["lease_until"]),
            first_tick=int(row["first_tick"]),
            last_tick=int(row["last_tick"]),
            form=row.get("form") or f"every {int(row['every_ms'])}",
            removed_at=number(row.get("removed_at")),
        )

    def lease_live(self, now: int) -> bool:
        return self.lease_until is not None and self.lease_until > now

    def lease_expired(self, now: int) -> bool:
        return self.lease_until is not None and self.lease_until <= now


@dataclass(frozen=True)
class Reached:
    """What a tick's first read found: the rows due, the declared set they were reconciled with,
    and the earliest lease any row holds."""

    due: list[State]
    fingerprint: str | None
    earliest_lease: int | None


def _number(value) -> int | None:
    return None if value is None else int(value)


def _chunks(items: list) -> list[list]:
    return [items[start : start + ROWS_PER_STATEMENT] for start in range(0, len(items), ROWS_PER_STATEMENT)]


class Lease(Enum):
    TAKEN = "taken"
    LOST = "lost"  # another tick took it, or the row changed since it was read
    MOMENT_TAKEN = "moment_taken"  # taken, but another calendar of the action made this moment


@dataclass(frozen=True)
class Seed:
    """A state row to write: a schedule's name, `every` (0 for other kinds), form and due time."""

    name: str
    every: int
    form: str
    due_at: int


def _call(call: Call) -> tuple:
    return call.at, call.n, call.i, call.dst


class ScheduleStore:
    def __init__(self, db: Database):
        self.db = db

    async def reach(self, tick: int, most: int | None = None) -> "Reached":
        """Marks the app's tick and reads the rows due by `tick`, at most `most`, in one batch."""
        [mark], rows = await self.db.batch(
            [(MARK_TICK, (tick,)), (SELECT_DUE, (tick, -1 if most is None else most))]
        )
        return Reached(
            [State.from_row(row) for row in rows], mark["fingerprint"], _number(mark["earliest_lease"])
        )

    async def due(self, tick: int, most: int | None = None) -> list[State]:
        """The rows due by `tick`, read again after a reconcile."""
        rows = await self.db.all(SELECT_DUE, (tick, -1 if most is None else most))
        return [State.from_row(row) for row in rows]

    async def named(self, names: list[str], tick: int) -> dict[str, State]:
        """The rows of the declared `names`; every other row is marked removed at `tick`."""
        listed = json.dumps(names)
        statements = [(SELECT_NAMED, (json.dumps(chunk),)) for chunk in _chunks(names)]
        results = await self.db.batch(statements + [(MARK_REMOVED, (listed, tick))])
        return {row["name"]: State.from_row(row) for rows in results[:-1] for row in rows}

    async def reconcile(
        self,
        new: list[Seed],
        changed: list[tuple[State, Seed]],
        again: list[str],
        fingerprint: str | None,
        tick: int,
    ) -> None:
        """Adds the rows of schedules seen for the first time, rebases those whose form changed
        (each only while its row is as this tick read it), keeps the rows declared again, and
        seals the declared set as reconciled, in one transaction."""
        seeds = [[s.name, s.every, s.form, s.due_at] for s in new]
        rebases = [[s.name, s.every, s.form, s.due_at, old.form, old.due_at] for old, s in changed]
        statements = [(SEED, (json.dumps(chunk), tick)) for chunk in _chunks(seeds)]
        statements += [(REBASE, (json.dumps(chunk),)) for chunk in _chunks(rebases)]
        statements += [(DECLARED_AGAIN, (json.dumps(chunk),)) for chunk in _chunks(again)]
        if fingerprint is not None:
            statements.append((SEAL, (fingerprint,)))
        if statements:
            await self.db.batch(statements)

    async def expire_leases(self, tick: int) -> None:
        """Ends every run whose lease lapsed before `tick` as `failed`/`lease_expired`."""
        await self.db.batch([(FAIL_EXPIRED_RUNS, (tick,)), (CLEAR_EXPIRED_LEASES, (tick,))])

    async def take_lease(
        self,
        name: str,
        due: int,
        next_due: int,
        run_id: str,
        until: int,
        tick: int,
        started: int,
        call: Call = Call(),
        moment_of: str | None = None,
    ) -> Lease:
        """Takes the lease and records the run's start, in one batch. With `moment_of` (an
        action's key), the call's moment must also be this run's to claim."""
        statements = [(TAKE_LEASE, (name, due, run_id, until, next_due, tick))]
        if moment_of is not None:
            statements.append((CLAIM_MOMENT, (run_id, moment_of, call.at, name)))
        statements.append((RECORD_START, (run_id, due, tick, started, name, *_call(call), moment_of)))
        results = await self.db.batch(statements)
        if not results[0]:
            return Lease.LOST
        return Lease.TAKEN if results[-1] else Lease.MOMENT_TAKEN

    async def skip(
        self,
        name: str,
        due: int,
        next_due: int,
        reason: Code,
        run_id: str,
        tick: int,
        call: Call = Call(),
        detail: str | None = None,
    ) -> bool:
        """Moves the due time on past a call not made and records why, if this tick won."""
        move = {Code.PAUSED: SKIP_PAUSED, Code.RUNNING: SKIP_RUNNING}.get(reason, SKIP_OWED)
        record = (run_id, name, due, tick, reason, detail, *_call(call))
        _, recorded = await self.db.batch(
            [(move, (name, due, next_due, tick, run_id)), (RECORD_SKIP, record)]
        )
        return bool(recorded)

    async def coalesced(
        self, name: str, due: int, run_id: str, tick: int, call: Call, detail: str
    ) -> None:
        """Gives back a lease whose moment another calendar of the action made, recorded."""
        await self.db.batch(
            [
                (GIVE_BACK_LEASE, (name, run_id)),
                (RECORD_COALESCED, (run_id, name, due, tick, Code.COALESCED, detail, *_call(call))),
            ]
        )

    async def finish(
        self,
        name: str,
        run_id: str,
        outcome: Outcome,
        code: str | None,
        kind: str | None,
        detail: str | None,
        ended: int,
    ) -> None:
        """Records how the run ended and gives its lease back, in one transaction."""
        await self.db.batch(
            [
                (RECORD_END, (run_id, outcome, code, kind, detail, ended)),
                (GIVE_BACK_LEASE, (name, run_id)),
            ]
        )

    async def written_by(self, name: str, run_id: str) -> "Lease":
        """What a lease or skip batch that answered an error did: TAKEN, MOMENT_TAKEN, or LOST
        when nothing of it landed. A skip that landed reads as TAKEN."""
        [row] = await self.db.all(WRITTEN_BY, (name, run_id))
        if row["recorded"]:
            return Lease.TAKEN
        return Lease.MOMENT_TAKEN if row["leased"] else Lease.LOST

    async def state(self, name: str) -> State | None:
        rows = await self.db.all(SELECT_STATE, (name,))
        return State.from_row(rows[0]) if rows else None

    async def last_tick(self, name: str) -> int | None:
        """The last tick that reached the schedule."""
        rows = await self.db.all(LAST_TICK, (name,))
        return _number(rows[0]["last_tick"]) if rows else None

    async def runs(self, name: str) -> list[Row]:
        return await self.db.all(SELECT_RUNS, (name,))
