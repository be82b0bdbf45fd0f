"""What the console's run page reads, in one batch, each through an index, so the page reads the
rows it shows however many runs there are: the run's record and its schedule's row (primary
keys), every attempt of its due time (the runs' index by (schedule, due_at)), what it emitted
(the events' index by emission, at the run's end, when a run's events are written) with each
delivery (their index by event), the backfill or remake that made it (the made marks' key), and
the remakes of its due time (the backfills' index by schedule)."""

from dataclasses import dataclass, field

from ..database import Database, Row
from ..operating.views import first
from ..store.operator import SELECT_GAPS
from ..store.remakes import RETRY_OF_ITS_DUE_TIME

ATTEMPTS_MOST = 50  # attempts of one due time shown: retries are a few, remakes fewer
EMITTED_MOST = 100  # events of a run shown

# The run ?1 with its schedule's row (LEFT: a schedule deleted keeps its records a while), its
# concurrency key, for the page to say how long a run waited for it, and its open Workflow
# instance's row, where it went on through one (its primary key is the run's id).
RUN_RECORD = f"""
SELECT r.*, s.form AS form, s.label AS label, s.action AS action, s.removed_at AS removed_at, s.ended AS ended,
       s.paused AS paused, s.name IS NOT NULL AS schedule_kept, {RETRY_OF_ITS_DUE_TIME} AS retry_pending,
       s.concurrency_key AS concurrency_key, s.concurrency_limit AS concurrency_limit,
       w.binding AS workflow_binding, w.terminate_by AS terminate_by
FROM tickwork_runs AS r LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule
LEFT JOIN tickwork_workflow_runs AS w ON w.run = r.id WHERE r.id = ?1
"""

# Every run and skip for the same (schedule, due time) as ?1, in the order they were made, each
# with the run a remake that made it remade (through the made marks' key and the backfills').
RUN_ATTEMPTS = """
SELECT a.id, a.tick_at, a.started_at, a.ended_at, a.outcome, a.code, a.attempt, a.by_hand, a.backfill, a.trace,
       a.due_at, b.remake_of
FROM tickwork_runs AS r JOIN tickwork_runs AS a ON a.schedule = r.schedule AND a.due_at = r.due_at
LEFT JOIN tickwork_backfilled AS x ON x.schedule = a.schedule AND x.at = a.due_at AND x.run = a.id
LEFT JOIN tickwork_backfills AS b ON b.id = x.backfill
WHERE r.id = ?1 ORDER BY a.tick_at, a.id LIMIT CAST(?2 AS INTEGER)
"""

# What the run ?1 emitted, each with its delivery: a run's events are written with its end, at
# its end's time, so the index by emission reads those of that moment only.
RUN_EMITTED = """
SELECT e.id AS event, e.name, e.body, d.id AS delivery, d.queue, d.state, d.attempts, d.last_error
FROM tickwork_runs AS r
JOIN tickwork_events AS e INDEXED BY tickwork_events_by_emitted ON e.emitted_at = r.ended_at AND e.run = r.id
LEFT JOIN tickwork_deliveries AS d ON d.event = e.id
WHERE r.id = ?1 ORDER BY e.id LIMIT CAST(?2 AS INTEGER)
"""

# The backfill (or remake) whose occurrence the run ?1 made, where one did.
RUN_BACKFILL = """
SELECT b.* FROM tickwork_runs AS r
JOIN tickwork_backfilled AS x ON x.schedule = r.schedule AND x.at = r.due_at AND x.run = r.id
JOIN tickwork_backfills AS b ON b.id = x.backfill
WHERE r.id = ?1
"""

# The remakes asked for of the due time of ?1, the latest first.
RUN_REMAKES = """
SELECT b.* FROM tickwork_runs AS r
JOIN tickwork_backfills AS b ON b.schedule = r.schedule AND b.from_at = r.due_at AND b.remake_of IS NOT NULL
WHERE r.id = ?1 ORDER BY b.requested_at DESC LIMIT 20
"""


@dataclass(frozen=True)
class OneRun:
    run: Row | None
    attempts: list[Row]
    emitted: list[Row]
    backfill: Row | None  # the backfill or remake that made it
    remakes: list[Row]  # of its due time, the latest first
    gaps: list[Row] = field(default_factory=list)  # the latest gaps in the ticks, read only for a keyed schedule


class RunStore:
    def __init__(self, db: Database):
        self.db = db

    async def run(self, id: str) -> OneRun:
        record, attempts, emitted, backfill, remakes = await self.db.batch([
            (RUN_RECORD, (id,)), (RUN_ATTEMPTS, (id, ATTEMPTS_MOST)), (RUN_EMITTED, (id, EMITTED_MOST)),
            (RUN_BACKFILL, (id,)), (RUN_REMAKES, (id,)),
        ])
        run = first(record)
        # A second read only where the schedule names a key: how long the run waited for it.
        gaps = await self.db.all(SELECT_GAPS, (20,)) if run is not None and run.get("concurrency_key") else []
        return OneRun(run, attempts, emitted, first(backfill), remakes, gaps)
