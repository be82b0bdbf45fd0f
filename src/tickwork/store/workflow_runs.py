"""Runs that went on as Cloudflare Workflow instances (migration 0031): the row each keeps while its
instance is open, the lease it holds meanwhile, and the statements that settle them.

A run of a schedule that names a Workflow binding creates the instance under the run's own id and
its record stays `running`: before the instance is created its row is opened here and the
schedule's lease held to the run's limit (tick.workflows.start), so the next due time finds the
run still going (as any run's) and the lapsed leases' window never ends it `lease_expired`, even
where the tick that created it died before its end's batch. A later tick asks the instance its status
and records the run's end as any end (store.ends), then closes its row (CLOSE_WORKFLOW_RUNS)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..database import Database, Statement
from .sql import json_chunks

# Before the run's instance is created, in the batch of its own statements: its row, once however
# often the claim is made again. ?4 its start, ?5 its limit's end, ?6 its claim (JSON), ?7 the
# tick time from which it is asked.
OPEN_WORKFLOW_RUN = """
INSERT INTO tickwork_workflow_runs (run, schedule, binding, started, until_at, claim, check_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (run) DO NOTHING
"""

# Beside it: the schedule's lease lasts to the run's limit (?3), only while the run holds it.
HOLD_WORKFLOW_LEASE = """
UPDATE tickwork_schedules SET lease_until = MAX(IFNULL(lease_until, ?3), ?3)
WHERE name = ?1 AND lease_run = ?2
"""

# And, for a run beside another (overlap: allow), its record's own lease (migration 0030) lasts as
# long, or the lapsed leases' window would end it `lease_expired` while its instance goes on.
HOLD_WORKFLOW_RUN_LEASE = """
UPDATE tickwork_runs SET lease_until = MAX(lease_until, ?2) WHERE id = ?1 AND lease_until IS NOT NULL
"""

# The open instances a tick asks about (only when the first read found one due to be asked,
# app_row.MARK_TICK's `workflows_due`): those asked longest ago first, at most ?2, along the index by
# check_at. Their records are read beside them, and a handed-over schedule's action and timing (by
# its primary key), for what their ends need (its retry, its `times`).
SELECT_OPEN_WORKFLOW_RUNS = """
SELECT w.run, w.schedule, w.binding, w.started, w.until_at, w.claim, w.terminate_by, r.trace, r.outcome,
       r.by_hand, r.backfill, s.action, s.timing
FROM tickwork_workflow_runs AS w INDEXED BY tickwork_workflow_runs_by_check
JOIN tickwork_runs AS r ON r.id = w.run
LEFT JOIN tickwork_schedules AS s ON s.name = w.schedule
WHERE w.check_at <= ?1 ORDER BY w.check_at LIMIT ?2
"""

# After their ends are recorded: the settled runs' rows go (?1 JSON [run]), and those still going
# are next asked at ?3 (?2 JSON [run]). Only in a tick that asked about any; set-based, one
# statement each whatever their number.
CLOSE_WORKFLOW_RUNS = "DELETE FROM tickwork_workflow_runs WHERE run IN (SELECT value FROM json_each(?1))"
ASK_WORKFLOW_RUNS_AGAIN = """
UPDATE tickwork_workflow_runs SET check_at = ?2 WHERE run IN (SELECT value FROM json_each(?1))
"""


@dataclass(frozen=True)
class OpenRun:
    """A run whose Workflow instance was open when the tick read it."""

    run: str
    name: str
    binding: str
    started: int
    until: int
    claim: dict[str, Any]
    trace: str | None
    outcome: str
    terminate_by: str | None = None  # an operator asked for it to be terminated (store.terminations)
    action: str | None = None  # a handed-over schedule's action key and timing JSON, as its row keeps them
    timing: str | None = None
    origin: str = "due"  # why it ran, as its record says (by_hand, backfill): its settled point's

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> OpenRun:
        return cls(str(row["run"]), str(row["schedule"]), str(row["binding"]), int(row["started"]),
                   int(row["until_at"]), json.loads(row["claim"]), row["trace"], str(row["outcome"]),
                   row["terminate_by"], row.get("action"), row.get("timing"),
                   "by_hand" if row.get("by_hand") else "backfill" if row.get("backfill") else "due")


def opening(run: str, name: str, binding: str, started: int, until: int, lease: int, claim: dict[str, Any],
            ask_from: int, beside: bool = False) -> list[Statement]:
    """A run's own statements, written before its instance is created: its row, ended at `until`,
    and the schedule's lease held to `lease` (and its record's own, for a run `beside` another)."""
    row = (run, name, binding, started, until, json.dumps(claim), ask_from)
    statements: list[Statement] = [(OPEN_WORKFLOW_RUN, row), (HOLD_WORKFLOW_LEASE, (name, run, lease))]
    return statements + ([(HOLD_WORKFLOW_RUN_LEASE, (run, lease))] if beside else [])


class WorkflowRuns:
    """The open Workflow runs: read for a tick to ask about, and closed once settled."""

    def __init__(self, db: Database):
        self.db = db

    async def open(self, now: int, most: int) -> list[OpenRun]:
        return [OpenRun.from_row(row) for row in await self.db.all(SELECT_OPEN_WORKFLOW_RUNS, (now, most))]

    async def close(self, settled: list[str], going: list[str], ask_from: int) -> None:
        """Removes the rows of `settled` and asks about `going` again from `ask_from`."""
        statements: list[Statement] = [(CLOSE_WORKFLOW_RUNS, (chunk,)) for chunk in json_chunks(settled)]
        statements += [(ASK_WORKFLOW_RUNS_AGAIN, (chunk, ask_from)) for chunk in json_chunks(going)]
        if statements:
            await self.db.batch(statements)
