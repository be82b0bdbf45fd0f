"""A failed due time made again: an operator's run of (schedule, due time) once more, asked for
from the console's run page or by `tickwork remake RUN`.

It is asked for as a backfill of that one occurrence which names the run it remakes
(`remake_of`, migration 0026): the tick's backfill step makes it under the schedule's own lease,
once however ticks race (the occurrence is marked made in the lease's batch, and the backfill is
done with it), for a schedule still there or a one-off item done with its call. The request is
one batch: the operator's log row, the request, and the made mark of an earlier failed backfill
of that due time forgotten, each only where the due time may be made again; and a read of the run
as the batch left it, which says why nothing happened where nothing did.
"""

import uuid
from dataclasses import dataclass

from ..database import Database, Row
from .alerts import iso_sql
from .app_row import RETRY_PENDING
from .schedules import ONE_OFF_DONE
from .sql import first

# A retry still to be made of the due time of the run `r` (`s` its schedule's row): the row's
# retry is of that due time (retry_due) and not superseded by the next due time (RETRY_PENDING).
RETRY_OF_ITS_DUE_TIME = f"({RETRY_PENDING} AND s.retry_due IS r.due_at)"

# The failed run ?1 whose due time may be made again: its schedule still there (or a one-off item
# done with its call), the run for a due time (not one by hand ahead of it), no run of that due
# time succeeded or running, no retry of it pending, and no remake of it waiting. Each looked up
# through the runs' index by (schedule, due_at) or the backfills' by schedule: none of the
# schedule's other records is read.
REMAKABLE = f"""r.outcome = 'failed' AND (s.removed_at IS NULL OR s.ended = '{ONE_OFF_DONE}')
  AND NOT (r.by_hand IS NOT NULL AND r.due_at > r.tick_at)
  AND NOT {RETRY_OF_ITS_DUE_TIME}
  AND NOT EXISTS (SELECT 1 FROM tickwork_runs AS o WHERE o.schedule = r.schedule AND o.due_at = r.due_at
                  AND o.outcome IN ('succeeded', 'running'))
  AND NOT EXISTS (SELECT 1 FROM tickwork_backfills AS b WHERE b.schedule = r.schedule AND b.state = 'pending'
                  AND b.remake_of IS NOT NULL AND b.from_at = r.due_at)"""
OF_RUN = "FROM tickwork_runs AS r JOIN tickwork_schedules AS s ON s.name = r.schedule WHERE r.id = ?1"

# The log row: ?1 the run, ?2 the log's id, ?3 now, ?4 who.
LOG_REMAKE = f"""
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT ?2, ?3, ?4, 'remake', r.schedule, 'due ' || {iso_sql('r.due_at')} || ' again, of run ' || r.id
{OF_RUN} AND {REMAKABLE}
"""

# The request, a backfill of the one occurrence (?2 its id, ?3 now, ?4 who): the tick's backfill
# step makes it.
REQUEST_REMAKE = f"""
INSERT INTO tickwork_backfills (id, schedule, from_at, to_at, who, requested_at, next_at, remake_of)
SELECT ?2, r.schedule, r.due_at, r.due_at, ?4, ?3, r.due_at, r.id
{OF_RUN} AND {REMAKABLE}
RETURNING id
"""

# A due time an earlier backfill (or remake) made and whose run failed is marked made: the mark
# goes where this batch asked for it again, so the step makes it once more.
FORGET_MADE = """
DELETE FROM tickwork_backfilled
WHERE (schedule, at) IN (SELECT schedule, from_at FROM tickwork_backfills WHERE id = ?2 AND remake_of = ?1)
"""

# A run with what a remake of its due time is asked against (why_not_remade reads them), for the
# one remake's answer and the bulk one's dry run alike.
REMADE_COLUMNS = ("r.id, r.schedule, r.due_at, r.tick_at, r.by_hand, r.outcome, s.removed_at, s.ended, s.paused, "
                  "s.retry_attempt,\n" f"""       s.due_at AS schedule_due, {RETRY_OF_ITS_DUE_TIME} AS retry_pending,
       (SELECT max(o.outcome = 'succeeded') FROM tickwork_runs AS o WHERE o.schedule = r.schedule
        AND o.due_at = r.due_at) AS succeeded,
       (SELECT max(o.outcome = 'running') FROM tickwork_runs AS o WHERE o.schedule = r.schedule
        AND o.due_at = r.due_at) AS running,
       (SELECT b.id FROM tickwork_backfills AS b WHERE b.schedule = r.schedule AND b.state = 'pending'
        AND b.remake_of IS NOT NULL AND b.from_at = r.due_at) AS waiting""")
# The run as the batch left it, with its schedule's row, for the operator's answer.
SELECT_REMADE = f"""
SELECT {REMADE_COLUMNS}
FROM tickwork_runs AS r LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule WHERE r.id = ?1
"""


@dataclass(frozen=True)
class Remade:
    """What asking for a remake came to: the backfill asked for (None where nothing was), and
    the run as the batch left it (None where there is no such run)."""

    backfill: str | None
    run: Row | None


class RemakeStore:
    def __init__(self, db: Database):
        self.db = db

    async def read(self, run: str) -> Row | None:
        """The run `run` with what a remake of its due time is asked against (SELECT_REMADE)."""
        return first(await self.db.all(SELECT_REMADE, (run,)))

    async def remake(self, run: str, who: str, now: int) -> Remade:
        """Asks for the due time of the failed run `run` to be made again and logs it, in one batch."""
        backfill = uuid.uuid4().hex
        _, made, _, row = await self.db.batch([
            (LOG_REMAKE, (run, uuid.uuid4().hex, now, who)),
            (REQUEST_REMAKE, (run, backfill, now, who)),
            (FORGET_MADE, (run, backfill)),
            (SELECT_REMADE, (run,)),
        ])
        return Remade(backfill if made else None, first(row))
