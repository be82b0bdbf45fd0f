"""A schedule's state row: read when due or by name, reconciled with what a deploy declares, and
handed over or cancelled at run time."""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..database import Database, Row
from ..model import Code, seed_of
from ..kinds import Call
from .leases import LEASE_OPEN, holds_lease
from .sql import json_chunks, json_rows, number

# What a one-off item's row says once its one call is made (claims.TAKE_LEASES_ENDING): where that
# call did not succeed, a backfill still makes its moment (backfill.backfilled_once_ended).
ONE_OFF_DONE = "done"

# ?2 caps the rows to what the tick has statements left for (-1: no cap); the oldest due first.
# Runs asked for by hand are read beside them, through an index of their own: those of schedules
# still there, as only those can be made (a request left on a removed row is never read again).
# (D1 binds every number as a REAL: a number that becomes text or a LIMIT is cast back.)
# Every read of state rows the tick makes answers whether the row's lease is open (LEASE_OPEN).
# Rows are found by `runs_at`, the due time delayed by the row's jitter (migration 0028).
# Of the rows naming a concurrency key (migration 0029), only the first of each key in the order
# they run, as many as its limit, are kept: no more of them could be claimed. They are read apart,
# along the index of keyed rows by runs_at (migration 0029), so the rows naming no key are still
# read in order up to the limit and no further, keyed rows not yet due are not read, and only keyed
# rows due are numbered.
SELECT_DUE = f"""
SELECT s.*, {LEASE_OPEN} AS lease_open FROM (
    SELECT * FROM (SELECT *, NULL AS place FROM tickwork_schedules
                   WHERE removed_at IS NULL AND runs_at <= ?1 AND concurrency_key IS NULL
                   ORDER BY runs_at LIMIT CAST(?2 AS INTEGER))
    UNION ALL
    SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY concurrency_key ORDER BY runs_at, name) AS place
                   FROM tickwork_schedules INDEXED BY tickwork_schedules_keyed_by_due
                   WHERE concurrency_key IS NOT NULL AND removed_at IS NULL AND runs_at <= ?1)
    WHERE place <= concurrency_limit
    UNION ALL
    SELECT *, NULL AS place FROM tickwork_schedules INDEXED BY tickwork_schedules_by_hand
    WHERE run_requested_at IS NOT NULL AND removed_at IS NULL AND runs_at > ?1
) AS s ORDER BY s.runs_at LIMIT CAST(?2 AS INTEGER)
"""

# Reconciling, only when a deploy changed the declared set: first the rows of the declared names
# (?1 a JSON list), and the rows of every other name marked removed at this tick.
SELECT_NAMED = f"""
SELECT s.*, {LEASE_OPEN} AS lease_open FROM tickwork_schedules AS s
WHERE s.name IN (SELECT value FROM json_each(?1))
"""

# The app's previous tick is the last that reached a schedule this tick finds removed. Through the
# index of declared rows: a million handed-over schedules are not read.
MARK_REMOVED = """
UPDATE tickwork_schedules INDEXED BY tickwork_schedules_declared
SET removed_at = ?2, last_tick = IFNULL((SELECT prev_tick FROM tickwork_app WHERE id = 1), last_tick)
WHERE removed_at IS NULL AND action IS NULL AND name NOT IN (SELECT value FROM json_each(?1))
"""

# Then, in one batch: new rows, changed forms rebased, returning rows declared again, and the
# declared set sealed as reconciled. ?1 of SEED is a JSON list of [name, every_ms, form, due_at,
# jitter_ms, jitter_seed] (migration 0028: a row's jitter moves the moment it runs, `runs_at`).
SEED = """
INSERT INTO tickwork_schedules (name, every_ms, form, due_at, first_tick, last_tick, jitter_ms, jitter_seed)
SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
       json_extract(value, '$[3]'), ?2, ?2, json_extract(value, '$[4]'), json_extract(value, '$[5]')
FROM json_each(?1) WHERE true
ON CONFLICT (name) DO NOTHING
"""

# Rows from before migration 0002 have no form; they were all `every:` schedules.
STORED_FORM = "IFNULL(s.form, 'every ' || s.every_ms)"

# ?1: JSON [name, every_ms, form, due_at, old form, old due_at, jitter_ms, jitter_seed]; only rows
# still as the tick read them, so of two ticks reconciling at once the second changes nothing.
REBASE = f"""
UPDATE tickwork_schedules AS s
SET every_ms = json_extract(j.value, '$[1]'), form = json_extract(j.value, '$[2]'),
    due_at = json_extract(j.value, '$[3]'), removed_at = NULL, retry_attempt = NULL,
    jitter_ms = json_extract(j.value, '$[6]'), jitter_seed = json_extract(j.value, '$[7]')
FROM json_each(?1) AS j
WHERE s.name = json_extract(j.value, '$[0]') AND {STORED_FORM} = json_extract(j.value, '$[4]')
  AND s.due_at = json_extract(j.value, '$[5]')
"""

# A declared schedule's `concurrency:` kept on its row, for the claim to count by as it does a
# handed-over one's (?1: JSON [name, key, limit]): only in a reconcile's batch, after SEED made the
# rows, and only for the rows whose key or limit the declaration changed.
LIMIT_DECLARED = """
UPDATE tickwork_schedules AS s
SET concurrency_key = json_extract(j.value, '$[1]'), concurrency_limit = json_extract(j.value, '$[2]')
FROM json_each(?1) AS j
WHERE s.name = json_extract(j.value, '$[0]') AND s.action IS NULL
"""

DECLARED_AGAIN = """
UPDATE tickwork_schedules SET removed_at = NULL
WHERE removed_at IS NOT NULL AND name IN (SELECT value FROM json_each(?1))
"""

# The declared set reconciled, kept on the app's row: the last statement of the reconcile's batch.
SEAL = "UPDATE tickwork_app SET fingerprint = ?1 WHERE id = 1"


@dataclass(frozen=True)
class Undeclared:
    """What a calendar declared again missed while it was gone, as the one skip `run` that records
    it: from `due` to `at`, its last; `count`, `first`, `last` and `more` (1 where the count is
    not exact) only where it missed more than one."""

    run: str
    name: str
    due: int
    at: int
    count: int | None
    first: int | None
    last: int | None
    more: int | None

    COLUMNS: ClassVar[tuple[str, ...]] = ("run", "name", "due", "at", "count", "first", "last", "more")

    def row(self) -> list[object]:
        """The skip as RECORD_UNDECLARED reads it, column by column (COLUMNS)."""
        return [getattr(self, column) for column in self.COLUMNS]


# A calendar declared again owes nothing from while it was gone (REBASE moves it on), but what
# it missed is recorded, in the same batch, as one skip covering those occurrences (?1: JSON
# Undeclared rows, ?2 the tick), once: its id derives from the row's due time, so of ticks
# reconciling at once one keeps it.
UNDECLARED_DETAIL = ("the calendar was not declared when these occurrences came due (a deploy had removed it); "
                     "declared again, it owes nothing from then: `tickwork backfill` makes them")
RECORD_UNDECLARED = f"""
{json_rows(*Undeclared.COLUMNS)}
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome, code, detail, at,
    covers, covers_first, covers_last, covers_more, attempt)
SELECT j.run, j.name, j.due, ?2, 'skipped', '{Code.UNDECLARED}', '{UNDECLARED_DETAIL}', j.at,
       j.count, j.first, j.last, j.more, 1
FROM j WHERE true
ON CONFLICT DO NOTHING
"""

@dataclass(frozen=True)
class Handed:
    """A schedule handed over at run time as HAND_OVER keeps it: its id `name`, its action's key,
    its timing (the entry's JSON), input and form, first due at `due_at`, kept at `tick`."""

    name: str
    action: str
    timing: str
    input: str
    form: str
    every_ms: int
    due_at: int
    expires_at: int | None
    tick: int
    label: str | None = None
    jitter_ms: int | None = None
    jitter_seed: int | None = None
    concurrency_key: str | None = None  # at most concurrency_limit runs at once of the rows naming it
    concurrency_limit: int | None = None

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "name", "action", "timing", "input", "form", "every_ms", "due_at", "expires_at", "tick", "label",
        "jitter_ms", "jitter_seed", "concurrency_key", "concurrency_limit")

    def row(self) -> list[object]:
        """The schedule as HANDED reads it, column by column (COLUMNS)."""
        return [getattr(self, column) for column in self.COLUMNS]


# Schedules handed over at run time, many in one statement (?1 a JSON list of rows): a new row, or
# one cancelled, expired or ended for want of its action coming back under its id, owing nothing
# from before (not even a run asked for by hand, its calls counted or its links to a replace). One
# going on, a one-off moment already made (`done`) or one that made its `times` calls is left as it
# is: a hand-over retried after the calls makes no more. Its label, no part of the id, is the one of
# the hand-over that wrote the row; its concurrency key and limit are part of the id (the entry's
# JSON keeps them), so a row taken back keeps its own.
HANDED = json_rows(*Handed.COLUMNS)
ENDED_TO_COME_BACK = "('cancelled', 'expired', 'action_gone', 'replaced')"
COMES_BACK = """due_at = excluded.due_at, first_tick = excluded.first_tick, removed_at = NULL, ended = NULL,
    run_requested_at = NULL, run_requested_by = NULL, retry_attempt = NULL, label = excluded.label,
    calls_made = NULL, replaced_by = NULL, replaces = excluded.replaces"""
HAND_OVER = f"""
{HANDED}
INSERT INTO tickwork_schedules
    (name, action, timing, input, form, every_ms, due_at, expires_at, first_tick, last_tick, label, jitter_ms,
     jitter_seed, concurrency_key, concurrency_limit)
SELECT name, action, timing, input, form, every_ms, due_at, expires_at, tick, tick, label, jitter_ms, jitter_seed,
       concurrency_key, concurrency_limit FROM j WHERE true
ON CONFLICT (name) DO UPDATE
SET {COMES_BACK}
WHERE ended IN {ENDED_TO_COME_BACK}
"""

# ?1 a JSON list of ids; the rows it returns are those it ended. (An operator's cancel is the same
# change of one row: operator.CANCEL_ITEM.)
ITEM_CANCELLABLE = "action IS NOT NULL AND ended IS NULL"
CANCEL = f"""
UPDATE tickwork_schedules SET removed_at = ?2, ended = 'cancelled'
WHERE name IN (SELECT value FROM json_each(?1)) AND {ITEM_CANCELLABLE}
RETURNING name
"""

SELECT_STATE = f"SELECT s.*, {LEASE_OPEN} AS lease_open FROM tickwork_schedules AS s WHERE s.name = ?1"

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
    lease_run: str | None  # the lease while it is open (its run's record running), else None
    lease_until: int | None
    first_tick: int
    last_tick: int
    form: str
    removed_at: int | None = None  # the tick that found it no longer declared, or ended it
    action: str | None = None  # handed over at run time: the action's key, its timing and input
    timing: str | None = None
    input: str | None = None
    expires_at: int | None = None
    run_requested_at: int | None = None  # a run asked for by hand, and by whom
    run_requested_by: str | None = None
    retry_attempt: int | None = None  # a pending retry: the attempt it makes, the due time it is for,
    retry_due: int | None = None  # its call, and the next due time it put aside
    retry_call: Call = Call()
    retry_next: int | None = None
    runs_at: int | None = None  # the due time its jitter delays it to (migration 0028)
    concurrency_key: str | None = None  # handed over with `concurrency=`: its runs count against the key's limit
    concurrency_limit: int | None = None

    @classmethod
    def from_row(cls, row: Row) -> "State":
        held = holds_lease(row)
        return cls(
            name=row["name"],
            every=int(row["every_ms"]),
            due_at=int(row["due_at"]),
            paused=bool(row["paused"]),
            lease_run=row["lease_run"] if held else None,
            lease_until=number(row["lease_until"]) if held else None,
            first_tick=int(row["first_tick"]),
            last_tick=int(row["last_tick"]),
            form=row.get("form") or f"every {int(row['every_ms'])}",
            removed_at=number(row.get("removed_at")),
            action=row.get("action"),
            timing=row.get("timing"),
            input=row.get("input"),
            expires_at=number(row.get("expires_at")),
            run_requested_at=number(row.get("run_requested_at")),
            run_requested_by=row.get("run_requested_by"),
            retry_attempt=number(row.get("retry_attempt")),
            retry_due=number(row.get("retry_due")),
            retry_call=Call(number(row.get("retry_at")), number(row.get("retry_n")), number(row.get("retry_i")),
                            row.get("retry_dst")),
            retry_next=number(row.get("retry_next")),
            runs_at=number(row.get("runs_at")),
            concurrency_key=row.get("concurrency_key"),
            concurrency_limit=number(row.get("concurrency_limit")),
        )

    def lease_live(self, now: int) -> bool:
        return self.lease_until is not None and self.lease_until > now

    def lease_expired(self, now: int) -> bool:
        return self.lease_until is not None and self.lease_until <= now


@dataclass(frozen=True)
class Seed:
    """A state row to write: a schedule's name, `every` (0 for other kinds), form and due time."""

    name: str
    every: int
    form: str
    due_at: int
    jitter: int | None = None

    def row(self) -> list[object]:
        """The row as SEED reads it; REBASE reads its jitter after the old form and due time."""
        return [self.name, self.every, self.form, self.due_at, *self.jittered()]

    def jittered(self) -> list[object]:
        return [self.jitter, seed_of(self.name) if self.jitter else None]


class Schedules:
    """The state rows: due and named reads, the reconcile after a deploy, hand-overs and cancels."""

    def __init__(self, db: Database):
        self.db = db

    async def due(self, tick: int, most: int | None = None) -> list[State]:
        """The rows due by `tick`, read again after a reconcile."""
        rows = await self.db.all(SELECT_DUE, (tick, -1 if most is None else most))
        return [State.from_row(row) for row in rows]

    async def named(self, names: list[str], tick: int) -> dict[str, State]:
        """The rows of the declared `names`; every other row is marked removed at `tick`."""
        return (await self.named_beside(names, tick))[0]

    async def named_beside(self, names: list[str], tick: int, beside: Sequence[tuple[str, tuple[object, ...]]] = (),
                           ) -> tuple[dict[str, State], list[list[Row]]]:
        """`named`, with the reads `beside` made in its batch (a deploy's last marker): their rows."""
        statements = [(SELECT_NAMED, (chunk,)) for chunk in json_chunks(names)]
        results = await self.db.batch([*beside, *statements, (MARK_REMOVED, (json.dumps(names), tick))])
        found = results[len(beside):-1]
        return {row["name"]: State.from_row(row) for rows in found for row in rows}, results[:len(beside)]

    async def reconcile(
        self,
        new: list[Seed],
        changed: list[tuple[State, Seed]],
        again: list[str],
        fingerprint: str | None,
        tick: int,
        missed: Sequence[Undeclared] = (),
        sealed_with: Sequence[tuple[str, tuple[object, ...]]] = (),
        limits: Sequence[list[object]] = (),
    ) -> None:
        """Adds the rows of schedules seen for the first time, rebases those whose form changed
        (each only while its row is as this tick read it), records what calendars declared again
        missed (`missed`), keeps the rows declared again, writes the concurrency limits
        declared anew (`limits`: [name, key, limit]), and seals the
        declared set as reconciled (with `sealed_with` just before), in one transaction."""
        seeds = [s.row() for s in new]
        rebases = [[s.name, s.every, s.form, s.due_at, old.form, old.due_at, *s.jittered()] for old, s in changed]
        statements: list[tuple[str, tuple[object, ...]]] = [(SEED, (chunk, tick)) for chunk in json_chunks(seeds)]
        statements += [(REBASE, (chunk,)) for chunk in json_chunks(rebases)]
        statements += [(RECORD_UNDECLARED, (chunk, tick)) for chunk in json_chunks([m.row() for m in missed])]
        statements += [(DECLARED_AGAIN, (chunk,)) for chunk in json_chunks(again)]
        statements += [(LIMIT_DECLARED, (chunk,)) for chunk in json_chunks(list(limits))]
        if fingerprint is not None:  # `sealed_with` (a deploy's marker) goes only with the seal, before it
            statements += [*sealed_with, (SEAL, (fingerprint,))]
        if statements:
            await self.db.batch(statements)

    async def hand_over(
        self, id: str, action: str, timing: str, input: str, form: str, every: int, due: int,
        expires: int | None, now: int, label: str | None = None, jitter: int | None = None,
        seed: int | None = None, concurrency_key: str | None = None, concurrency_limit: int | None = None,
    ) -> None:
        """Keeps a schedule handed over at run time: once, however often it is handed over."""
        handed = Handed(name=id, action=action, timing=timing, input=input, form=form, every_ms=every, due_at=due,
                        expires_at=expires, tick=now, label=label, jitter_ms=jitter, jitter_seed=seed,
                        concurrency_key=concurrency_key, concurrency_limit=concurrency_limit)
        await self.hand_over_many([json.dumps([handed.row()])])

    async def hand_over_many(self, chunks: list[str]) -> None:
        """Keeps schedules handed over at run time, each once however often it is handed over:
        `chunks` are JSON lists of HANDED rows, all written in one batch."""
        await self._each(HAND_OVER, [(chunk,) for chunk in chunks])

    async def cancel(self, id: str, now: int) -> bool:
        """Ends a schedule handed over at run time; False where none of that id is going on."""
        return bool(await self.cancel_many([json.dumps([id])], now))

    async def cancel_many(self, chunks: list[str], now: int) -> set[str]:
        """Ends the schedules of the ids in `chunks` (JSON lists) in one batch; the ids it ended."""
        results = await self._each(CANCEL, [(chunk, now) for chunk in chunks])
        return {row["name"] for rows in results for row in rows}

    async def _each(self, sql: str, params: list[tuple[object, ...]]) -> list[list[Row]]:
        """`sql` once for each of `params`, in one batch (a single one alone)."""
        if len(params) == 1:
            return [await self.db.all(sql, params[0])]
        return await self.db.batch([(sql, p) for p in params]) if params else []

    async def state(self, name: str) -> State | None:
        rows = await self.db.all(SELECT_STATE, (name,))
        return State.from_row(rows[0]) if rows else None

    async def last_tick(self, name: str) -> int | None:
        """The last tick that reached the schedule."""
        rows = await self.db.all(LAST_TICK, (name,))
        return number(rows[0]["last_tick"]) if rows else None

    async def runs(self, name: str) -> list[Row]:
        return await self.db.all(SELECT_RUNS, (name,))
