"""`make bench`: D1 rows written per due run, and what tickwork costs on D1 a month (issue 15), on
the SQLite store with D1's semantics and, through scripts/bench/rows_in_host.mjs, on the host's
Pyodide with Miniflare's D1, whose `meta.rows_written` counts as D1 bills: each row written and
each index entry written with it. (CPython's SQLite counts rows changed, not index entries: its
figures are a floor, the host's are D1's.)

- A tick running 10 due declared schedules: its rows written beyond a nothing-due tick's, per
  run, and where they go, statement by statement (the host's D1 answers each one's count).
- A nothing-due tick among 1,000 declared schedules: statements and rows; six of them, a quiet
  minute with queues bound (ticks at the 10-second marks), and their statements.
- Housekeeping deleting run records past the retention: rows written and read per record.
- Run records ticks read looking for runs whose worker was lost: rows read per record.
- Storage: bytes a run record and a schedule handed over take, from the database's size.
- From these, a month of three app shapes, against the Free plan's daily limits and the Paid
  plan's included amounts (developers.cloudflare.com/d1/platform/pricing).

Prints one JSON line per measurement, then the table, and exits non-zero naming the goals missed.
"""

import asyncio
import json
import sys
from pathlib import Path

if sys.platform != "emscripten":  # on the host, tickwork comes from the Worker's bundle
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from bench_common import Counters, migrated_sqlite, report  # noqa: E402
from tickwork import Schedule  # noqa: E402
from tickwork.store import app_row, claims, ends, leases, schedules  # noqa: E402
from tickwork.store import sql as toolkit  # noqa: E402
from tickwork.adapters.workers import TICK_STATEMENTS  # noqa: E402
from tickwork.database import Database  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.store.housekeeping import RUNS as DELETE_RUNS  # noqa: E402
from tickwork.outbox import Outbox  # noqa: E402
from tickwork.tick import WORKER_TICK_BUDGET, tick  # noqa: E402
from tickwork.times import DAY, MINUTE, SECOND, utc  # noqa: E402

T0 = utc("2026-03-03 12:00")
DUE = 10  # declared schedules due at once
DECLARED = 1000
RECORDS = 1000  # run records housekeeping deletes, and records and rows whose storage is measured
MONTH_DAYS = 30

GOALS = {"rows_per_due_run": 5, "nothing_due_statements": 2, "nothing_due_rows_written": 1,
         "quiet_minute_statements": 12}

# The Free plan's daily limits and the Paid plan's included amounts a month.
FREE = {"rows_read": 5_000_000, "rows_written": 100_000, "storage": 5 * 10**9}
PAID = {"rows_read": 25_000_000_000, "rows_written": 50_000_000, "storage": 5 * 10**9}


async def nothing():
    pass


def every_minute(count: int) -> list[Schedule]:
    return [Schedule(f"minutely_{k}", Every(MINUTE), nothing) for k in range(count)]


def not_due(count: int) -> list[Schedule]:
    return [Schedule(f"daily_{k}", Every(DAY), nothing) for k in range(count)]


class Quiet:
    """A queue binding that is never sent to: nothing is emitted."""

    async def send_batch(self, bodies):
        raise AssertionError("nothing is emitted in this benchmark")


def statement_name(sql: str) -> str:
    named = (item for module in (app_row, claims, ends, leases, schedules, toolkit) for item in vars(module).items())
    for name, value in named:
        if isinstance(value, str) and value == sql and name.isupper():
            return name
    return sql.split()[0]


async def warm(db: Database, schedules: list[Schedule], outbox=None) -> None:
    """The first tick: it reconciles the declared set and makes housekeeping's first pass; the
    ticks measured after it, within the hour, make none."""
    await tick(db, schedules, T0, started_at=T0, outbox=outbox)


async def due_runs(db: Database, store: str, ledger) -> dict:
    schedules = every_minute(DUE)
    await warm(db, schedules)
    quiet = Counters(db)
    await tick(db, schedules, T0 + 30 * SECOND, started_at=T0 + 30 * SECOND, max_statements=TICK_STATEMENTS)
    floor = quiet.taken()
    ledger.clear()
    counters = Counters(db)
    report = await tick(db, schedules, T0 + MINUTE, started_at=T0 + MINUTE, max_statements=TICK_STATEMENTS)
    taken = counters.taken()
    ran = sum(1 for r in report.runs if r.outcome == "succeeded")
    assert ran == DUE, report
    written = taken["rows_written"] - floor["rows_written"]
    result = {"bench": "rows_per_due_run", "store": store, "due": DUE, "statements": taken["statements"],
              "rows_written": taken["rows_written"], "rows_per_due_run": round(written / DUE, 2)}
    if "rows_read" in taken:
        result["rows_read_per_due_run"] = round((taken["rows_read"] - floor["rows_read"]) / DUE, 2)
    if ledger:
        result["where"] = {name: round(rows / DUE, 2) for name, rows in ledger.items() if rows}
    return result


async def nothing_due(db: Database, store: str) -> list[dict]:
    schedules = not_due(DECLARED)
    outbox = Outbox(db, {"EVENTS": Quiet()}, frozenset(), lambda: T0)
    await warm(db, schedules, outbox)
    one = Counters(db)
    await tick(db, schedules, T0 + MINUTE, started_at=T0 + MINUTE, max_statements=TICK_STATEMENTS)
    one = one.taken()
    minute = Counters(db)
    for mark in range(6):
        at = T0 + 2 * MINUTE + mark * 10 * SECOND
        await tick(db, schedules, at, started_at=at, max_statements=TICK_STATEMENTS, outbox=outbox)
    return [{"bench": "nothing_due_tick", "store": store, "declared": DECLARED, **one},
            {"bench": "quiet_minute_with_queues", "store": store, "declared": DECLARED, "ticks": 6,
             **minute.taken()}]


# ?1 records, ?2 their tick; ids of a tick's form (store.sql.run_id), as housekeeping finds them.
OLD_RUNS = """
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < ?1)
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, trace)
SELECT 'z' || printf('%012x', CAST(?2 AS INTEGER)) || printf('%019x', n), 'nothing@' || printf('%032x', n % 997),
       ?2, ?2, ?2, ?2 + 3, 'succeeded',
       printf('%032x', n * 7919)
FROM k
"""

ITEMS = """
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < ?1)
INSERT INTO tickwork_schedules (name, action, timing, input, form, every_ms, due_at, first_tick, last_tick)
SELECT 'nothing@' || printf('%032x', n), 'bench.rows:nothing',
       '{"cron":"0 9 * * 1","kind":"calendar","nonexistent":"shift","overdue_ms":null,"repeated":"first","zone":"Europe/Berlin"}',
       '{"customer":' || n || '}', 'calendar 0 9 * * 1 | Europe/Berlin | nonexistent=shift repeated=first',
       0, ?2, ?2, ?2
FROM k
"""  # noqa: E501 (the timing's JSON as the table keeps it, on one line)


async def housekeeping_deletes(db: Database, store: str, size) -> list[dict]:
    """Run records past the retention deleted as housekeeping deletes them; the bytes records and
    handed-over schedules take, from the size of the database around their inserts."""
    empty = await size(db)
    await db.all(OLD_RUNS, (RECORDS, T0 - 60 * DAY))
    with_runs = await size(db)
    await db.all(ITEMS, (RECORDS, T0))
    with_items = await size(db)
    counters = Counters(db)
    await db.all(DELETE_RUNS, (T0 - 30 * DAY,))
    taken = counters.taken()
    deleted = {"bench": "housekeeping_deletes", "store": store, "records": RECORDS,
               "rows_written_per_record": round(taken["rows_written"] / RECORDS, 2)}
    if "rows_read" in taken:
        deleted["rows_read_per_record"] = round(taken["rows_read"] / RECORDS, 2)
    return [deleted, {"bench": "storage", "store": store, "bytes_per_run_record": round((with_runs - empty) / RECORDS),
                      "bytes_per_item": round((with_items - with_runs) / RECORDS)}]


async def lapse_window(db: Database, store: str, ticks_a_minute: int) -> dict:
    """What ticks read of each run record looking for runs whose worker was lost: a record is in
    the window of the ticks by which its lease may have lapsed, once that may be (`lease_short` after
    its tick). The rows read by the ticks of half an hour after records were made, less those read
    by the ticks of half an hour with none. With queues bound a Worker ticks at each 10-second mark
    too, each with what is left of the invocation's budget (invocation.py): its leases all end with
    the invocation's, so they last past their tick from 15 minutes (:00) down to 50 s less (:50), and
    a record is read by the marks' ticks in those 50 s."""
    await tick(db, [], T0, started_at=T0)
    await db.all(OLD_RUNS, (RECORDS, T0))

    async def half_an_hour(start: int) -> int:
        counters = Counters(db)
        for minutes in range(1, 31):
            for mark in range(ticks_a_minute):
                at = start + minutes * MINUTE + mark * 10 * SECOND
                await tick(db, [], at, started_at=at, budget=WORKER_TICK_BUDGET - mark * 10 * SECOND)
        return counters.taken().get("rows_read", 0)

    within = await half_an_hour(T0)
    await db.all("DELETE FROM tickwork_runs WHERE tick_at = ?1", (T0,))
    without = await half_an_hour(T0 + 30 * MINUTE)
    return {"bench": "lapse_window", "store": store, "records": RECORDS, "ticks_a_minute": ticks_a_minute,
            "rows_read_per_record": round((within - without) / RECORDS, 2)}


# The three shapes: declared schedules hourly, items weekly, ticks a minute (six with queues bound).
SHAPES = [
    {"shape": "10 declared", "declared": 10, "items": 0, "ticks_a_minute": 1},
    {"shape": "1,000 declared, queues bound", "declared": 1000, "items": 0, "ticks_a_minute": 6},
    {"shape": "1,000 declared + 1,000,000 items weekly", "declared": 1000, "items": 1_000_000, "ticks_a_minute": 1},
]


def month(results: list[dict]) -> list[dict]:
    """A month of each shape from the measured unit costs; housekeeping deletes each record once."""
    got = {r["bench"]: r for r in results}
    run, idle, minute = got["rows_per_due_run"], got["nothing_due_tick"], got["quiet_minute_with_queues"]
    deleted, storage = got["housekeeping_deletes"], got["storage"]
    windows = {r["ticks_a_minute"]: r for r in results if r["bench"] == "lapse_window"}
    rows = []
    for shape in SHAPES:
        minutes = MONTH_DAYS * 24 * 60
        runs = shape["declared"] * MONTH_DAYS * 24 + shape["items"] * MONTH_DAYS / 7
        if shape["ticks_a_minute"] == 6:
            ticks_written, ticks_read = minute["rows_written"] * minutes, minute.get("rows_read", 0) * minutes
        else:
            ticks_written, ticks_read = idle["rows_written"] * minutes, idle.get("rows_read", 0) * minutes
        written = ticks_written + runs * (run["rows_per_due_run"] + deleted["rows_written_per_record"])
        looked = windows[shape["ticks_a_minute"]].get("rows_read_per_record", 0)
        read = ticks_read + runs * (run.get("rows_read_per_due_run", 0) + deleted.get("rows_read_per_record", 0)
                                    + looked)
        kept = runs * storage["bytes_per_run_record"] + shape["items"] * storage["bytes_per_item"]
        rows.append({"bench": "d1_month", "store": run["store"], **shape, "runs": round(runs),
                     "rows_written": round(written), "rows_read": round(read), "storage_bytes": round(kept),
                     "free_plan_days_written": round(written / MONTH_DAYS / FREE["rows_written"], 2),
                     "free_plan_days_read": round(read / MONTH_DAYS / FREE["rows_read"], 2),
                     "paid_plan_written": round(written / PAID["rows_written"], 2),
                     "paid_plan_read": round(read / PAID["rows_read"], 4),
                     "storage_of_included": round(kept / PAID["storage"], 3)})
    return rows


def table(rows: list[dict]) -> str:
    """The month as docs/explanation/d1-costs.md shows it: each figure, and its share of the plan's amount."""
    lines = ["| app | rows written / month | rows read / month | storage | Free: written/day | Free: read/day "
             "| Paid: written | Paid: read |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['shape']} | {r['rows_written']:,} | {r['rows_read']:,} | {r['storage_bytes'] / 1e6:,.0f} MB "
            f"| {r['free_plan_days_written']:.0%} | {r['free_plan_days_read']:.0%} "
            f"| {r['paid_plan_written']:.0%} | {r['paid_plan_read']:.2%} |")
    return "\n".join(lines)


def missed(results: list[dict]) -> list[str]:
    found = []
    for r in results:
        if r["bench"] == "rows_per_due_run" and r["rows_per_due_run"] > GOALS["rows_per_due_run"]:
            found.append(f"{r['store']}: a due run writes {r['rows_per_due_run']} rows (goal: at most "
                         f"{GOALS['rows_per_due_run']}); where: {r.get('where')}")
        if r["bench"] == "nothing_due_tick":
            if (r["statements"] > GOALS["nothing_due_statements"]
                    or r["rows_written"] > GOALS["nothing_due_rows_written"]):
                found.append(f"{r['store']}: a nothing-due tick makes {r['statements']} statements and writes "
                             f"{r['rows_written']} rows (goal: 2 and 1)")
        if r["bench"] == "quiet_minute_with_queues" and r["statements"] > GOALS["quiet_minute_statements"]:
            found.append(f"{r['store']}: a quiet minute with queues bound makes {r['statements']} statements "
                         "(goal: 12)")
    return found


async def measure(fresh, store: str, ledger, size) -> list[dict]:
    results = [await due_runs(fresh(), store, ledger)]
    results += await nothing_due(fresh(), store)
    results += await housekeeping_deletes(fresh(), store, size)
    results += [await lapse_window(fresh(), store, 1), await lapse_window(fresh(), store, 6)]
    return results + month(results)


async def sqlite_size(db) -> int:
    [row] = await db.all("SELECT page_count * page_size AS size FROM pragma_page_count(), pragma_page_size()")
    return int(row["size"])


async def main() -> list[dict]:
    return await measure(migrated_sqlite, "cpython_sqlite", {}, sqlite_size)


async def host_main(ctx, js_env) -> str:
    """On the host's Pyodide: `js_env` binds DB_DUE, DB_IDLE, DB_KEPT, DB_LOST and DB_LOST_MARKS, empty
    and migrated."""
    import entry
    from tickwork.adapters.workers import D1Database

    ledger: dict[str, int] = {}

    class Ledger(D1Database):
        """D1's adapter, keeping each statement's rows written by name, and the database's size."""

        size = 0

        async def batch(self, statements):
            self.counts = []
            results = await super().batch(statements)
            for (sql, _), count in zip(statements, self.counts, strict=True):
                ledger[statement_name(sql)] = ledger.get(statement_name(sql), 0) + count
            return results

        async def all(self, sql, params=()):
            self.counts = []
            rows = await super().all(sql, params)
            ledger[statement_name(sql)] = ledger.get(statement_name(sql), 0) + sum(self.counts)
            return rows

        def _rows(self, result):
            meta = result.get("meta") or {}
            self.counts.append(int(meta.get("rows_written") or 0))
            self.size = int(meta.get("size_after") or self.size)
            return super()._rows(result)

    async def size(db) -> int:
        await db.all("SELECT 1")
        return db.size

    env = entry.Default(ctx, js_env).env
    bindings = iter([env.DB_DUE, env.DB_IDLE, env.DB_KEPT, env.DB_LOST, env.DB_LOST_MARKS])
    results = await measure(lambda: Ledger(next(bindings)), "host_d1", ledger, size)
    month_rows = [r for r in results if r["bench"] == "d1_month"]
    return json.dumps({"results": results, "missed": missed(results), "table": table(month_rows)})


if __name__ == "__main__":
    results = asyncio.run(main())
    report("rows_written", results, missed(results), table([r for r in results if r["bench"] == "d1_month"]))
