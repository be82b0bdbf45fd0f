"""`make bench`: what runs through Workflows cost a tick (issue 27), on the SQLite store with D1's
semantics and tickwork.testing.Workflows as the binding.

- A tick with nothing due while a `workflow:` schedule is declared and no instance is open: 2
  statements, 1 round trip, 1 row written, or the bench fails.
- The settling tick with N instances open (N = 1, 10, 40: under the 50 a tick asks about): its
  statements and round trips beside
  the nothing-due tick's, the status calls it makes (one an instance at most), and the rows it
  writes; the statements must not grow with N (set-based), and the rows written follow what
  settled (its record and its row closed), not what is open, or the bench fails.

Prints one JSON line per measurement and exits non-zero naming the goals missed.
"""

import asyncio
import json
import logging
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(root / "src"))

from tickwork import Schedule, env  # noqa: E402
from tickwork.adapters.sqlite import SQLiteDatabase  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.testing import Workflows, tick_at  # noqa: E402
from tickwork.times import HOUR, MINUTE, utc  # noqa: E402

NONE_DUE = {"statements": 2, "round_trips": 1, "rows_written": 1}
NINE = utc("2026-03-02 09:00")


async def never() -> None:
    pass


def database() -> SQLiteDatabase:
    db = SQLiteDatabase()
    db.apply_migrations(root / "migrations")
    return db


class Counting(Workflows):
    """The stand-in, counting the status calls a tick makes."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    async def get(self, id: str):
        self.asked += 1
        return await super().get(id)


def exports(n: int) -> list[Schedule]:
    return [Schedule(f"export_{k}", Every(HOUR), never, workflow="EXPORTS") for k in range(n)]


async def cost(db: SQLiteDatabase, schedules: list[Schedule], at: int) -> dict:
    before = db.statements_run, db.round_trips, db.rows_written
    await tick_at(schedules, at, db)
    after = db.statements_run, db.round_trips, db.rows_written
    return dict(zip(NONE_DUE, (b - a for a, b in zip(before, after, strict=True)), strict=True))


async def none_due() -> dict:
    db, flows = database(), Counting()
    with env.given(EXPORTS=flows):
        await tick_at(exports(1), NINE - HOUR, db)
        await tick_at(exports(1), NINE - 30 * MINUTE, db)
        await db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (NINE,))
        return await cost(db, exports(1), NINE - 29 * MINUTE)


async def settling(n: int) -> dict:
    """N instances open since 09:00; at 09:01 half of them complete, and the tick settles them."""
    db, flows = database(), Counting()
    schedules = exports(n)
    with env.given(EXPORTS=flows):
        await tick_at(schedules, NINE - HOUR, db)
        await tick_at(schedules, NINE, db)
        for id in flows.ids[: max(n // 2, 1)]:
            flows.complete(id, {"rows": 1})
        await db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (NINE + MINUTE,))
        flows.asked = 0
        spent = await cost(db, schedules, NINE + MINUTE)
    return {"open": n, "settled": max(n // 2, 1), **spent, "status_calls": flows.asked}


async def main() -> int:
    missed = []
    quiet = await none_due()
    print(json.dumps({"bench": "workflows_none_due", "workflow_schedules": 1, **quiet}))
    if quiet != NONE_DUE:
        missed.append(f"a nothing-due tick with a Workflow schedule declared cost {quiet} (goal: {NONE_DUE})")
    figures = [await settling(n) for n in (1, 10, 40)]
    for figure in figures:
        print(json.dumps({"bench": "workflows_settle", **figure}))
        if figure["status_calls"] > figure["open"]:
            missed.append(f"{figure['status_calls']} status calls for {figure['open']} open instances")
    last = figures[-1]
    if len({figure["statements"] for figure in figures}) != 1 or last["rows_written"] > 1 + 2 * last["settled"]:
        missed.append(f"the settling tick's statements or rows grow with the open instances: {figures}")
    for goal in missed:
        print(f"workflows: {goal}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    logging.disable(logging.WARNING)
    sys.exit(asyncio.run(main()))
