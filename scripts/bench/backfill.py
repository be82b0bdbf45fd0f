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
reads every record of a schedule costs steps for each of them. On the host
(scripts/bench/backfill_in_host.mjs, `host_main`) it is D1's rows read, Miniflare's
`meta.rows_read`; a month is not ticked through there, but its first tick and one after 40,000
occurrences more were marked made, with 500 backfills pending against 10.

Prints one JSON line per measurement and exits non-zero naming the goals missed.
"""

import asyncio
import json
import re
import sys
from pathlib import Path

if sys.platform != "emscripten":  # on the host, tickwork comes from the Worker's bundle
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from bench_common import report  # noqa: E402
from tickwork import Schedule  # noqa: E402
from tickwork.adapters.workers import TICK_STATEMENTS  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.store import backfills  # noqa: E402
from tickwork.store.operator import OperatorStore  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import DAY, MINUTE, utc  # noqa: E402

T0 = utc("2026-03-02 00:00")
DOWN = 30 * DAY
MOST_TICKS = 450  # the goal: 43,200 occurrences made within this many ticks
GOALS = {"runs_per_tick": 100, "growth": 1.3}


def counting_sqlite():
    """The SQLite store (CPython only), counting its virtual machine's steps while `counting` is on."""
    from tickwork.adapters.sqlite import SQLiteDatabase

    class Counting(SQLiteDatabase):
        unit = "sqlite_vm_steps"
        steps = 0

        def counting(self, on: bool) -> None:
            self._conn.set_progress_handler(self._step if on else None, 1)

        def _step(self) -> int:
            self.steps += 1
            return 0

    db = Counting()
    db.apply_migrations(Path(__file__).resolve().parents[2] / "migrations")
    return db


def read_so_far(db) -> int:
    """What the store has read: SQLite's steps here, D1's rows read on the host."""
    return db.steps if hasattr(db, "counting") else db.rows_read


async def nothing():
    pass


def frozen() -> float:
    return 0.0  # no budget spent: the statements alone bound a tick


async def a_tick(db, schedules: list, now: int) -> dict:
    """A tick at the Worker's cap: the backfilled runs it made and what it read per run."""
    [before] = await db.all("SELECT COUNT(*) AS n FROM tickwork_backfilled")
    if hasattr(db, "counting"):
        db.counting(True)
    read, statements = read_so_far(db), db.statements_run
    await tick(db, schedules, now, max_statements=TICK_STATEMENTS, monotonic=frozen)
    read, statements = read_so_far(db) - read, db.statements_run - statements
    if hasattr(db, "counting"):
        db.counting(False)
    [after] = await db.all("SELECT COUNT(*) AS n FROM tickwork_backfilled")
    runs = int(after["n"] - before["n"])
    return {"runs": runs, "statements": statements, "read_per_run": round(read / runs, 1) if runs else None}


async def asked(db, names: list[str], start: int, end: int, now: int) -> None:
    operator = OperatorStore(db)
    for name in names:
        await operator.backfill(name, start, end, "bench", now)


# Where the host cannot tick a month through in a bench's time: the occurrences after the next
# one the backfill makes marked made, as its runs would have (?1 how many, ?2 the first, ?3 the
# tick, ?4 the backfill).
PREFILL = [
    """WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n + 1 < CAST(?1 AS INTEGER))
    INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, at, backfill)
    SELECT printf('z%012x%07d', CAST(?3 AS INTEGER), n), 'minutely', CAST(?2 AS INTEGER) + n * 60000, ?3, ?3, ?3,
           'succeeded', CAST(?2 AS INTEGER) + n * 60000, 'bench' FROM k""",
    """WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n + 1 < CAST(?1 AS INTEGER))
    INSERT INTO tickwork_backfilled (schedule, at, run, backfill)
    SELECT 'minutely', CAST(?2 AS INTEGER) + n * 60000, printf('z%012x%07d', CAST(?3 AS INTEGER), n), ?4 FROM k""",
    "UPDATE tickwork_backfills SET next_at = CAST(?2 AS INTEGER) + (CAST(?1 AS INTEGER) - 1) * 60000 + 1 WHERE id = ?4",
]


async def prefill(db, count: int, now: int) -> None:
    [pending] = await db.all("SELECT id, next_at FROM tickwork_backfills WHERE state = 'pending'")
    first = int(pending["next_at"]) - 1 + MINUTE
    runs, made, moved = PREFILL
    given = (count, first, now, pending["id"])
    await db.batch([(runs, given[:3]), (made, given), (moved, given)])


async def one_month(db, prefilled: int | None = None) -> dict:
    """One minutely schedule down for 30 days, backfilled till done or MOST_TICKS ticks; or,
    `prefilled`, its first tick, then one after that many more occurrences were made."""
    schedules = [Schedule("minutely", Every(MINUTE), nothing)]
    back = T0 + DOWN
    await tick(db, schedules, T0, monotonic=frozen)
    await tick(db, schedules, back, monotonic=frozen)
    await asked(db, ["minutely"], T0, back, back)
    ticks = []
    while len(ticks) < (MOST_TICKS if prefilled is None else 2):
        if prefilled is not None and ticks:
            await prefill(db, prefilled, back + MINUTE)
        made = await a_tick(db, schedules, back + (len(ticks) + 1) * MINUTE)
        if not made["runs"]:
            break
        ticks.append(made)
    first, last = ticks[0], [t for t in ticks if t["runs"] >= ticks[0]["runs"]][-1]  # the last full tick
    [left] = await db.all("SELECT COUNT(*) AS n FROM tickwork_backfills WHERE state = 'pending'")
    runs = sum(t["runs"] for t in ticks) + (prefilled or 0)
    return {"bench": "one_schedule_a_month", "reads": getattr(db, "unit", "d1_rows_read"), "occurrences": runs,
            "ticks": len(ticks), "finished": not left["n"] or prefilled is not None,
            "runs_per_tick_first": first["runs"], "runs_per_tick_least": min(t["runs"] for t in ticks[:-1] or ticks),
            "read_per_run_first_tick": first["read_per_run"], "read_per_run_last_tick": last["read_per_run"],
            "growth": round(last["read_per_run"] / first["read_per_run"], 2)}


async def many_pending(db, count: int) -> dict:
    """`count` daily schedules down 10 days, each backfilled, all asked for at one moment."""
    schedules = [Schedule(f"daily_{k:04d}", Every(DAY), nothing) for k in range(count)]
    back = T0 + 10 * DAY
    await tick(db, schedules, T0, monotonic=frozen)
    await tick(db, schedules, back, monotonic=frozen)
    await asked(db, [s.name for s in schedules], T0, back, back + MINUTE)
    made = await a_tick(db, schedules, back + 2 * MINUTE)
    return {"bench": "backfills_pending", "reads": getattr(db, "unit", "d1_rows_read"), "pending": count, **made}


def plans() -> list[str]:
    """The problems in the plans of the backfill step's statements."""
    db = counting_sqlite()
    one = json.dumps([["minutely", T0]])
    claim = json.dumps([["minutely", T0, None, None, None, "run", "id", "bench", "trace", T0 + 1]])
    statements = {"PENDING": (backfills.PENDING, (10,)), "MADE": (backfills.MADE, (one,)),
                  "TAKE_LEASES": (backfills.TAKE_BACKFILL_LEASES, (claim, T0))}
    found = []
    for name, (sql, params) in statements.items():
        plan = [row[3] for row in db._conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
        for line in plan:
            if "INDEX tickwork_runs_beside (schedule=?)" in line:
                continue  # only the runs going beside on their own lease (overlap: allow), not the schedule's records
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
                             f"({r['read_per_run_last_tick']} {r['reads']} against {r['read_per_run_first_tick']}; "
                             f"goal: within {GOALS['growth']}x)")
    pending = {r["pending"]: r for r in results if r["bench"] == "backfills_pending"}
    if pending:
        few, many = pending[min(pending)], pending[max(pending)]
        if many["read_per_run"] > GOALS["growth"] * few["read_per_run"]:
            found.append(f"with {many['pending']:,} backfills pending a backfilled run reads {many['read_per_run']} "
                         f"{many['reads']}, {few['read_per_run']} with {few['pending']} "
                         f"(goal: within {GOALS['growth']}x)")
    return found


async def main() -> tuple[list[dict], list[str]]:
    results = []
    for count in (10, 2000):
        db = counting_sqlite()
        results.append(await many_pending(db, count))
        db.close()
    db = counting_sqlite()
    results.append(await one_month(db))
    db.close()
    return results, plans()


async def host_main(ctx, js_env) -> str:
    """On the host's Pyodide: `js_env` binds DB_FEW, DB_MANY and DB_MONTH, empty and migrated.
    A month is not ticked through here: its first tick, then one after 40,000 occurrences more."""
    import entry
    from tickwork.adapters.workers import D1Database

    env = entry.Default(ctx, js_env).env
    results = [await many_pending(D1Database(env.DB_FEW), 10), await many_pending(D1Database(env.DB_MANY), 500),
               await one_month(D1Database(env.DB_MONTH), prefilled=40_000)]
    return json.dumps({"results": results, "missed": missed(results)})


if __name__ == "__main__":
    measured, planned = asyncio.run(main())
    report("backfill", measured, missed(measured) + planned)
