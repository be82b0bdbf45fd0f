"""The claim batch: the leases a tick takes for its due runs, their moments and starts, the skips,
what each covers, and the read-back after a batch that answered an error. Every statement takes
the claims as JSON rows (CLAIMS), and what each claim won is what the rows it returns witness."""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from ..database import Database, Row, Statement
from ..model import Code
from ..times import NEVER
from ..kinds import Call, Covered
from .leases import LEASE_AFTER_LAPSES, LEASE_OPEN, lease_held
from .schedules import ONE_OFF_DONE
from .sql import chunks, json_rows

# The reasons a skip ends a handed-over schedule for good.
ENDING_CODES = (Code.EXPIRED, Code.ACTION_GONE)
ENDING = "(" + ", ".join(f"'{code}'" for code in ENDING_CODES) + ")"

# The fields of a claim's call its row carries, each a column of its own.
CALL_COLUMNS = ("at", "n", "i", "dst")


@dataclass(frozen=True)
class Claim:
    """A due slot a tick means to take: a run's lease, or, with a `reason`, a skip."""

    name: str
    due: int
    next_due: int
    run: str
    call: Call = Call()
    moment: str | None = None  # the action's key, for calendars sharing an action: claim the moment
    reason: str | None = None
    detail: str | None = None
    requested: int | None = None  # the request for a run by hand this run answers
    by_hand: str | None = None  # who asked for it
    trace: str | None = None  # a run's trace, new for each run
    for_due: int | None = None  # a retry's: the due time it is for (else `due`)
    attempt: int = 1
    retrying: int | None = None  # the pending retry the row holds as the tick read it
    retries: bool = False  # a failure schedules a retry: its end's batch takes a statement more
    covers: Covered | None = None  # the occurrences it covers, where more than one
    concurrency: tuple[str, int] | None = None  # its row's key and limit: its lease is taken within them
    beside: bool = False  # `overlap: allow`: taken beside a run going on, its record keeping its own lease

    # The columns of a claim's row, by name: the call's own (CALL_COLUMNS), and `for_due` the due
    # time the run or skip is for (`due_for`).
    COLUMNS: ClassVar[tuple[str, ...]] = (
        "name", "due", "next_due", "run", "at", "n", "i", "dst", "moment", "reason", "detail", "requested",
        "by_hand", "trace", "for_due", "attempt", "retrying")

    @property
    def due_for(self) -> int:
        """The due time the run or skip is for, as its record keeps it."""
        return self.due if self.for_due is None else self.for_due

    def row(self) -> list[object]:
        """The claim as CLAIMS reads it, column by column (COLUMNS)."""
        return [self._column(column) for column in self.COLUMNS]

    def _column(self, column: str) -> object:
        if column in CALL_COLUMNS:
            return getattr(self.call, column)
        return self.due_for if column == "for_due" else getattr(self, column)


@dataclass(frozen=True)
class Claimed:
    """What a claim batch won: the runs whose lease it took, the runs and skips it recorded, and
    the leases it gave back recorded `coalesced`, their moment made by another calendar of the
    action."""

    leased: set[str]
    recorded: set[str]
    coalesced: set[str]
    alerted: list[Row] = field(default_factory=list)  # what the skips' alert statements returned


def covers_rows(claims: list[Claim]) -> list[list[object]]:
    """RECORD_COVERS's rows: the claims covering more than one occurrence."""
    return [[c.run, covers.count, covers.first, covers.last, int(not covers.exact)]
            for c in claims if (covers := c.covers) is not None]


CLAIMS = json_rows(*Claim.COLUMNS)

# A pending retry is the row's due time, and the attempt it makes is part of what is claimed: a
# claim for the row as it was before an attempt ended, or before its retry, takes nothing. A
# claim that moves the due time on takes the retry with it; one that answers a request by hand
# ahead of the due time leaves it pending.
RETRY_CLAIMED = "(s.retry_attempt IS j.retrying)"
RETRY_TAKEN = "retry_attempt = CASE WHEN j.next_due = s.due_at THEN s.retry_attempt END"


# The lease, row by row as the schedules document states it: due time unchanged, not paused, no
# live lease: none open, as a lapsed one is no longer once the tick has recorded its run lost (it
# does so first), so no run's record is left `running` with its lease taken. Taking it also moves
# the due time on, so a second tick with the same due time finds nothing to take. A run asked for
# by hand moves no due time, so a claim answering a request also needs that request still there,
# and consumes it: one request, one run. The runs it returns are
# the leases this tick won. A schedule handed over that never comes due again (a one-off moment)
# is `done` with its last call. A column set, even to its own value, rewrites every index that
# names it, and D1 bills each: `removed_at` (in the declared rows' index) is set only by the
# statement for rows where a claim ends a schedule, TAKE_LEASES_ENDING.
TAKEABLE_BESIDE = f"""s.due_at = j.due AND s.paused = 0 AND s.removed_at IS NULL
  AND {LEASE_AFTER_LAPSES}
  AND (j.requested IS NULL OR s.run_requested_at = j.requested) AND {RETRY_CLAIMED}"""
TAKEABLE = TAKEABLE_BESIDE.replace("\n  AND ", f"\n  AND NOT {LEASE_OPEN} AND ", 1)


def _take_leases(ending: str = "", within: tuple[str, str] = ("", ""), takeable: str = TAKEABLE) -> str:
    """The lease statement; `within`, a CTE and a condition more that bound what it takes
    (concurrency.TAKE_LEASES_LIMITED); `takeable`, what a row must be to be taken."""
    ctes, bound = within
    return f"""
{CLAIMS}{ctes}
UPDATE tickwork_schedules AS s SET lease_run = j.run, lease_until = ?2, due_at = j.next_due, {RETRY_TAKEN},
    run_requested_by = CASE WHEN run_requested_at = j.requested THEN NULL ELSE run_requested_by END,
    run_requested_at = CASE WHEN run_requested_at = j.requested THEN NULL ELSE run_requested_at END{ending}
FROM j
WHERE s.name = j.name AND {takeable}{bound}
RETURNING lease_run AS run
"""


TAKE_LEASES = _take_leases()
ENDING_ONE_OFFS = f""",
    ended = CASE WHEN j.next_due >= {NEVER} AND action IS NOT NULL THEN '{ONE_OFF_DONE}' ELSE ended END,
    removed_at = CASE WHEN j.next_due >= {NEVER} AND action IS NOT NULL THEN ?3 ELSE removed_at END"""
TAKE_LEASES_ENDING = _take_leases(ENDING_ONE_OFFS)

# `overlap: allow` (only for a chunk of such claims): the due time is taken by the same
# compare-and-set, so each (schedule, at) once, whether or not a run is going on; the row's lease
# goes to the latest run, and each run's record keeps its own (RECORD_STARTS_BESIDE).
TAKE_LEASES_BESIDE = _take_leases(takeable=TAKEABLE_BESIDE)
TAKE_LEASES_BESIDE_ENDING = _take_leases(ENDING_ONE_OFFS, takeable=TAKEABLE_BESIDE)

# In the lease's batch, for calendars of an action that has several: each moment goes to the
# first run that claims it, and only that run records a start.
CLAIM_MOMENTS = f"""
{CLAIMS}
INSERT INTO tickwork_moments (action, at, run)
SELECT j.moment, j.at, j.run FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.lease_run = j.run
WHERE j.moment IS NOT NULL
ON CONFLICT DO NOTHING
"""

# In the lease's batch: a start where that batch's lease (and moment, if claimed) went to the
# run, in the run's own trace; the ids it returns are the witnesses.
RECORD_STARTS = f"""
{CLAIMS}
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, outcome, at, n, i, dst, by_hand, trace, attempt)
SELECT j.run, s.name, j.for_due, ?2, ?3, 'running', j.at, j.n, j.i, j.dst, j.by_hand, j.trace, j.attempt
FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.lease_run = j.run
WHERE j.moment IS NULL OR EXISTS (
    SELECT 1 FROM tickwork_moments AS m WHERE m.action = j.moment AND m.at = j.at AND m.run = j.run)
RETURNING id
"""

# RECORD_STARTS for a chunk of runs side by side: each record keeps its lease (?4, its end), by which
# a run whose worker was lost is found though a later run took the row's (leases.HOLDS_CLAIM).
RECORD_STARTS_BESIDE = RECORD_STARTS.replace("attempt)\nSELECT", "attempt, lease_until)\nSELECT").replace(
    "j.trace, j.attempt\n", "j.trace, j.attempt, ?4\n")

COALESCED_DETAIL = "another calendar of the action made the call for this moment"

# Then, in the same batch, a leased run whose moment another calendar of the action made (in
# this batch or before) is recorded `coalesced` and its lease given back: whatever becomes of the
# tick after the batch, that due time has its record and no lease is left to lapse unrecorded.
# A request the lease consumed is given back too: no run answered it, so a later tick makes it.
RECORD_COALESCED = f"""
{CLAIMS}
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome, code, detail, at, n, i, dst, attempt)
SELECT j.run, s.name, j.for_due, ?2, 'skipped', '{Code.COALESCED}', '{COALESCED_DETAIL}', j.at, j.n, j.i, j.dst, j.attempt
FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.lease_run = j.run
WHERE j.moment IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM tickwork_moments AS m WHERE m.action = j.moment AND m.at = j.at AND m.run = j.run)
RETURNING id
"""  # noqa: E501

GIVE_BACK_COALESCED = f"""
{CLAIMS}
UPDATE tickwork_schedules AS s SET lease_run = NULL, lease_until = NULL,
    run_requested_by = CASE WHEN s.run_requested_at IS NULL THEN j.by_hand ELSE s.run_requested_by END,
    run_requested_at = IFNULL(s.run_requested_at, j.requested)
FROM j WHERE s.name = j.name AND s.lease_run = j.run AND j.moment IS NOT NULL
  AND EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.id = j.run AND r.code = '{Code.COALESCED}')
"""


# A skip moves the due time on while the row is as the tick saw it for the skip's reason (its lease
# as it is at ?3, the clock), and
# marks the row with the skip's record, which the same batch then writes: only where the mark is
# this skip's, so of two racing ticks one records it. A skip of a pending retry drops the retry.
# As with the lease, a skip that ends no schedule leaves `removed_at` and its indexes alone:
# SKIP_ENDING is for chunks where one does.
def _skip(ending: str = "") -> str:
    return f"""
{CLAIMS}
UPDATE tickwork_schedules AS s SET due_at = j.next_due, skip_run = j.run, retry_attempt = NULL{ending}
FROM j
WHERE s.name = j.name AND s.due_at = j.due AND s.removed_at IS NULL AND {RETRY_CLAIMED} AND CASE j.reason
    WHEN '{Code.EXPIRED}' THEN 1
    WHEN '{Code.ACTION_GONE}' THEN 1
    WHEN '{Code.PAUSED}' THEN s.paused = 1
    WHEN '{Code.RUNNING}' THEN s.paused = 0 AND {lease_held('?3')}
    WHEN '{Code.SUPERSEDED}' THEN NOT {lease_held('?3')}
    ELSE s.paused = 0 AND NOT {lease_held('?3')}
END
"""


SKIP = _skip()
SKIP_ENDING = _skip(f""",
    ended = CASE WHEN j.reason IN {ENDING} THEN j.reason ELSE ended END,
    removed_at = CASE WHEN j.reason IN {ENDING} THEN ?2 ELSE removed_at END""")

RECORD_SKIPS = f"""
{CLAIMS}
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome, code, detail, at, n, i, dst, attempt)
SELECT j.run, s.name, j.for_due, ?2, CASE j.reason WHEN '{Code.ACTION_GONE}' THEN 'failed' ELSE 'skipped' END,
       j.reason, j.detail, j.at, j.n, j.i, j.dst, j.attempt
FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.skip_run = j.run
WHERE true
RETURNING id
"""

COVERS = json_rows("run", "count", "first", "last", "more")

# In the claim batch, after the starts and skips: how many occurrences each run or skip covers,
# where a tick found its schedule owing several, written on the record that batch made.
RECORD_COVERS = f"""
{COVERS}
UPDATE tickwork_runs AS r SET covers = j.count, covers_first = j.first, covers_last = j.last, covers_more = j.more
FROM j WHERE r.id = j.run
"""

# In the claim batch, after the starts: an attempt after the first is for the call its first
# attempt made, so it covers what that one covered (the occurrences missed before it, the latest
# the one it is for), read from the attempt before it, for the same due time.
RECORD_RETRY_COVERS = f"""
{CLAIMS}
UPDATE tickwork_runs AS r
SET covers = p.covers, covers_first = p.covers_first, covers_last = p.covers_last, covers_more = p.covers_more
FROM j JOIN tickwork_runs AS p ON p.schedule = j.name AND p.due_at = j.for_due AND p.attempt = j.attempt - 1
WHERE r.id = j.run AND j.attempt > 1 AND p.covers IS NOT NULL
"""

# After a claim batch answered an error, whether it landed (a timeout after commit): whose lease
# each row holds, and whether each run's or skip's record exists, and is a coalesced skip. All are
# written only there.
READ_BACK = f"""
{CLAIMS}
SELECT j.run AS run,
       (SELECT lease_run FROM tickwork_schedules WHERE name = j.name) IS j.run AS leased,
       EXISTS (SELECT 1 FROM tickwork_runs WHERE id = j.run) AS recorded,
       EXISTS (SELECT 1 FROM tickwork_runs WHERE id = j.run AND code = '{Code.COALESCED}') AS coalesced
FROM j
"""

# READ_BACK for a chunk of claims beside runs going on (`overlap: allow`): a racing tick may have
# given the row's lease to the next due time's run since, so a claim's own record holding its
# lease (RECORD_STARTS_BESIDE writes one only where the claim took the row's) says it was taken.
READ_BACK_BESIDE = READ_BACK.replace(" IS j.run AS leased,", " IS j.run\n"
    "           OR EXISTS (SELECT 1 FROM tickwork_runs WHERE id = j.run AND lease_until IS NOT NULL) AS leased,")


def claim_rows(claims: list[Claim]) -> str:
    """A chunk of claims as the statements take them: a JSON list of their rows."""
    return json.dumps([c.row() for c in claims])


@dataclass(frozen=True)
class ClaimBatch:
    """A claim batch's statements, and among them those announcing what its skips start failing."""

    statements: list[Statement]
    announcing: list[Statement]


def claim_batch(claims: list[Claim], lease_until: int, tick: int, started: int,
                alerts: Callable[[str], list[Statement]] | None = None) -> ClaimBatch:
    """The claim batch, built and not sent: per chunk of rows, the leases taken and the starts
    recorded (with the moments, the coalesced skips and their leases given back, and the covers of
    retries, where the chunk has any), the skips and their records (retries superseded first, as
    the due time they put aside is leased next), and the covers. `started`, on the invocation's
    clock, is when the runs start and what the skips read the leases by. `alerts` makes, for a
    chunk of skips dropping a pending retry, the statements announcing the schedules they start
    failing."""
    leases = [c for c in claims if c.reason is None and not c.beside]
    beside = [c for c in claims if c.reason is None and c.beside]  # `overlap: allow`, in chunks of their own
    superseded = [c for c in claims if c.reason == Code.SUPERSEDED]
    skips = [c for c in claims if c.reason not in (None, Code.SUPERSEDED)]
    statements: list[Statement] = []
    announcing: list[Statement] = []

    def skipped(part: list[Claim], skip: str) -> None:
        chunk = claim_rows(part)
        statements.extend([(skip, (chunk, tick, started)), (RECORD_SKIPS, (chunk, tick))])
        dropping = [c for c in part if c.retrying is not None]  # only these can start a streak
        if alerts is not None and dropping:
            made = alerts(claim_rows(dropping))
            announcing.extend(made)
            statements.extend(made)

    for part in chunks(superseded):
        skipped(part, SKIP)
    for part in [*chunks(leases), *chunks(beside)]:
        chunk = claim_rows(part)
        statements.append(take_leases(part, chunk, lease_until, tick, started))
        moments = any(c.moment is not None for c in part)  # calendars sharing an action
        if moments:
            statements.append((CLAIM_MOMENTS, (chunk,)))
        statements.append((RECORD_STARTS_BESIDE, (chunk, tick, started, lease_until)) if part[0].beside
                          else (RECORD_STARTS, (chunk, tick, started)))
        if any(c.attempt > 1 for c in part):  # retries
            statements.append((RECORD_RETRY_COVERS, (chunk,)))
        if moments:
            statements += [(RECORD_COALESCED, (chunk, tick)), (GIVE_BACK_COALESCED, (chunk,))]
    for part in chunks(skips):
        skipped(part, SKIP_ENDING if any(c.reason in ENDING_CODES for c in part) else SKIP)
    statements += [(RECORD_COVERS, (chunk,)) for chunk in map(json.dumps, chunks(covers_rows(claims)))]
    return ClaimBatch(statements, announcing)


def take_leases(part: list[Claim], chunk: str, lease_until: int, tick: int, started: int) -> Statement:
    """A chunk's lease statement: within the concurrency limits of its keys where a claim's row
    names one (`started`, when the leases begin, is what the runs under way are counted by), and
    ending the one-off moments it makes where it has any."""
    ending = any(c.next_due >= NEVER for c in part)
    if part[0].beside:
        if ending:
            return TAKE_LEASES_BESIDE_ENDING, (chunk, lease_until, tick)
        return TAKE_LEASES_BESIDE, (chunk, lease_until)
    if any(c.concurrency is not None for c in part):
        from .concurrency import TAKE_LEASES_LIMITED, TAKE_LEASES_LIMITED_ENDING

        if ending:
            return TAKE_LEASES_LIMITED_ENDING, (chunk, lease_until, tick, started)
        return TAKE_LEASES_LIMITED, (chunk, lease_until, started)
    return (TAKE_LEASES_ENDING, (chunk, lease_until, tick)) if ending else (TAKE_LEASES, (chunk, lease_until))


def lease_statements(claims: list[Claim]) -> tuple[str, ...]:
    """The lease statements a batch for `claims` may hold, whose rows are the leases it won."""
    if any(c.beside for c in claims):
        return lease_statements([c for c in claims if not c.beside]) + (TAKE_LEASES_BESIDE, TAKE_LEASES_BESIDE_ENDING)
    if any(c.concurrency is not None for c in claims):
        from .concurrency import TAKE_LEASES_LIMITED, TAKE_LEASES_LIMITED_ENDING

        return TAKE_LEASES, TAKE_LEASES_ENDING, TAKE_LEASES_LIMITED, TAKE_LEASES_LIMITED_ENDING
    return TAKE_LEASES, TAKE_LEASES_ENDING


def claim_statements(claims: list[Claim], alerts: Callable[[str], list[Statement]] | None = None) -> list[Statement]:
    """The statements of the claim batch for `claims`: what a count of the batch must not fall
    below (tick.statements_for, with the ends of its runs)."""
    return claim_batch(claims, 0, 0, 0, alerts).statements


class Claims:
    """The claim batch and its read-back."""

    def __init__(self, db: Database):
        self.db = db

    async def claim(self, claims: list[Claim], lease_until: int, tick: int, started: int,
                    alerts: Callable[[str], list[Statement]] | None = None) -> Claimed:
        """Takes the leases of the due runs and records their starts (or, for a moment another
        calendar of the action made, the coalesced skip, its lease given back), and moves the due
        times of the skips on and records them, all in one transaction (claim_batch): what each
        claim won is what the returned rows witness."""
        batch = claim_batch(claims, lease_until, tick, started, alerts)
        statements = batch.statements
        if not statements:
            return Claimed(set(), set(), set())
        results = await self.db.batch(statements)

        def returned(*kinds: str) -> set[str]:
            return {v for (sql, _), rows in zip(statements, results, strict=False) if sql in kinds
                    for row in rows for v in row.values()}

        alerted = [row for statement, rows in zip(statements, results, strict=False) if statement in batch.announcing
                   for row in rows]
        return Claimed(returned(*lease_statements(claims)), returned(RECORD_STARTS, RECORD_STARTS_BESIDE, RECORD_SKIPS),
                       returned(RECORD_COALESCED), alerted)

    async def read_back(self, claims: list[Claim]) -> Claimed:
        """What a claim batch that answered an error did: nothing, or all of it."""
        statements: list[Statement] = [
            (READ_BACK_BESIDE if beside else READ_BACK, (claim_rows(part),))
            for beside in (False, True) for part in chunks([c for c in claims if c.beside is beside])]
        rows = [row for rows in await self.db.batch(statements) for row in rows]

        def where(column: str) -> set[str]:
            return {row["run"] for row in rows if row[column]}

        return Claimed(where("leased"), where("recorded"), where("coalesced"))
