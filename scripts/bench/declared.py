"""`make bench`: a nothing-due tick at N declared schedules (N = 100, 10,000, 100,000), on the
SQLite store with D1's semantics (and, through scripts/bench/declared_in_host.mjs, on the
host's Pyodide with Miniflare's D1). The declared set is the app's, built once as the Worker
builds it at import (`App.declared`), so each tick sees what a deployed Worker's isolate sees.

Its time (median of interleaved ticks after a warm-up) and peak Python memory (tracemalloc
around the tick), its statements, round trips and rows written, with the ratios to N = 100.
Goals (issue 15): at most 1.3x the time and no more memory at 100,000 declared than at 100; 2
statements in 1 round trip writing at most 1 row. Prints one JSON line per figure and exits
non-zero naming the goals missed.

On the host it also weighs the isolate (issue 23): for 1,000, 10,000 and the most the build lets
an app declare, of schedules and of calendars, a Worker of its own whose manifest the build's code
wrote (`--manifest N PATH [calendar]`), its Wasm heap after import and after its first ticks;
goal: under an isolate's 128 MB.
"""

import asyncio
import gc
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

if sys.platform != "emscripten":  # on the host, tickwork comes from the Worker's bundle
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from bench_common import Counters, migrated_sqlite, report  # noqa: E402
from tickwork import Schedule  # noqa: E402
from tickwork.adapters.workers import TICK_STATEMENTS  # noqa: E402
from tickwork.app import App  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import DAY, MINUTE, SECOND, utc  # noqa: E402

T0 = utc("2026-03-03 12:00")
SIZES = (100, 10_000, 100_000)
ROUNDS, HOST_ROUNDS, MEMORY_ROUNDS = 101, 51, 3
GOALS = {"time_ratio": 1.3, "memory_ratio": 1.3, "statements": 2, "round_trips": 1, "rows_written": 1}


async def nothing():
    pass


def app_of(n: int) -> App:
    """N declared schedules, daily ones at minutes apart, none due within the benchmark."""
    return App(store=None, schedules=tuple(
        Schedule(f"chore_{k}", Every(DAY + (k % 600) * MINUTE), nothing) for k in range(n)))


async def timed(db, app: App, now: int) -> dict:
    gc.collect()
    counters = Counters(db)
    started = time.perf_counter()
    report = await tick(db, app.declared, now, started_at=now, max_statements=TICK_STATEMENTS)
    return {"ms": (time.perf_counter() - started) * 1000, "ran": len(report.runs), **counters.taken()}


async def traced(db, app: App, now: int) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        held, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        await tick(db, app.declared, now, started_at=now, max_statements=TICK_STATEMENTS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - held


async def measure(dbs: dict, store: str, rounds: int) -> list[dict]:
    apps = {n: app_of(n) for n in dbs}
    now = T0
    results = []
    for n, db in dbs.items():  # the first tick seeds the rows: no cap, as a deploy's first tick may take several
        started = time.perf_counter()
        await tick(db, apps[n].declared, now, started_at=now)
        results.append({"bench": "declared_first_tick", "store": store, "declared": n,
                        "seconds": round(time.perf_counter() - started, 2)})
    for _ in range(3):
        now += 10 * SECOND
        for n, db in dbs.items():
            await timed(db, apps[n], now)
    samples = {n: [] for n in dbs}
    for _ in range(rounds):
        now += 10 * SECOND
        for n, db in dbs.items():
            samples[n].append(await timed(db, apps[n], now))
    peaks = {n: [] for n in dbs}
    for _ in range(MEMORY_ROUNDS):
        now += 10 * SECOND
        for n, db in dbs.items():
            peaks[n].append(await traced(db, apps[n], now))
    base = min(dbs)
    ms = {n: statistics.median(s["ms"] for s in samples[n]) for n in dbs}
    peak = {n: max(peaks[n]) for n in dbs}
    for n in dbs:
        taken = samples[n]
        results.append({
            "bench": "nothing_due_tick_declared", "store": store, "declared": n,
            "ms": round(ms[n], 3), "ratio_to_100": round(ms[n] / ms[base], 2),
            "peak_kib": round(peak[n] / 1024, 1), "memory_ratio_to_100": round(peak[n] / peak[base], 2),
            **{key: max(s[key] for s in taken) for key in ("statements", "round_trips", "rows_written", "ran")},
        })
    return results


def missed(results: list[dict]) -> list[str]:
    found = []
    for r in (r for r in results if r["bench"] == "nothing_due_tick_declared"):
        where = f"{r['store']}: a nothing-due tick at {r['declared']:,} declared"
        if r["ratio_to_100"] > GOALS["time_ratio"]:
            found.append(f"{where} costs {r['ratio_to_100']}x its time at 100 (goal: at most {GOALS['time_ratio']}x)")
        if r["memory_ratio_to_100"] > GOALS["memory_ratio"]:
            found.append(f"{where} peaks at {r['memory_ratio_to_100']}x its memory at 100 (goal: no more)")
        for key in ("statements", "round_trips", "rows_written"):
            if r[key] > GOALS[key]:
                found.append(f"{where} makes {r[key]} {key.replace('_', ' ')} (goal: at most {GOALS[key]})")
        if r["ran"]:
            found.append(f"{where} ran {r['ran']} schedules that were not due")
    return found


async def host_main(ctx, js_env, sizes) -> str:
    """On the host's Pyodide: `js_env` binds DB_<N> for each N of `sizes`, empty and migrated."""
    import entry
    from tickwork.adapters.workers import D1Database

    env = entry.Default(ctx, js_env).env
    dbs = {int(n): D1Database(getattr(env, f"DB_{int(n)}")) for n in sizes}
    results = await measure(dbs, "host_d1", HOST_ROUNDS)
    return json.dumps({"results": results, "missed": missed(results)})


# The calendars weighed: a weekly time of its own each (10,080 crons), across these zones.
WEIGHED_ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney", "America/Sao_Paulo",
                 "Europe/London", "Asia/Kolkata")


def manifest(n: int, kind: str = "schedule") -> str:
    """The manifest the build writes for N declared schedules of the example app's `tidy_up`
    (CPython, beside the build's code): daily ones minutes apart, or calendars (the heavier
    entry, each with a croniter to search), a weekly time of its own each, an hour overdue."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tickwork_build.output import manifest_source
    from tickwork_build.schedules import Spec

    def timing(k: int) -> dict:
        if kind == "schedule":
            return {"every_ms": DAY + (k % 600) * MINUTE}
        return {"cron": f"{k % 60} {k // 60 % 24} * * {k // 1440 % 7}", "zone": WEIGHED_ZONES[k % len(WEIGHED_ZONES)],
                "overdue_ms": 3600 * SECOND, "nonexistent": "shift", "repeated": "first"}

    specs = [Spec(kind=kind, name=f"chore_{k}", domain="planning", module="app.domains.planning",
                  action="tidy_up", source=f"src/app/domains/planning/schedules/chore_{k}.jadpo:3", **timing(k))
             for k in range(n)]
    return manifest_source("DB", specs, TICK_STATEMENTS)


async def host_ticks(ctx, js_env) -> None:
    """On the host, in a Worker built with `manifest(n)`: its first tick, which seeds the rows,
    and five nothing-due ticks after it, at the 10-second marks."""
    import entry
    from tickwork.adapters.workers import D1Database

    db, now = D1Database(entry.Default(ctx, js_env).env.DB), T0
    await tick(db, entry.APP.declared, now, started_at=now)
    for _ in range(5):
        now += 10 * SECOND
        await tick(db, entry.APP.declared, now, started_at=now, max_statements=TICK_STATEMENTS)


if __name__ == "__main__" and sys.argv[1:2] == ["--most"]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tickwork_build.build import MOST_DECLARED

    print(MOST_DECLARED)
elif __name__ == "__main__" and sys.argv[1:2] == ["--manifest"]:
    Path(sys.argv[3]).write_text(manifest(int(sys.argv[2]), *sys.argv[4:5]))
elif __name__ == "__main__":
    sizes = tuple(int(n) for n in sys.argv[1].split(",")) if len(sys.argv) > 1 else SIZES
    results = asyncio.run(measure({n: migrated_sqlite() for n in sizes}, "cpython_sqlite", ROUNDS))
    report("declared_schedules", results, missed(results))
