"""The app's one row (`tickwork_app`): the tick's mark, which answers every step's probe in the
tick's first statement; the schema the tables are at; the gaps in the ticks; and what health
reads, with the one definition of a schedule failing."""

import json
from dataclasses import dataclass

from ..database import Database, operation
from .leases import WINDOW_FROM, WINDOW_TO, running_made
from .schedules import ONE_OFF_DONE, SELECT_DUE, State
from .sql import number

# A schedule `s` a pending backfill waits on, as the tick's first read asks: paused, or removed by
# a deploy (declared again, it goes on); not one ended but a one-off item's `done`, nor a row gone,
# whose backfills the backfill step ends (backfills.END_GONE). A nothing-due tick pays no
# statement for a backfill waiting: the probe reads each pending one with its schedule's row, as
# the step's read does, which it spares.
BACKFILL_WAITS = (f"s.paused != 0 AND (s.ended IS NULL OR s.ended = '{ONE_OFF_DONE}')"
                  " OR s.removed_at IS NOT NULL AND s.ended IS NULL")

# A tick's first batch marks the app's tick, kept once on its own row, and reads the rows due
# by now through the index on the due time: what exists but is not due is never read. The mark
# (?2 and ?3 the longest and shortest the leases the tick gives may last past it, ?4 the clock,
# kept beside the tick's time for the gaps in the ticks) also answers
# the declared set the rows were last reconciled with, and whether a run's lease lapsed, declared
# or removed (with the window that run is in), so runs whose worker was lost end whoever held them;
# whether a run's Workflow instance is open and due to be asked (workflow_runs), by one lookup;
# and the moments rows run after this tick and before ?5, the next (tick/wakes.py; ?5 is ?1 when
# no wake queue is bound, an empty range): along the same index, only rows due that soon are read.
# Distinct whole seconds, as a wake is for one: 60 at most cover the minute, however many rows
# fall within one second.
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
      AS backfill_pending,
  (SELECT json_group_array(at) FROM (
      SELECT DISTINCT (runs_at + 999) / 1000 * 1000 AS at FROM tickwork_schedules INDEXED BY tickwork_schedules_by_due
      WHERE removed_at IS NULL AND runs_at > ?1 AND runs_at < ?5 AND paused = 0 ORDER BY runs_at LIMIT 60)) AS wakes,
  EXISTS (SELECT 1 FROM tickwork_workflow_runs INDEXED BY tickwork_workflow_runs_by_check WHERE check_at <= ?1)
      AS workflows_due
"""

# The schema this runtime ticks against, as the app's row keeps it (migration 0023; each later
# migration the runtime needs sets its own number). Read once an isolate, by its first tick, and by
# the health route and `tickwork status`: a store migrated before 0023 has no such column.
SCHEMA = 31
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
    wakes: tuple[int, ...] = ()  # the moments rows run after the tick and before the next (tick/wakes.py)
    workflows_due: bool = False  # a run's Workflow instance is open, due to be asked its status (workflow_runs)


class AppRow:
    """The app's row: the tick's mark with its first read, the schema, the gaps, and health."""

    def __init__(self, db: Database):
        self.db = db

    async def reach(self, tick: int, leases: tuple[int, int], most: int | None = None,
                    clock: int | None = None, wake_until: int | None = None) -> Reached:
        """Marks the app's tick, whose leases last past it at most and at least `leases`, begun at
        `clock` (its invocation's; `tick` by default), and reads the rows due by `tick`, at most
        `most`, in one batch, with the moments rows run after it and before `wake_until`."""
        [mark], rows = await self.db.batch(
            [(MARK_TICK, (tick, *leases, tick if clock is None else clock, tick if wake_until is None else wake_until)),
             (SELECT_DUE, (tick, -1 if most is None else most))]
        )
        return Reached(
            [State.from_row(row) for row in rows], mark["fingerprint"], bool(mark["lapsed"]),
            number(mark["sweep_at"]), number(mark["prev_tick"]), bool(mark["housekeeping_due"]),
            bool(mark["backfill_pending"]), int(mark["lapse_from"]), number(mark["prev_clock"]),
            tuple(int(at) for at in json.loads(mark["wakes"] or "[]")),
            bool(mark["workflows_due"]),
        )

    @operation("schema")
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
        return number(row["last_tick"]), number(row["last_clock"]), sorted(json.loads(row["failing"] or "[]"))

    async def gap(self, tick: int, previous: int, now: int) -> None:
        await self.db.all(RECORD_GAP, (tick, previous, now))
