"""Where tickwork meets the Workers runtime: D1 through the `workers-runtime-sdk` bindings.

Under compat date >= 2026-04-21 the SDK wraps `self.env`: a D1 binding's results arrive as dicts
and `None` binds as NULL. Nothing here imports `js` or `pyodide`; the SDK does that for us.
"""

import time
from typing import Sequence

from ..app import App
from ..database import Database, Params, Row, Statement
from ..per_item import Items
from ..tick import TickReport, tick
from ..times import iso


# D1 takes 1,000 queries an invocation on the Paid plan; the rest is left to the actions.
# An app sets its own with [tool.tickwork] d1_statements_per_tick.
TICK_STATEMENTS = 900


class D1Database(Database):
    def __init__(self, binding):
        self._binding = binding
        self.statements_run = 0
        self.round_trips = 0
        self.rows_written = 0
        self.rows_read = 0

    def _prepare(self, sql: str, params: Params):
        statement = self._binding.prepare(sql)
        return statement.bind(*params) if params else statement

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        self.statements_run += 1
        self.round_trips += 1
        result = await self._prepare(sql, params).all()
        return self._rows(result)

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        self.statements_run += len(statements)
        self.round_trips += 1
        results = await self._binding.batch([self._prepare(sql, p) for sql, p in statements])
        return [self._rows(result) for result in results]

    def _rows(self, result) -> list[Row]:
        meta = result.get("meta") or {}
        self.rows_read += int(meta.get("rows_read") or 0)
        self.rows_written += int(meta.get("rows_written") or 0)
        return [dict(row) for row in (result["results"] or [])]


async def run_cron_tick(app: App, env, controller) -> TickReport:
    """A cron trigger's tick: `controller.scheduledTime` (epoch ms) is the tick's time."""
    if app.store is None:
        return TickReport(int(controller.scheduledTime), [])
    db = D1Database(getattr(env, app.store))
    report = await tick(
        db,
        app.schedules,
        int(controller.scheduledTime),
        started_at=int(time.time() * 1000),
        max_statements=app.statements_per_tick or TICK_STATEMENTS,
    )
    for run in report.runs:
        print(describe(run))
    return report


def items(app: App, env) -> Items:
    """Schedules handed over from a `fetch` or `queue` handler, timed from the wall clock:
    `await items(APP, self.env).calendar(send_statement, {"customer": id}, "0 9 * * 1")`.
    Inside a run, `tickwork.items` does the same, timed from the tick."""
    if app.store is None:
        raise RuntimeError("the app binds no D1 database to keep schedules in")
    return Items(D1Database(getattr(env, app.store)), lambda: int(time.time() * 1000))


def describe(run) -> str:
    took = "" if run.duration_ms is None else f" in {run.duration_ms} ms"
    why = f" ({run.code})" if run.code else ""
    return f"tickwork: {run.schedule} due {iso(run.due_at)}: {run.outcome}{why}{took}"
