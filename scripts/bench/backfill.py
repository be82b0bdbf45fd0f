"""`make bench`: what a backfill costs as it goes (issue 23), on the SQLite store with D1's semantics.

- One `every 1m` schedule backfilled over the 30 days it was down (43,200 occurrences), ticked a
  minute apart at the Worker's cap of 900 statements a tick: backfilled runs a tick, the ticks it
  takes to finish, and what SQLite reads per backfilled run on the first tick and on the last
  full one (the 43,000th run's).
- 2,000 schedules' backfills asked for at one moment (one `requested_at`), against 10: what a
  tick reads per backfilled run must not grow with the backfills pending.
- The plan of each of the backfill step's statements (EXPLAIN QUERY PLAN): each record it looks
  for found through an index by schedule and moment, no pending backfill sorted.

What is read: CPython's SQLite counts no rows read (D1 does), so this counts SQLite's virtual
machine steps (its progress handler, at every step), which grow as rows read do: a lookup that
reads every record of a schedule costs steps for each of them.

Prints one JSON line per measurement and exits non-zero naming the goals missed.
"""

import asyncio
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from bench_common import report  # noqa: E402
from tickwork import Schedule, backfill_store  # noqa: E402
from tickwork.adapters.sqlite import SQLiteDatabase  # noqa: E402
from tickwork.adapters.workers import TICK_STATEMENTS  # noqa: E402
from tickwork.grid import Every  # noqa: E402
from tickwork.operator_store import OperatorStore  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import DAY, MINUTE, utc  # noqa: E402

T0 = utc("2026-03-02 00:00")
DOWN = 30 * DAY
MOST_TICKS = 450  # the goal: 43,200 occurrences made within this many ticks
GOALS = {"runs_per_tick": 100, "growth": 1.3}
MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


class Counting(SQLiteDatabase):
    """The SQLite store, counting its virtual machine's steps while `counting` is on."""

    def __init__(self):
        super().__init__()
        self.apply_migrations(MIGRATIONS)
        self.steps = 0

    def counting(self, on: bool) -> None:
        self._conn.set_progress_handler(self._step if on else None, 1)

    def _step(self) -> int:
        self.steps += 1
        return 0


async def nothing():
    pass


def frozen() -> float:
    return 0.0  # no budget spent: the statements alone bound a tick


async def a_tick(db: Counting, schedules: list, now: int, counted: bool = False) -> dict:
    """A tick at the Worker's cap: the backfilled runs it made and SQLite's steps per run."""
    [before] = await db.all("SELECT COUNT(*) AS n FROM tickwork_backfilled")
    db.counting(counted)
    steps, statements = db.steps, db.statements_run
    await tick(db, schedules, now, max_statements=TICK_STATEMENTS, monotonic=frozen)
    db.counting(False)
    [after] = await db.all("SELECT COUNT(*) AS n FROM tickwork_backfilled")
    runs = after["n"] - before["n"]
    return {"runs": runs, "statements": db.statements_run - statements,
            "steps_per_run": round((db.steps - steps) / runs, 1) if counted and runs else None}


async def asked(db: Counting, names: list[str], start: int, end: int, now: int) -> None:
    operator = OperatorStore(db)
    for name in names:
        await operator.backfill(name, start, end, "bench", now)


async def one_month() -> dict:
    """One minutely schedule down for 30 days, backfilled till done or MOST_TICKS ticks."""
    db = Counting()
    schedules = [Schedule("minutely", Every(MINUTE), nothing)]
    back = T0 + DOWN
    await tick(db, schedules, T0, monotonic=frozen)
    await tick(db, schedules, back, monotonic=frozen)
    await asked(db, ["minutely"], T0, back, back)
    ticks = []
    while len(ticks) < MOST_TICKS:
        made = await a_tick(db, schedules, back + (len(ticks) + 1) * MINUTE, counted=True)
        if not made["runs"]:
            break
        ticks.append(made)
    first, last = ticks[0], [t for t in ticks if t["runs"] >= ticks[0]["runs"]][-1]  # the last full tick
    [left] = await db.all("SELECT COUNT(*) AS n FROM tickwork_backfills WHERE state = 'pending'")
    runs = sum(t["runs"] for t in ticks)
    db.close()
    return {"bench": "one_schedule_a_month", "occurrences": runs, "ticks": len(ticks), "finished": not left["n"],
            "runs_per_tick_first": first["runs"], "runs_per_tick_least": min(t["runs"] for t in ticks[:-1] or ticks),
            "steps_per_run_first_tick": first["steps_per_run"], "steps_per_run_last_tick": last["steps_per_run"],
            "growth": round(last["steps_per_run"] / first["steps_per_run"], 2)}


async def many_pending(count: int) -> dict:
    """`count` daily schedules down 10 days, each backfilled, all asked for at one moment."""
    db = Counting()
    schedules = [Schedule(f"daily_{k:04d}", Every(DAY), nothing) for k in range(count)]
    back = T0 + 10 * DAY
    await tick(db, schedules, T0, monotonic=frozen)
    await tick(db, schedules, back, monotonic=frozen)
    await asked(db, [s.name for s in schedules], T0, back, back + MINUTE)
    made = await a_tick(db, schedules, back + 2 * MINUTE, counted=True)
    db.close()
    return {"bench": "backfills_pending", "pending": count, **made}


def plans() -> list[str]:
    """The problems in the plans of the backfill step's statements."""
    db = Counting()
    one = json.dumps([["minutely", T0]])
    claim = json.dumps([["minutely", T0, None, None, None, "run", "id", "bench", "trace", T0 + 1]])
    statements = {"PENDING": (backfill_store.PENDING, (10,)), "MADE": (backfill_store.MADE, (one,)),
                  "TAKE_LEASES": (backfill_store.TAKE_LEASES, (claim, T0))}
    found = []
    for name, (sql, params) in statements.items():
        plan = [row[3] for row in db._conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
        for line in plan:
            if re.search(r"\(schedule=\?\)|TEMP B-TREE|^SCAN (r|x|tickwork_runs|tickwork_backfilled)\b", line):
                found.append(f"{name}: `{line}` (goal: each record found by schedule and moment, nothing sorted)")
    db.close()
    return found


def missed(results: list[dict]) -> list[str]:
    found = []
    for r in results:
        if r["bench"] == "one_schedule_a_month":
            if not r["finished"]:
                found.append(f"a month of a minutely schedule is not backfilled in {MOST_TICKS} ticks "
                             f"({r['occurrences']:,} made, {r['runs_per_tick_first']} a tick at first)")
            if r["runs_per_tick_least"] < GOALS["runs_per_tick"]:
                found.append(f"a tick at the cap of {TICK_STATEMENTS} statements makes {r['runs_per_tick_least']} "
                             f"backfilled runs (goal: at least {GOALS['runs_per_tick']})")
            if r["growth"] > GOALS["growth"]:
                found.append(f"a backfilled run reads {r['growth']}x as much on the last tick as on the first "
                             f"({r['steps_per_run_last_tick']} steps against {r['steps_per_run_first_tick']}; "
                             f"goal: within {GOALS['growth']}x)")
    pending = {r["pending"]: r for r in results if r["bench"] == "backfills_pending"}
    if pending:
        few, many = pending[min(pending)], pending[max(pending)]
        if many["steps_per_run"] > GOALS["growth"] * few["steps_per_run"]:
            found.append(f"with {many['pending']:,} backfills pending a backfilled run reads {many['steps_per_run']} "
                         f"steps, {few['steps_per_run']} with {few['pending']} (goal: within {GOALS['growth']}x)")
    return found


async def main() -> tuple[list[dict], list[str]]:
    results = [await many_pending(10), await many_pending(2000), await one_month()]
    return results, plans()


if __name__ == "__main__":
    measured, planned = asyncio.run(main())
    report("backfill", measured, missed(measured) + planned)
