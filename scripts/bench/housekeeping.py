"""`make bench`: housekeeping empties a store of old run records without holding up a tick
(issue 11), on the SQLite store with D1's semantics (and, through
scripts/bench/housekeeping_in_host.mjs, on the host's Pyodide with Miniflare's D1).

A store holds N run records older than the retention (30 days; written by recursive-CTE INSERTs
in chunks, a benchmark's fixture), YOUNG records within it, and a few declared `every 1m`
schedules. It is ticked minute by minute, each tick at its time and under a Worker's cap (900
statements), until the old records are gone and the pass that deleted them completed. Per N:
the ticks it took, the most statements any tick made (the adapter's `statements_run`), the rows
deleted per tick and the time per tick; and that every schedule ran at each minute it was due
(each run record's tick_at its due_at), none late, none missed, and no young record deleted.

Prints one JSON line per measurement and exits non-zero, naming the goals missed.
"""

import asyncio
import json
import statistics
import sys
import time
from math import ceil
from pathlib import Path

if sys.platform != "emscripten":  # on the host, tickwork comes from the Worker's bundle
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from bench_common import report  # noqa: E402
from tickwork import Schedule  # noqa: E402
from tickwork.adapters.workers import TICK_STATEMENTS  # noqa: E402  (a Worker's cap, 900)
from tickwork.database import Database  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.tick.housekeeping import MOST_DELETES  # noqa: E402
from tickwork.app import RETENTION  # noqa: E402
from tickwork.store.housekeeping import ROWS_A_DELETE  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import MINUTE, utc  # noqa: E402

T0 = utc("2026-03-03 12:00")
CUTOFF = T0 - RETENTION  # every old record is older than this; every young one newer
SCHEDULES = 5  # declared, `every 1m`
YOUNG = 10_000  # records within the retention, which must stay
SIZES = (1_000_000,)
PER_TICK = MOST_DELETES * ROWS_A_DELETE  # what a tick's housekeeping may delete: 10,000
SPARE_TICKS = 5  # beyond N / PER_TICK + 1 before the benchmark gives up


async def nothing():
    pass


def declared() -> list[Schedule]:
    return [Schedule(f"minutely_{k}", Every(MINUTE), nothing) for k in range(SCHEDULES)]


# ?1..?2 the records' numbers; ?3 the newest record's tick; ?4 how many schedules they are of.
# The declared schedules' runs, one a minute each, going back from ?3; run ids as the tick's are,
# `z`, the tick in 12 hex digits, then random ones (schedule_store.run_id), so housekeeping deletes
# them through the primary key as it does a tick's. (D1 binds every number as a REAL: cast back
# where it matters.)
FIXTURE = """
WITH RECURSIVE k(n) AS (SELECT CAST(?1 AS INTEGER) UNION ALL SELECT n + 1 FROM k WHERE n < CAST(?2 AS INTEGER)),
r(n, at) AS (SELECT n, CAST(?3 AS INTEGER) - (n / CAST(?4 AS INTEGER)) * 60000 FROM k)
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, code, kind, detail)
SELECT 'z' || printf('%012x', at) || substr(lower(hex(randomblob(10))), 1, 19),
       'minutely_' || (n % CAST(?4 AS INTEGER)), at, at, at + 3, at + 40,
       CASE WHEN n % 97 = 0 THEN 'failed' ELSE 'succeeded' END,
       CASE WHEN n % 97 = 0 THEN 'internal_fault' END, CASE WHEN n % 97 = 0 THEN 'raised' END,
       CASE WHEN n % 97 = 0 THEN 'RuntimeError: the benchmark''s failure' END
FROM r
"""
# The records before ?1, from ?1 to ?2, and since ?1, counted along the primary key: every id here
# is of a tick's form.
TICK_ID = "'z' || printf('%012x', CAST(?{} AS INTEGER))"
OLD_LEFT = f"SELECT COUNT(*) AS n FROM tickwork_runs WHERE id < {TICK_ID.format(1)} AND tick_at < ?1"
YOUNG_LEFT = f"""SELECT COUNT(*) AS n FROM tickwork_runs
WHERE id >= {TICK_ID.format(1)} AND id < {TICK_ID.format(2)} AND tick_at >= ?1 AND tick_at < ?2"""
PASS_DONE = "SELECT housekeeping_done_at AS at FROM tickwork_app WHERE id = 1"
RUNS_SINCE = f"""SELECT schedule, due_at, tick_at, outcome FROM tickwork_runs
WHERE id >= {TICK_ID.format(1)} AND tick_at >= ?1"""


async def populate(db: Database, old: int, chunk: int) -> None:
    """`old` records older than the retention, `chunk` rows a statement, and YOUNG within it."""
    for first in range(0, old, chunk):
        await db.all(FIXTURE, (first, min(first + chunk, old) - 1, CUTOFF - MINUTE, SCHEDULES))
    await db.all(FIXTURE, (0, YOUNG - 1, T0 - MINUTE, SCHEDULES))


async def count(db: Database, sql: str, params=()) -> int:
    [row] = await db.all(sql, params)
    return int(row["n"])


def groups(ticks: list[dict]) -> list[dict]:
    """Consecutive ticks that deleted as many rows, with their time."""
    found: list[dict] = []
    for t in ticks:
        if found and found[-1]["deleted"] == t["deleted"]:
            found[-1]["_ms"].append(t["ms"])
        else:
            found.append({"deleted": t["deleted"], "_ms": [t["ms"]]})
    for g in found:
        ms = g.pop("_ms")
        g.update(ticks=len(ms), ms_median=round(statistics.median(ms), 1), ms_max=round(max(ms), 1))
    return found


async def empty(db: Database, store: str, old: int, chunk: int, cap: int = TICK_STATEMENTS) -> tuple[dict, dict]:
    """The fixture at N = `old`, then ticks a minute apart until the old records are gone and
    the pass completed. Returns the fixture's line and the run's."""
    started = time.perf_counter()
    await populate(db, old, chunk)
    fixture = {"bench": "housekeeping_fixture", "store": store, "old": await count(db, OLD_LEFT, (CUTOFF,)),
               "young": await count(db, YOUNG_LEFT, (CUTOFF, T0)),
               "seconds": round(time.perf_counter() - started, 1)}
    schedules = declared()
    most_ticks = ceil(old / PER_TICK) + 1 + SPARE_TICKS
    ticks, emptied_after, completed_after, left = [], None, None, fixture["old"]
    outcomes = {}
    clock = time.perf_counter()
    for i in range(most_ticks):
        now = T0 + i * MINUTE
        before = db.statements_run
        t = time.perf_counter()
        report = await tick(db, schedules, now, started_at=now, max_statements=cap)
        ms = (time.perf_counter() - t) * 1000
        statements = db.statements_run - before
        now_left = await count(db, OLD_LEFT, (CUTOFF,))
        ticks.append({"deleted": left - now_left, "ms": ms, "statements": statements, "runs": len(report.runs)})
        left = now_left
        for run in report.runs:
            outcomes[str(run.outcome)] = outcomes.get(str(run.outcome), 0) + 1
        if left == 0 and emptied_after is None:
            emptied_after = i + 1
        if left == 0 and (await db.all(PASS_DONE))[0]["at"] is not None:
            completed_after = i + 1
            break
    seconds = time.perf_counter() - clock
    last = T0 + (len(ticks) - 1) * MINUTE

    # Every schedule's runs as recorded: one at each minute from its first due to the last tick.
    recorded = await db.all(RUNS_SINCE, (T0,))
    owed = {(s.name, T0 + m * MINUTE) for s in schedules for m in range(1, len(ticks))}
    seen = {(r["schedule"], int(r["due_at"])) for r in recorded}
    late = [f"{r['schedule']} due {int(r['due_at'])} recorded at {int(r['tick_at'])}"
             for r in recorded if int(r["tick_at"]) != int(r["due_at"])]
    failed = [r for r in recorded if r["outcome"] != "succeeded"]
    ms = [t["ms"] for t in ticks]
    line = {
        "bench": "housekeeping", "store": store, "old": fixture["old"], "schedules": len(schedules),
        "cap": cap, "ticks": len(ticks), "emptied_after_ticks": emptied_after,
        "pass_completed_after_ticks": completed_after, "old_left": left,
        "young_kept": await count(db, YOUNG_LEFT, (CUTOFF, T0)), "young": fixture["young"],
        "most_statements": max(t["statements"] for t in ticks),
        "statements_per_tick": sorted({t["statements"] for t in ticks}),
        "most_deleted": max(t["deleted"] for t in ticks),
        "runs_due": len(owed), "runs_recorded": len(recorded), "missed": len(owed - seen),
        "late": len(late), "not_succeeded": len(failed), "outcomes": outcomes,
        "ms_median": round(statistics.median(ms), 1), "ms_p90": round(sorted(ms)[int(0.9 * (len(ms) - 1))], 1),
        "ms_max": round(max(ms), 1), "seconds": round(seconds, 1),
        "deleted_per_tick": groups(ticks),
        "_late": late[:5], "_missed": sorted(owed - seen)[:5], "_last": last,
    }
    return fixture, line


def missed(results: list[dict]) -> list[str]:
    """The goals of issue 11 these figures miss."""
    found = []
    for r in results:
        if r["bench"] != "housekeeping":
            continue
        at = f"{r['store']} at {r['old']:,} old records"
        if r["emptied_after_ticks"] is None or r["old_left"]:
            found.append(f"{at}: {r['old_left']:,} old records left after {r['ticks']} ticks")
        elif r["pass_completed_after_ticks"] is None:
            found.append(f"{at}: the pass had not completed after {r['ticks']} ticks")
        if r["most_statements"] > r["cap"]:
            found.append(f"{at}: a tick made {r['most_statements']} statements, over the cap of {r['cap']}")
        if r["most_deleted"] > PER_TICK:
            found.append(f"{at}: a tick deleted {r['most_deleted']:,} rows (at most {PER_TICK:,})")
        if r["late"] or r["missed"] or r["not_succeeded"]:
            found.append(f"{at}: of {r['runs_due']} runs due, {r['missed']} missed, {r['late']} late, "
                         f"{r['not_succeeded']} not succeeded: {r['_late'] + [str(m) for m in r['_missed']]}")
        if r["young_kept"] != r["young"]:
            found.append(f"{at}: {r['young'] - r['young_kept']} records within the retention were deleted")
    return found


def public(result: dict) -> dict:
    return {k: v for k, v in result.items() if not k.startswith("_")}


async def measure(opened, sizes, store: str, chunk: int) -> list[dict]:
    """`opened()` gives an empty migrated database for each N of `sizes`."""
    results = []
    for n in sizes:
        results += await empty(opened(n), store, n, chunk)
    return results


async def main(sizes=SIZES) -> list[dict]:
    from tickwork.adapters.sqlite import SQLiteDatabase

    migrations = Path(__file__).resolve().parents[2] / "migrations"

    def opened(n) -> SQLiteDatabase:
        db = SQLiteDatabase()
        db.apply_migrations(migrations)
        return db

    return await measure(opened, sizes, "cpython_sqlite", chunk=100_000)


async def host_main(ctx, js_env, sizes) -> str:
    """On the host's Pyodide: `js_env` binds DB_<N> for each N of `sizes`, empty and migrated,
    each reached as the Worker reaches its store (`self.env.<binding>`)."""
    import entry  # the Worker's own entry: its Default wraps env as the runtime does
    from tickwork.adapters.workers import D1Database

    env = entry.Default(ctx, js_env).env
    # D1 takes 100 KB a statement; a chunk's statement is under 1 KB whatever its rows.
    results = await measure(lambda n: D1Database(getattr(env, f"DB_{int(n)}")), [int(n) for n in sizes],
                            "host_d1", chunk=20_000)
    return json.dumps({"results": [public(r) for r in results], "missed": missed(results)})


if __name__ == "__main__":
    sizes = tuple(int(n) for n in sys.argv[1].split(",")) if len(sys.argv) > 1 else SIZES
    results = asyncio.run(main(sizes))
    report("housekeeping", [public(r) for r in results], missed(results))
