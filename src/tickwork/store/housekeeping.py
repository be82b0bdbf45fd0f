"""Housekeeping's statements: the pass's lease on the app's row, and each delete, 1,000 rows at a
time, oldest first, through an index. What could still be needed is never deleted: a delivery
that could still run (`pending`, `running`, `failed`, `outcome_unknown`) and its event stay
however old, and a handled record stays as long as a queue can redeliver its message, whatever
became of its delivery."""

from dataclasses import dataclass

from ..database import Database
from .leases import LEASE_OPEN, RUNNING_BESIDE

ROWS_A_DELETE = 1000

# The pass's lease: taken only when the last pass completed an hour ago or more, and no live
# lease holds it, by ?3 the invocation's clock, as every lease; finished (or given back, if the
# pass did not complete) only by its owner.
TAKE = """
UPDATE tickwork_app SET housekeeping_owner = ?1, housekeeping_until = ?2
WHERE id = 1 AND (housekeeping_owner IS NULL OR housekeeping_until <= ?3)
  AND (housekeeping_done_at IS NULL OR housekeeping_done_at <= ?3 - 3600000)
RETURNING housekeeping_next
"""

# A pass that did not complete keeps where it stopped (?4, the kind of delete it was at): the
# next tick carries on from there, however few statements each tick has left for it.
FINISH = """
UPDATE tickwork_app SET housekeeping_owner = NULL, housekeeping_until = NULL,
    housekeeping_done_at = CASE WHEN ?2 THEN ?3 ELSE housekeeping_done_at END,
    housekeeping_next = CASE WHEN ?2 THEN 0 ELSE ?4 END
WHERE id = 1 AND housekeeping_owner = ?1
"""

# ?1 the retention's cutoff (runs, operator actions), ?2 the events' (24 hours), ?3 now, ?4 the
# handled records' (14 days).
# Run records: a tick's ids begin with `z` and the tick (sql.run_id), so the primary key
# finds the oldest in order; the index by tick holds only the records with ids of no such form,
# made before migration 0017, and costs the rest no entry.
RUNS = """
DELETE FROM tickwork_runs WHERE id IN (SELECT id FROM (
    SELECT id FROM (
        SELECT id FROM tickwork_runs INDEXED BY tickwork_runs_by_tick
        WHERE id < 'z' AND tick_at < ?1 AND outcome != 'running' ORDER BY tick_at LIMIT 1000)
    UNION ALL
    SELECT id FROM (
        SELECT id FROM tickwork_runs
        WHERE id > 'z' AND id < 'z' || printf('%012x', CAST(?1 AS INTEGER)) AND tick_at < ?1 AND outcome != 'running'
        ORDER BY id LIMIT 1000)
) LIMIT 1000)
"""

# A moment no calendar can be owed any more: every declared schedule's due time is past it.
MOMENTS = """
DELETE FROM tickwork_moments WHERE rowid IN (
    SELECT rowid FROM tickwork_moments
    WHERE at < (SELECT MIN(due_at) FROM tickwork_schedules WHERE removed_at IS NULL AND action IS NULL)
    LIMIT 1000)
"""

# Deliveries an operator dismissed or cancelled, the retention after the last action logged on
# them and never before the handled records' window (a message of one still in the queue is acked
# unrun only while its row says it was set aside), before the events: an event whose last such
# delivery goes is then deleted in the same pass.
SET_ASIDE_PAST_RETENTION = """
SELECT id FROM tickwork_deliveries AS d
WHERE d.state IN ('dismissed', 'cancelled') AND d.updated_at < MIN(?1, ?4)
  AND NOT EXISTS (SELECT 1 FROM tickwork_operator_log AS l WHERE l.delivery = d.id AND l.at >= MIN(?1, ?4))
LIMIT 1000
"""
SET_ASIDE_DELIVERIES = f"DELETE FROM tickwork_deliveries WHERE id IN ({SET_ASIDE_PAST_RETENTION})"

# Events 24 hours old whose every delivery left succeeded (or that nothing received), with their
# deliveries, in one batch: the same events each time, the oldest.
DELIVERED = """
SELECT e.id FROM tickwork_events AS e
WHERE e.emitted_at < ?2
  AND NOT EXISTS (SELECT 1 FROM tickwork_deliveries AS d WHERE d.event = e.id AND d.state != 'succeeded')
ORDER BY e.emitted_at LIMIT 1000
"""
DELIVERED_DELIVERIES = f"DELETE FROM tickwork_deliveries WHERE event IN ({DELIVERED})"
DELIVERED_EVENTS = f"DELETE FROM tickwork_events WHERE id IN ({DELIVERED})"

# An operator's log rows past the retention whose delivery is gone, or that are a schedule's.
OPERATOR_LOG = """
DELETE FROM tickwork_operator_log WHERE id IN (
    SELECT id FROM tickwork_operator_log AS l WHERE l.at < ?1
      AND (l.delivery IS NULL OR NOT EXISTS (SELECT 1 FROM tickwork_deliveries WHERE id = l.delivery))
    ORDER BY l.at LIMIT 1000)
"""

# Schedules handed over that ended (cancelled, expired, done, action gone) past the retention, no
# run of theirs going on: under `overlap: allow` an older run may still hold its record's own lease
# beside the row's (leases.py, 6), and the lapsed lookup finds it only through the row.
ENDED_ITEMS = f"""
DELETE FROM tickwork_schedules WHERE name IN (
    SELECT name FROM tickwork_schedules AS s
    WHERE action IS NOT NULL AND removed_at IS NOT NULL AND removed_at < ?1 AND NOT {LEASE_OPEN}
      AND NOT {RUNNING_BESIDE}
    ORDER BY removed_at LIMIT 1000)
"""


# Handled records past the time a queue can keep and redeliver a message, the consumer's dedupe
# window: a repeat is recognised by its handled record alone, whether its event is kept or not.
# Records of messages tickwork did not send (`message:<id>`) go the same way.
HANDLED = """
DELETE FROM tickwork_handled WHERE rowid IN (
    SELECT rowid FROM tickwork_handled WHERE handled_at < ?4 ORDER BY handled_at LIMIT 1000)
"""

# Backfills done or cancelled past the retention: first the occurrences they made (each kept
# till then, so that no later backfill makes them again while their runs are on record), then
# the backfills left with none.
ENDED_BACKFILLED = """
DELETE FROM tickwork_backfilled WHERE rowid IN (
    SELECT x.rowid FROM tickwork_backfilled AS x JOIN tickwork_backfills AS b ON b.id = x.backfill
    WHERE b.state != 'pending' AND b.ended_at < ?1 LIMIT 1000)
"""
ENDED_BACKFILLS = """
DELETE FROM tickwork_backfills WHERE id IN (
    SELECT id FROM tickwork_backfills AS b WHERE b.state != 'pending' AND b.ended_at < ?1
      AND NOT EXISTS (SELECT 1 FROM tickwork_backfilled AS x WHERE x.backfill = b.id) LIMIT 1000)
"""

# Deploy markers past the retention, never the newest: the next deploy is told apart from its set.
DEPLOY_MARKERS = """
DELETE FROM tickwork_deploys WHERE id IN (
    SELECT id FROM tickwork_deploys INDEXED BY tickwork_deploys_by_time
    WHERE at < ?1 AND id < (SELECT MAX(id) FROM tickwork_deploys) ORDER BY at LIMIT 1000)
"""


@dataclass(frozen=True)
class Delete:
    """One delete of a pass: its statements, run as one batch; `counted` the one whose rows say
    how many went (1,000 means there may be more)."""

    what: str
    statements: tuple[str, ...]
    counted: int = -1


# In the order a pass takes them: deliveries set aside before the events they may free. A pass
# keeps where it stopped by position here: a new kind goes at the end.
DELETES = (
    Delete("run records", (RUNS,)),
    Delete("moment claims", (MOMENTS,)),
    Delete("deliveries set aside", (SET_ASIDE_DELIVERIES,)),
    Delete("delivered events", (DELIVERED_DELIVERIES, DELIVERED_EVENTS)),
    Delete("operator log rows", (OPERATOR_LOG,)),
    Delete("ended schedules handed over", (ENDED_ITEMS,)),
    Delete("handled records", (HANDLED,)),
    Delete("ended backfills", (ENDED_BACKFILLED, ENDED_BACKFILLS), counted=0),
    Delete("deploy markers", (DEPLOY_MARKERS,)),
)


class HousekeepingStore:
    def __init__(self, db: Database):
        self.db = db

    async def take(self, owner: str, until: int, now: int) -> int | None:
        """Takes the pass's lease: the kind of delete to carry on from, or None if not taken."""
        rows = await self.db.all(TAKE, (owner, until, now))
        return int(rows[0]["housekeeping_next"]) if rows else None

    async def finish(self, owner: str, completed: bool, now: int, next: int = 0) -> None:
        await self.db.all(FINISH, (owner, completed, now, next))

    async def delete(self, delete: Delete, retention_cutoff: int, events_cutoff: int, now: int,
                     handled_cutoff: int) -> int:
        """Runs one delete; returns how many rows its counted statement removed."""
        params = (retention_cutoff, events_cutoff, now, handled_cutoff)
        statements = [(sql + "RETURNING 1", params[: _arity(sql)]) for sql in delete.statements]
        results = await self.db.batch(statements)
        return len(results[delete.counted])


def _arity(sql: str) -> int:
    return max((n for n in (1, 2, 3, 4) if f"?{n}" in sql), default=0)
