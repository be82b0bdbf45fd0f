"""A running Workflow instance terminated by an operator, as the console's run page and
`tickwork terminate RUN` ask for it: one batch of the operator's log row and the request, each only
while the run's instance is open and not asked to end already; then the next tick (which holds
the Workflow binding, as the command does not) terminates it and records the run failed
`terminated`, saying who asked (tick.workflows)."""

import uuid

from ..database import Database, Row
from .sql import first

# The run ?1 whose instance may still be terminated: open, its record running, not asked already.
TERMINABLE = """FROM tickwork_workflow_runs AS w JOIN tickwork_runs AS r ON r.id = w.run
WHERE w.run = ?1 AND r.outcome = 'running' AND w.terminate_by IS NULL"""

# The log row: ?1 the run, ?2 the log's id, ?3 now, ?4 who.
LOG_TERMINATE = f"""
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT ?2, ?3, ?4, 'terminate', w.schedule, 'the Workflow ' || w.binding || ' instance of run ' || w.run
{TERMINABLE}
"""

# The request: the next tick asks this instance first (check_at 0) and terminates it.
REQUEST_TERMINATE = f"""
UPDATE tickwork_workflow_runs SET terminate_by = ?4, check_at = 0
WHERE run IN (SELECT w.run {TERMINABLE}) RETURNING run
"""

# The run as the batch left it: why nothing happened, where nothing did.
SELECT_TERMINATED_RUN = """
SELECT r.id, r.schedule, r.outcome, r.due_at, w.binding, w.terminate_by FROM tickwork_runs AS r
LEFT JOIN tickwork_workflow_runs AS w ON w.run = r.id WHERE r.id = ?1
"""


async def request_terminate(db: Database, run: str, who: str, now: int) -> tuple[bool, Row | None]:
    """Asks for run `run`'s instance to be terminated, logged as `who`'s: whether it was asked now,
    and the run (None where there is none)."""
    params = (run, uuid.uuid4().hex, now, who)
    results = await db.batch([(LOG_TERMINATE, params), (REQUEST_TERMINATE, params),
                              (SELECT_TERMINATED_RUN, (run,))])
    return bool(results[1]), first(results[2])
