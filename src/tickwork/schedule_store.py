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

# The app's tick, kept once: the batch that reads the rows marks it first, so a tick's view of
# which rows missed the previous tick is one transaction's. It also answers the earliest lease
# held on any row, declared or removed, so runs whose worker was lost end whoever held them.
MARK_TICK = """
UPDATE tickwork_app SET prev_tick = last_tick, last_tick = MAX(IFNULL(last_tick, ?1), ?1)
WHERE id = 1
RETURNING prev_tick,
  (SELECT MIN(lease_until) FROM tickwork_schedules WHERE lease_until IS NOT NULL) AS earliest_lease
"""

REACH = """
UPDATE tickwork_schedules SET prev_tick = last_tick, last_tick = MAX(last_tick, ?1)
WHERE name IN (SELECT value FROM json_each(?2))
RETURNING *
"""

# New rows in one statement, however many: ?1 is a JSON list of [name, every_ms, form, due_at].
SEED = """
INSERT INTO tickwork_schedules (name, every_ms, form, due_at, first_tick, last_tick)
SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
       json_extract(value, '$[3]'), ?2, ?2
FROM json_each(?1) WHERE true
ON CONFLICT (name) DO NOTHING
RETURNING *
"""
SEEDS_PER_STATEMENT = 200  # D1 takes 100 KB a statement

# Rows from before migration 0002 have no form; they were all `every:` schedules.
STORED_FORM = "IFNULL(form, 'every ' || every_ms)"

REBASE = f"""
UPDATE tickwork_schedules SET every_ms = ?2, form = ?3, due_at = ?4
WHERE name = ?1 AND {STORED_FORM} = ?5 AND due_at = ?6
RETURNING *
"""

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
    prev_tick: int | None = None  # the tick that reached the row before `last_tick`

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
            prev_tick=number(row.get("prev_tick")),
        )

    def lease_live(self, now: int) -> bool:
        return self.lease_until is not None and self.lease_until > now

    def lease_expired(self, now: int) -> bool:
        return self.lease_until is not None and self.lease_until <= now


@dataclass(frozen=True)
class Reached:
    """What a tick's first read found: the declared rows, the app's previous tick, and the
    earliest lease any row holds."""

    states: dict[str, State]
    prev_tick: int | None
    earliest_lease: int | None


def _number(value) -> int | None:
    return None if value is None else int(value)


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

    async def reach(self, names: list[str], tick: int) -> "Reached":
        """Marks the tick on the app and on every named state row that exists, and reads those
        rows, in one transaction."""
        [mark], rows = await self.db.batch([(MARK_TICK, (tick,)), (REACH, (tick, json.dumps(names)))])
        states = {row["name"]: State.from_row(row) for row in rows}
        return Reached(states, _number(mark["prev_tick"]), _number(mark["earliest_lease"]))

    async def seed_and_rebase(
        self, new: list[Seed], changed: list[tuple[State, Seed]], tick: int
    ) -> dict[str, State]:
        """Adds the rows of schedules seen for the first time, and moves the due times of those
        whose form changed, each only while its row is as this tick read it."""
        rows = [[s.name, s.every, s.form, s.due_at] for s in new]
        statements = [
            (SEED, (json.dumps(rows[start : start + SEEDS_PER_STATEMENT]), tick))
            for start in range(0, len(rows), SEEDS_PER_STATEMENT)
        ]
        statements += [
            (REBASE, (s.name, s.every, s.form, s.due_at, old.form, old.due_at))
            for old, s in changed
        ]
        if not statements:
            return {}
        results = await self.db.batch(statements)
        return {row["name"]: State.from_row(row) for rows in results for row in rows}

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

    async def runs(self, name: str) -> list[Row]:
        return await self.db.all(SELECT_RUNS, (name,))
