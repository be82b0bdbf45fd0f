"""Schedule state rows, leases and run records, kept in the app's D1 database.

Every write that two ticks could race on is one conditional statement, and the rows its
`RETURNING` gives back say who won: D1 has no locks and `meta.changes` is only approximate.
"""

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields

from .database import Database, Row
from .model import Code, Kind
from .times import NEVER
from .timing import Call, Covered

# A run's lease is the state row's `lease_run` and `lease_until` while the run's record is still
# `running`: the end that records the run gives its lease back, and no write of the state row does.
# (D1 bills each row written, and the row and the index of leases took two more a run.)
LEASE_OPEN = "EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running')"


def lease_held(now: str) -> str:
    """The SQL that holds where the state row `s` has a live lease at `now` (a parameter, on the
    invocation's clock): its run goes on, within its lease."""
    return f"(s.lease_until > {now} AND {LEASE_OPEN})"


def holds_lease(row: Row) -> bool:
    """Whether a schedule's row, read with LEASE_OPEN as `lease_open`, has a run going on under
    its lease: the row keeps its last lease after the run's end gives it back."""
    return bool(row.get("lease_run")) and bool(row.get("lease_open"))


# Every lease (a run's, housekeeping's, a delivery's) is a time on the clock of the invocation that
# took it, and lapses by that clock, whatever the tick's own time (a tick by hand for a time ahead):
# so racing invocations agree on it, and no tick ahead ends a run going on, or holds up the ticks
# on the clock. A tick's leases last from its invocation's start the tick's budget and a minute, at
# least the run limit's part of it (tick.Lease).
# Runs whose worker was lost are found along the records' primary key, whose ids begin with their
# tick (run_id): the app's row keeps the longest and the shortest any tick's leases lasted past its
# time (`lease_reach`, `lease_short`, ms, below 0 for a tick ahead of its clock), and the clock by
# which every lapsed lease was dealt with (`lapse_clear`). A run whose lease lapsed since then was
# made after `lease_reach` before it and by `lease_short` before the clock: only those records are
# read, each by about one tick (as many as fall between those two reaches).
# All three are written with the tick's mark, no row more; a tick that finds no lapsed lease there
# moves `lapse_clear` to its clock, and one that found some moves it when their runs are ended.
def running_made(since: str, until: str) -> str:
    """A subquery: the runs still `running` made from the tick `since` to the tick `until` (SQL),
    each with its name and lease, read along the primary key, and those of ids of no tick's form
    (made before migration 0017) through the index by tick, which holds only them."""
    return f"""(
    SELECT r.id AS run, r.schedule AS name, s.lease_until FROM tickwork_runs AS r
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND s.lease_run = r.id
    WHERE r.id >= 'z' || printf('%012x', {since}) AND r.id < 'z' || printf('%012x', {until} + 1)
      AND r.outcome = 'running'
    UNION ALL
    SELECT r.id, r.schedule, s.lease_until FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND s.lease_run = r.id
    WHERE r.id < 'z' AND r.tick_at >= {since} AND r.tick_at <= {until} AND r.outcome = 'running')"""


# The window's last tick once the tick marked, by ?1 the clock.
WINDOW_END = "(SELECT CAST(?1 - IFNULL(lease_short, 0) AS INTEGER) FROM tickwork_app WHERE id = 1)"

# ?1 the clock, ?2 the window's first tick (as the tick's mark answers it): the runs still
# `running` whose lease lapsed by the clock, as a CTE `lapsed`.
LAPSED = f"""lapsed AS (
    SELECT run, name FROM {running_made('CAST(?2 AS INTEGER)', WINDOW_END)} WHERE lease_until <= ?1)"""

# The window as the app's row held it before this tick's mark: ?4 the clock, ?2 and ?3 the
# longest and shortest its leases may last past the tick. (A new app's row has dealt with no lease.)
WINDOW_FROM = ("(SELECT MAX(CAST(IFNULL(lapse_clear, 0) - IFNULL(lease_reach, ?2) + 1 AS INTEGER), 0)"
               " FROM tickwork_app WHERE id = 1)")
WINDOW_TO = "(SELECT CAST(?4 - IFNULL(lease_short, ?3) AS INTEGER) FROM tickwork_app WHERE id = 1)"

# The lapsed leases dealt with, in the batch that ends their runs: by ?1 there are none left. Only
# while the window reaches back as far as the one read (?2): a tick that marked meanwhile with a
# longer reach may have taken a lease lapsing by ?1 among records before it.
LAPSES_CLEARED = """
UPDATE tickwork_app SET lapse_clear = MAX(IFNULL(lapse_clear, ?1), ?1)
WHERE id = 1 AND MAX(CAST(IFNULL(lapse_clear, 0) - IFNULL(lease_reach, 0) + 1 AS INTEGER), 0) >= ?2
"""

# A lease is taken only to lapse after every lapse dealt with (?2 its end): one already lapsed by
# then (its tick's time behind another's) would lie outside every window a tick reads.
LEASE_AFTER_LAPSES = "NOT EXISTS (SELECT 1 FROM tickwork_app WHERE id = 1 AND lapse_clear >= ?2)"

# What a one-off item's row says once its one call is made (TAKE_LEASES_ENDING): where that call
# did not succeed, a backfill still makes its moment (backfill.backfilled_once_ended).
ONE_OFF_DONE = "done"

# A schedule `s` a pending backfill waits on, as the tick's first read asks: paused, or removed by
# a deploy (declared again, it goes on); not one ended but a one-off item's `done`, nor a row gone,
# whose backfills the backfill step ends (backfill_store.END_GONE). A nothing-due tick pays no
# statement for a backfill waiting: the probe reads each pending one with its schedule's row, as
# the step's read does, which it spares.
BACKFILL_WAITS = (f"s.paused != 0 AND (s.ended IS NULL OR s.ended = '{ONE_OFF_DONE}')"
                  " OR s.removed_at IS NOT NULL AND s.ended IS NULL")

# A tick's first batch marks the app's tick, kept once on its own row, and reads the rows due
# by now through the index on the due time: what exists but is not due is never read. The mark
# (?2 and ?3 the longest and shortest the leases the tick gives may last past it, ?4 the clock,
# kept beside the tick's time for the gaps in the ticks) also answers
# the declared set the rows were last reconciled with, and whether a run's lease lapsed, declared
# or removed (with the window that run is in), so runs whose worker was lost end whoever held them.
MARK_TICK = f"""
UPDATE tickwork_app SET prev_tick = last_tick, last_tick = MAX(IFNULL(last_tick, ?1), ?1),
    prev_clock = last_clock, last_clock = MAX(IFNULL(last_clock, ?4), ?4),
    lapse_clear = CASE WHEN EXISTS (SELECT 1 FROM {running_made(WINDOW_FROM, WINDOW_TO)} WHERE lease_until <= ?4)
                       THEN lapse_clear ELSE MAX(IFNULL(lapse_clear, ?4), ?4) END,
    lease_reach = MAX(IFNULL(lease_reach, ?2), ?2), lease_short = MIN(IFNULL(lease_short, ?3), ?3)
WHERE id = 1
RETURNING fingerprint, prev_tick, prev_clock, IFNULL(lapse_clear < ?4, 1) AS lapsed,
  MAX(CAST(IFNULL(lapse_clear, 0) - lease_reach + 1 AS INTEGER), 0) AS lapse_from,
  (housekeeping_owner IS NULL OR housekeeping_until <= ?4)
      AND (housekeeping_done_at IS NULL OR housekeeping_done_at <= ?4 - 3600000) AS housekeeping_due,
  (SELECT MIN(at) FROM (
      SELECT MIN(next_attempt_at) AS at FROM tickwork_deliveries WHERE state IN ('pending', 'outcome_unknown')
      UNION ALL SELECT MIN(lease_until) FROM tickwork_deliveries WHERE state = 'running')) AS sweep_at,
  EXISTS (SELECT 1 FROM tickwork_backfills AS b INDEXED BY tickwork_backfills_pending WHERE b.state = 'pending'
          AND NOT EXISTS (SELECT 1 FROM tickwork_schedules AS s WHERE s.name = b.schedule AND ({BACKFILL_WAITS})))
      AS backfill_pending
"""

# The schema this runtime ticks against, as the app's row keeps it (migration 0023; each later
# migration the runtime needs sets its own number). Read once an isolate, by its first tick, and by
# the health route and `tickwork status`: a store migrated before 0023 has no such column.
SCHEMA = 23
SELECT_SCHEMA = "SELECT schema_version FROM tickwork_app WHERE id = 1"


def out_of_date(applied: int, binding: str = "DB", where: str = "--remote") -> str | None:
    """`migration.out_of_date` and its mend, for the store `binding` (its D1 `where`: `--remote`,
    or `--local`) whose tables are at schema `applied` (0 before migration 0023, or with no
    tickwork tables); None where they are this runtime's."""
    if applied >= SCHEMA:
        return None
    at = "before migration 0023" if applied == 0 else f"to schema {applied}"
    return (f"migration.out_of_date: the store {binding}'s tickwork tables are migrated {at}; this tickwork "
            f"needs schema {SCHEMA}: apply the migrations (npx wrangler d1 migrations apply {binding} {where})")


# ?2 caps the rows to what the tick has statements left for (-1: no cap); the oldest due first.
# Runs asked for by hand are read beside them, through an index of their own: those of schedules
# still there, as only those can be made (a request left on a removed row is never read again).
# (D1 binds every number as a REAL: a number that becomes text or a LIMIT is cast back.)
# Every read of state rows the tick makes answers whether the row's lease is open (LEASE_OPEN).
SELECT_DUE = f"""
SELECT s.*, {LEASE_OPEN} AS lease_open FROM (
    SELECT * FROM tickwork_schedules WHERE removed_at IS NULL AND due_at <= ?1
    UNION ALL
    SELECT * FROM tickwork_schedules INDEXED BY tickwork_schedules_by_hand
    WHERE run_requested_at IS NOT NULL AND removed_at IS NULL AND due_at > ?1
) AS s ORDER BY s.due_at LIMIT CAST(?2 AS INTEGER)
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
    due_at = json_extract(j.value, '$[3]'), removed_at = NULL, retry_attempt = NULL
FROM json_each(?1) AS j
WHERE s.name = json_extract(j.value, '$[0]') AND {STORED_FORM} = json_extract(j.value, '$[4]')
  AND s.due_at = json_extract(j.value, '$[5]')
"""

DECLARED_AGAIN = """
UPDATE tickwork_schedules SET removed_at = NULL
WHERE removed_at IS NOT NULL AND name IN (SELECT value FROM json_each(?1))
"""

SEAL = "UPDATE tickwork_app SET fingerprint = ?1 WHERE id = 1"

# The reasons a skip ends a handed-over schedule for good.
ENDING_CODES = (Code.EXPIRED, Code.ACTION_GONE)
ENDING = "(" + ", ".join(f"'{code}'" for code in ENDING_CODES) + ")"



def json_rows(*columns: str) -> str:
    """A CTE `j`: one row per element of the JSON list in ?1, its items named `columns`. The
    statements below take many rows at once this way, one statement for all of them."""
    items = ", ".join(f"json_extract(value, '$[{k}]') AS {c}" for k, c in enumerate(columns))
    return f"WITH j AS (SELECT {items} FROM json_each(?1))"


# A calendar declared again owes nothing from while it was gone (REBASE moves it on), but what
# it missed is recorded, in the same batch, as one skip covering those occurrences (?1: JSON
# [run, name, due_at, at, count, first, last, more], ?2 the tick), once: its id derives from the
# row's due time, so of ticks reconciling at once one keeps it.
UNDECLARED_DETAIL = ("the calendar was not declared when these occurrences came due (a deploy had removed it); "
                     "declared again, it owes nothing from then: `tickwork backfill` makes them")
RECORD_UNDECLARED = f"""
{json_rows("run", "name", "due", "at", "count", "first", "last", "more")}
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome, code, detail, at,
    covers, covers_first, covers_last, covers_more, attempt)
SELECT j.run, j.name, j.due, ?2, 'skipped', '{Code.UNDECLARED}', '{UNDECLARED_DETAIL}', j.at,
       j.count, j.first, j.last, j.more, 1
FROM j WHERE true
ON CONFLICT DO NOTHING
"""

# Schedules handed over at run time, many in one statement (?1 a JSON list of rows): a new row, or
# one cancelled, expired or ended for want of its action coming back under its id, owing nothing
# from before (not even a run asked for by hand). One going on, or a one-off moment already made
# (`done`), is left as it is: a hand-over retried after the call makes no second call. Its label,
# no part of the id, is the one of the hand-over that wrote the row.
HANDED = json_rows("name", "action", "timing", "input", "form", "every_ms", "due_at", "expires_at", "tick", "label")
HAND_OVER = f"""
{HANDED}
INSERT INTO tickwork_schedules
    (name, action, timing, input, form, every_ms, due_at, expires_at, first_tick, last_tick, label)
SELECT name, action, timing, input, form, every_ms, due_at, expires_at, tick, tick, label FROM j WHERE true
ON CONFLICT (name) DO UPDATE
SET due_at = excluded.due_at, first_tick = excluded.first_tick, removed_at = NULL, ended = NULL,
    run_requested_at = NULL, run_requested_by = NULL, retry_attempt = NULL, label = excluded.label
WHERE ended IN ('cancelled', 'expired', 'action_gone')
"""

# ?1 a JSON list of ids; the rows it returns are those it ended. (An operator's cancel is the same
# change of one row: operator_store.CANCEL_ITEM.)
ITEM_CANCELLABLE = "action IS NOT NULL AND ended IS NULL"
CANCEL = f"""
UPDATE tickwork_schedules SET removed_at = ?2, ended = 'cancelled'
WHERE name IN (SELECT value FROM json_each(?1)) AND {ITEM_CANCELLABLE}
RETURNING name
"""

CLAIMS = json_rows("name", "due", "next_due", "run", "at", "n", "i", "dst", "moment", "reason", "detail",
                   "requested", "by_hand", "trace", "for_due", "attempt", "retrying")

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
def _take_leases(ending: str = "") -> str:
    return f"""
{CLAIMS}
UPDATE tickwork_schedules AS s SET lease_run = j.run, lease_until = ?2, due_at = j.next_due, {RETRY_TAKEN},
    run_requested_by = CASE WHEN run_requested_at = j.requested THEN NULL ELSE run_requested_by END,
    run_requested_at = CASE WHEN run_requested_at = j.requested THEN NULL ELSE run_requested_at END{ending}
FROM j
WHERE s.name = j.name AND s.due_at = j.due AND s.paused = 0 AND s.removed_at IS NULL
  AND NOT {LEASE_OPEN} AND {LEASE_AFTER_LAPSES}
  AND (j.requested IS NULL OR s.run_requested_at = j.requested) AND {RETRY_CLAIMED}
RETURNING lease_run AS run
"""


TAKE_LEASES = _take_leases()
TAKE_LEASES_ENDING = _take_leases(f""",
    ended = CASE WHEN j.next_due >= {NEVER} AND action IS NOT NULL THEN '{ONE_OFF_DONE}' ELSE ended END,
    removed_at = CASE WHEN j.next_due >= {NEVER} AND action IS NOT NULL THEN ?3 ELSE removed_at END""")

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
"""

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

ENDS = json_rows("name", "run", "outcome", "code", "kind", "detail", "ended", "items", "batches", "events",
                 "retry", "attempt", "for_due", "at", "n", "i", "dst")

# Runs' ends, written again after an error, so each only while its record is still `running`.
RECORD_ENDS = f"""
{ENDS}
UPDATE tickwork_runs AS r
SET outcome = j.outcome, code = j.code, kind = j.kind, detail = j.detail, ended_at = j.ended,
    items = j.items, batches = j.batches, events = j.events
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

# Before a lapsed lease's run is ended `lease_expired`: where its schedule declares attempts left
# (?3: JSON {name: [attempts, pause]} of the declared; a handed-over one's own, in its timing),
# its retry is scheduled as a failed end schedules it, the pause counted from this tick (?4). A run by
# hand or a backfilled one is not retried, as when it fails otherwise: a backfill makes each
# occurrence once, and the row's due time and pending retry are its schedule's own. The runs are
# those of LAPSED (?1, ?2), here and in every statement of the batch that ends them.
SCHEDULE_LAPSED_RETRIES = f"""
WITH {LAPSED}, d AS (SELECT key AS name, json_extract(value, '$[0]') AS attempts, json_extract(value, '$[1]') AS pause
           FROM json_each(?3))
UPDATE tickwork_schedules AS s
SET retry_next = s.due_at, retry_attempt = IFNULL(r.attempt, 1) + 1, retry_due = r.due_at,
    retry_at = r.at, retry_n = r.n, retry_i = r.i, retry_dst = r.dst,
    due_at = MIN(s.due_at, ?4 + IFNULL(d.pause, json_extract(s.timing, '$.retry_pause_ms'))
                               * (1 << (IFNULL(r.attempt, 1) - 1)))
FROM lapsed AS x JOIN tickwork_runs AS r ON r.id = x.run LEFT JOIN d ON d.name = r.schedule
WHERE s.name = x.name AND s.lease_run = x.run AND r.by_hand IS NULL AND r.backfill IS NULL AND s.removed_at IS NULL
  AND IFNULL(r.attempt, 1) <= IFNULL(d.attempts, IFNULL(json_extract(s.timing, '$.retry_attempts'), 0))
"""

# What a run whose lease lapsed at ?1 is recorded with: its alert says the same.
LAPSED_DETAIL = ("'the run held its lease past ' || CAST(?1 AS INTEGER) || ' and its end was never recorded: '"
                 " || 'its worker was lost, or could not reach D1 to record the end'")

# Last in that batch: the record that ends the run gives its lease back, as an end does.
FAIL_EXPIRED_RUNS = f"""
WITH {LAPSED}
UPDATE tickwork_runs
SET outcome = 'failed', code = '{Code.LEASE_EXPIRED}', kind = '{Kind.LOST}', ended_at = ?1,
    detail = {LAPSED_DETAIL}
WHERE id IN (SELECT run FROM lapsed) AND outcome = 'running'
"""

# A tick that found the app's previous tick too long ago: the gap, once.
RECORD_GAP = """
INSERT INTO tickwork_gaps (to_tick, from_tick, recorded_at) VALUES (?1, ?2, ?3)
ON CONFLICT (to_tick) DO NOTHING
"""

# A due time's attempts are used up where the row holds no retry still to be made: none was
# scheduled (no retries declared, the last declared attempt, a run by hand), or the retry comes
# no sooner than the next due time it put aside, which supersedes it.
RETRY_PENDING = "(s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next))"

# Whether a schedule is failing, the one definition health, the console, the command and the
# alerts read (`s` its row): its latest run that tells, in the order runs were made, failed. Those
# that tell are its own that succeeded or failed: a backfilled run is of an old occurrence and
# tells nothing of whether it works now, nor does a failed attempt whose retry is still to be made
# or under way (the runs of that due time are passed over till its attempts are used up, and the
# run before them tells). The latest is found through the runs' index on (schedule, due_at): the
# run of the latest due time, unless a retry of the row's last retried due time started after it
# (a retry is made after its due time; a run by hand made meanwhile is recorded with a later one).
RETRY_OPEN = (f"({RETRY_PENDING} OR EXISTS (SELECT 1 FROM tickwork_runs AS l"
              " WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1))")
TELLS = f"""r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT ({RETRY_OPEN} AND r.due_at IS s.retry_due AND r.by_hand IS NULL)"""
LATEST_DUE = f"SELECT r.* FROM tickwork_runs AS r WHERE {TELLS} ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1"
LATEST_TELLING = f"""IFNULL(
    (SELECT r.id FROM tickwork_runs AS r WHERE {TELLS} AND r.due_at = s.retry_due
         AND r.started_at > (SELECT started_at FROM ({LATEST_DUE}))
         ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1),
    (SELECT id FROM ({LATEST_DUE})))"""
IS_FAILING = f"((SELECT f.outcome FROM tickwork_runs AS f WHERE f.id = {LATEST_TELLING}) IS 'failed')"

# What the health route tells: the app's last tick, and the invocations' clock it was made by (its
# age is on the clock, as the gaps in the ticks: a tick by hand ahead hides no stop), and the
# declared schedules failing (through the index of declared rows: those handed over are not read).
HEALTH = f"""
SELECT a.last_tick, IFNULL(a.last_clock, a.last_tick) AS last_clock, (
    SELECT json_group_array(s.name) FROM tickwork_schedules AS s INDEXED BY tickwork_schedules_declared
    WHERE s.action IS NULL AND s.removed_at IS NULL AND {IS_FAILING}
) AS failing
FROM tickwork_app AS a WHERE a.id = 1
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

    @classmethod
    def from_row(cls, row: Row) -> "State":
        number, held = _number, holds_lease(row)
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
        )

    def lease_live(self, now: int) -> bool:
        return self.lease_until is not None and self.lease_until > now

    def lease_expired(self, now: int) -> bool:
        return self.lease_until is not None and self.lease_until <= now


@dataclass(frozen=True)
class Reached:
    """What a tick's first read found: the rows due, the declared set they were reconciled with,
    and whether a lease lapsed, with the window of ticks whose runs it was of."""

    due: list[State]
    fingerprint: str | None
    lapsed: bool
    sweep_at: int | None = None  # the earliest delivery the outbox's sweep has to send
    prev_tick: int | None = None  # the app's tick before this one
    housekeeping_due: bool = False  # an hour since the last pass completed, and none under way
    backfill_pending: bool = False  # an operator's backfill waits for the tick's backfill step
    lapse_from: int = 0  # the first tick of the window of runs whose leases lapsed
    prev_clock: int | None = None  # the clock of the app's tick before this one


def _number(value) -> int | None:
    return None if value is None else int(value)


def chunks(items: list) -> list[list]:
    return [items[start : start + ROWS_PER_STATEMENT] for start in range(0, len(items), ROWS_PER_STATEMENT)]


# D1 takes a string of 2,000,000 bytes at most: rows of any size go in JSON lists of at most this.
JSON_BYTES = 1_000_000


def json_chunks(rows: list) -> list[str]:
    """`rows` as JSON lists of at most JSON_BYTES each (one row alone may be more)."""
    return [text for text, _ in json_lists(rows)]


def json_lists(rows: list) -> list[tuple[str, int]]:
    """`json_chunks`, each with how many rows it holds: the first of `rows` in order."""
    found, part, size = [], [], 2
    for row in rows:
        text = json.dumps(row)
        length = len(text.encode()) + 2
        if part and size + length > JSON_BYTES:
            found.append(("[" + ", ".join(part) + "]", len(part)))
            part, size = [], 2
        part.append(text)
        size += length
    return found + ([("[" + ", ".join(part) + "]", len(part))] if part else [])


def run_id(tick: int) -> str:
    """A run's or skip's id: `z`, then its tick (`tick_at`) in 12 hex digits, then 19 random ones.
    The records' primary key then keeps them in tick order: housekeeping and the history read and
    delete them through it, with no index by tick for D1 to bill on every record (migration 0017)."""
    return f"z{int(tick):012x}{os.urandom(10).hex()[:19]}"


def digest(text: str) -> str:
    """An id worked out from `text`: the same however often the row is written (32 hex digits)."""
    import hashlib  # at first use: a Worker's cold start skips it

    return hashlib.sha256(text.encode()).hexdigest()[:32]


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

    @property
    def due_for(self) -> int:
        """The due time the run or skip is for, as its record keeps it."""
        return self.due if self.for_due is None else self.for_due

    def row(self) -> list:
        c = self.call
        return [self.name, self.due, self.next_due, self.run, c.at, c.n, c.i, c.dst, self.moment,
                self.reason, self.detail, self.requested, self.by_hand, self.trace, self.due_for,
                self.attempt, self.retrying]


@dataclass(frozen=True)
class Claimed:
    """What a claim batch won: the runs whose lease it took, the runs and skips it recorded, and
    the leases it gave back recorded `coalesced`, their moment made by another calendar of the
    action."""

    leased: set[str]
    recorded: set[str]
    coalesced: set[str]
    alerted: list[Row] = field(default_factory=list)  # what the skips' alert statements returned


@dataclass(frozen=True)
class End:
    """How a run ended, to record."""

    name: str
    run: str
    outcome: str
    code: str | None
    kind: str | None
    detail: str | None
    ended: int
    items: int | None = None  # what a purge run deleted, and each batch's count (JSON)
    batches: str | None = None
    events: str | None = None  # what a run emitted and kept: JSON {"event": count}
    writes: tuple = field(default=(), compare=False)  # a succeeded run's own statements, (sql, params)
    retry: int | None = None  # a failed run with attempts left: when its next attempt is due,
    attempt: int | None = None  # which attempt that is, the due time it is for, and its call
    for_due: int | None = None
    at: int | None = None
    n: int | None = None
    i: int | None = None
    dst: str | None = None

    def row(self) -> list:
        """The end as RECORD_ENDS reads it; its writes are statements of their own."""
        return [getattr(self, f.name) for f in fields(self) if f.name != "writes"]


@dataclass(frozen=True)
class Seed:
    """A state row to write: a schedule's name, `every` (0 for other kinds), form and due time."""

    name: str
    every: int
    form: str
    due_at: int


def covers_rows(claims: list[Claim]) -> list[list]:
    """RECORD_COVERS's rows: the claims covering more than one occurrence."""
    return [[c.run, c.covers.count, c.covers.first, c.covers.last, int(not c.covers.exact)]
            for c in claims if c.covers is not None]


class ScheduleStore:
    def __init__(self, db: Database):
        self.db = db

    async def reach(self, tick: int, leases: tuple[int, int], most: int | None = None,
                    clock: int | None = None) -> "Reached":
        """Marks the app's tick, whose leases last past it at most and at least `leases`, begun at
        `clock` (its invocation's; `tick` by default), and reads the rows due by `tick`, at most
        `most`, in one batch."""
        [mark], rows = await self.db.batch(
            [(MARK_TICK, (tick, *leases, tick if clock is None else clock)),
             (SELECT_DUE, (tick, -1 if most is None else most))]
        )
        return Reached(
            [State.from_row(row) for row in rows], mark["fingerprint"], bool(mark["lapsed"]),
            _number(mark["sweep_at"]), _number(mark["prev_tick"]), bool(mark["housekeeping_due"]),
            bool(mark["backfill_pending"]), int(mark["lapse_from"]), _number(mark["prev_clock"]),
        )

    async def due(self, tick: int, most: int | None = None) -> list[State]:
        """The rows due by `tick`, read again after a reconcile."""
        rows = await self.db.all(SELECT_DUE, (tick, -1 if most is None else most))
        return [State.from_row(row) for row in rows]

    async def named(self, names: list[str], tick: int) -> dict[str, State]:
        """The rows of the declared `names`; every other row is marked removed at `tick`."""
        statements = [(SELECT_NAMED, (chunk,)) for chunk in json_chunks(names)]
        results = await self.db.batch(statements + [(MARK_REMOVED, (json.dumps(names), tick))])
        return {row["name"]: State.from_row(row) for rows in results[:-1] for row in rows}

    async def reconcile(
        self,
        new: list[Seed],
        changed: list[tuple[State, Seed]],
        again: list[str],
        fingerprint: str | None,
        tick: int,
        missed: list[list] = (),
    ) -> None:
        """Adds the rows of schedules seen for the first time, rebases those whose form changed
        (each only while its row is as this tick read it), records what calendars declared again
        missed (`missed`: RECORD_UNDECLARED's rows), keeps the rows declared again, and seals the
        declared set as reconciled, in one transaction."""
        seeds = [[s.name, s.every, s.form, s.due_at] for s in new]
        rebases = [[s.name, s.every, s.form, s.due_at, old.form, old.due_at] for old, s in changed]
        statements = [(SEED, (chunk, tick)) for chunk in json_chunks(seeds)]
        statements += [(REBASE, (chunk,)) for chunk in json_chunks(rebases)]
        statements += [(RECORD_UNDECLARED, (chunk, tick)) for chunk in json_chunks(missed)]
        statements += [(DECLARED_AGAIN, (chunk,)) for chunk in json_chunks(again)]
        if fingerprint is not None:
            statements.append((SEAL, (fingerprint,)))
        if statements:
            await self.db.batch(statements)

    async def expire_leases(self, lapsed: tuple, retries: str = "{}", alerts: list | None = None,
                            tick: int | None = None) -> list[list[Row]]:
        """Ends every run whose lease lapsed as `failed`/`lease_expired` (`lapsed`: LAPSED's
        parameters, the clock and the window's first tick), scheduling the retries of those with attempts left
        (`retries`: JSON {name: [attempts, pause]}) from `tick` (the clock by default), then `alerts`, the
        statements announcing the schedules they start failing, in one transaction; what each of `alerts` returned."""
        tick = lapsed[0] if tick is None else tick
        results = await self.db.batch([(SCHEDULE_LAPSED_RETRIES, (*lapsed, retries, tick)), *(alerts or []),
                                       (FAIL_EXPIRED_RUNS, lapsed), (LAPSES_CLEARED, lapsed)])
        return results[1:1 + len(alerts or [])]

    async def claim(self, claims: list["Claim"], lease_until: int, tick: int, started: int,
                    alerts: Callable[[str], list] | None = None) -> "Claimed":
        """Takes the leases of the due runs and records their starts (or, for a moment another
        calendar of the action made, the coalesced skip, its lease given back), and moves the due
        times of the skips on and records them, all in one transaction: what each claim won is
        what the returned rows witness. `started`, on the invocation's clock, is when the runs
        start and what the skips read the leases by. `alerts` makes, for a chunk of skips dropping
        a pending retry, the statements announcing the schedules they start failing."""
        leases = [c.row() for c in claims if c.reason is None]
        superseded = [c.row() for c in claims if c.reason == Code.SUPERSEDED]
        skips = [c.row() for c in claims if c.reason not in (None, Code.SUPERSEDED)]
        statements: list = []
        announcing: list = []

        def skipped(rows: list, skip: str) -> None:
            chunk = json.dumps(rows)
            statements.extend([(skip, (chunk, tick, started)), (RECORD_SKIPS, (chunk, tick))])
            dropping = [row for row in rows if row[16] is not None]  # only these can start a streak
            if alerts is not None and dropping:
                made = alerts(json.dumps(dropping))
                announcing.extend(made)
                statements.extend(made)

        for rows in chunks(superseded):  # first: the due time they put aside is leased next
            skipped(rows, SKIP)
        for rows in chunks(leases):
            chunk = json.dumps(rows)
            take = TAKE_LEASES_ENDING if any(row[2] >= NEVER for row in rows) else TAKE_LEASES
            statements.append((take, (chunk, lease_until, tick) if take is TAKE_LEASES_ENDING else (chunk, lease_until)))
            moments = any(row[8] is not None for row in rows)  # calendars sharing an action
            if moments:
                statements.append((CLAIM_MOMENTS, (chunk,)))
            statements.append((RECORD_STARTS, (chunk, tick, started)))
            if any(row[15] > 1 for row in rows):  # retries
                statements.append((RECORD_RETRY_COVERS, (chunk,)))
            if moments:
                statements += [(RECORD_COALESCED, (chunk, tick)), (GIVE_BACK_COALESCED, (chunk,))]
        for rows in chunks(skips):
            skipped(rows, SKIP_ENDING if any(row[9] in ENDING_CODES for row in rows) else SKIP)
        statements += [(RECORD_COVERS, (chunk,)) for chunk in map(json.dumps, chunks(covers_rows(claims)))]
        if not statements:
            return Claimed(set(), set(), set())
        results = await self.db.batch(statements)

        def returned(*kinds: str) -> set[str]:
            return {v for (sql, _), rows in zip(statements, results) if sql in kinds for row in rows for v in row.values()}

        alerted = [row for statement, rows in zip(statements, results) if statement in announcing for row in rows]
        return Claimed(returned(TAKE_LEASES, TAKE_LEASES_ENDING), returned(RECORD_STARTS, RECORD_SKIPS),
                       returned(RECORD_COALESCED), alerted)

    async def read_back(self, claims: list["Claim"]) -> "Claimed":
        """What a claim batch that answered an error did: nothing, or all of it."""
        statements = [(READ_BACK, (json.dumps(chunk),)) for chunk in chunks([c.row() for c in claims])]
        rows = [row for rows in await self.db.batch(statements) for row in rows]

        def where(column: str) -> set[str]:
            return {row["run"] for row in rows if row[column]}

        return Claimed(where("leased"), where("recorded"), where("coalesced"))

    @staticmethod
    def ending(ends: list["End"]) -> list:
        """The statements that record how runs ended, which gives their leases back, for a batch,
        each run's own writes first, behind the check that its record is still running."""
        statements: list = [s for end in ends if end.writes for s in [(STILL_RUNNING, (end.run,)), *end.writes]]
        for part in chunks(ends):
            chunk = json.dumps([end.row() for end in part])
            retries = [(SCHEDULE_RETRIES, (chunk,))] if any(end.retry is not None for end in part) else []
            statements += [*retries, (RECORD_ENDS, (chunk,))]
        return statements

    async def hand_over(
        self, id: str, action: str, timing: str, input: str, form: str, every: int, due: int,
        expires: int | None, now: int, label: str | None = None,
    ) -> None:
        """Keeps a schedule handed over at run time: once, however often it is handed over."""
        await self.hand_over_many([json.dumps([[id, action, timing, input, form, every, due, expires, now, label]])])

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

    async def _each(self, sql: str, params: list[tuple]) -> list[list[Row]]:
        """`sql` once for each of `params`, in one batch (a single one alone)."""
        if len(params) == 1:
            return [await self.db.all(sql, params[0])]
        return await self.db.batch([(sql, p) for p in params]) if params else []

    async def schema(self) -> int:
        """The schema the store's tickwork tables are at (SCHEMA): 0 before migration 0023, or with
        no tickwork tables. Any other failure of the read raises."""
        try:
            rows = await self.db.all(SELECT_SCHEMA)
        except Exception as error:
            if "no such" not in str(error):  # SQLite's `no such column`, `no such table`, as D1 passes them on
                raise
            return 0
        return int(rows[0]["schema_version"] or 0) if rows else 0

    async def health(self) -> tuple[int | None, int | None, list[str]]:
        """The app's last tick, its invocation's clock, and the declared schedules failing (IS_FAILING)."""
        [row] = await self.db.all(HEALTH)
        return _number(row["last_tick"]), _number(row["last_clock"]), sorted(json.loads(row["failing"] or "[]"))

    async def gap(self, tick: int, previous: int, now: int) -> None:
        await self.db.all(RECORD_GAP, (tick, previous, now))

    async def state(self, name: str) -> State | None:
        rows = await self.db.all(SELECT_STATE, (name,))
        return State.from_row(rows[0]) if rows else None

    async def last_tick(self, name: str) -> int | None:
        """The last tick that reached the schedule."""
        rows = await self.db.all(LAST_TICK, (name,))
        return _number(rows[0]["last_tick"]) if rows else None

    async def runs(self, name: str) -> list[Row]:
        return await self.db.all(SELECT_RUNS, (name,))
