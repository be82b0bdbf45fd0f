"""`make bench`: schedules handed over in bulk (issue 15), on the SQLite store with D1's semantics
(and, through scripts/bench/bulk_in_host.mjs, on the host's Pyodide with Miniflare's D1).

- 10,000 weekly calendars (ten zones) handed over at once through `Items.hand_over`, within an
  invocation's 1,000 statements; 2,000 `every` items within the Free plan's 50; 10,000 cancelled
  at once: statements, round trips, what was left over, time and items a second.
- A run that hands 10,000 over from inside a tick capped at a Worker's 900 statements: the run
  succeeds, its end recorded, the tick within its cap.
- The rate of single hand-overs, `items.calendar` (ten zones) against `items.every`, in
  interleaved rounds, each timed from a clock that moves a second an item, as a handler's does.

Prints one JSON line per measurement and exits non-zero, naming the goals missed.
"""

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

if sys.platform != "emscripten":  # on the host, tickwork comes from the Worker's bundle
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from bench_common import Counters, migrated_sqlite, report  # noqa: E402
from tickwork import Schedule, items  # noqa: E402
from tickwork.adapters.workers import INVOCATION_STATEMENTS, TICK_STATEMENTS  # noqa: E402
from tickwork.database import Database  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.per_item import Items  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import MINUTE, utc  # noqa: E402

T0 = utc("2026-03-03 12:00")  # a Tuesday noon: Monday at nine is days ahead in every zone
FREE_PLAN = 50  # D1 queries an invocation on the Free plan
MANY = 10_000
FREE_MANY = 2_000

GOALS = {
    "statements_for_10000": 60,  # within one invocation's 1,000
    "statements_for_2000_free": FREE_PLAN,
    "calendar_to_every_rate": 0.5,  # single calendar hand-overs at least half as fast as `every`
}

ZONES = ["UTC", "Europe/Berlin", "Europe/London", "America/New_York", "America/Los_Angeles",
         "America/Sao_Paulo", "Asia/Tokyo", "Asia/Kolkata", "Australia/Sydney", "Africa/Lagos"]


async def nothing():
    pass


def calendars(count: int, first: int = 0) -> list[dict]:
    """`count` customers' weekly statements, each in its customer's zone."""
    return [{"action": nothing, "input": {"customer": k}, "cron": "0 9 * * 1", "zone": ZONES[k % len(ZONES)]}
            for k in range(first, first + count)]


def invocation(db: Database, statements: int, now: int = T0) -> Items:
    """Items as a handler's invocation has them (`adapters.workers.items`): `statements` in all."""
    before = db.statements_run
    return Items(db, lambda: now, lambda: statements - (db.statements_run - before))


async def measured(bench: str, store: str, db: Database, count: int, cap: int, call) -> dict:
    counters = Counters(db)
    started = time.perf_counter()
    done = await call()
    seconds = time.perf_counter() - started
    return {"bench": bench, "store": store, "items": count, "cap": cap, "done": len(done.ids),
            "left_over": len(done.left_over), **counters.taken(), "seconds": round(seconds, 3),
            "per_second": round(count / seconds)}


async def in_bulk(db: Database, store: str) -> list[dict]:
    results = [await measured("hand_over_10000_calendars", store, db, MANY, INVOCATION_STATEMENTS,
                              lambda: invocation(db, INVOCATION_STATEMENTS).hand_over(calendars(MANY)))]
    inputs = [{"customer": k} for k in range(FREE_MANY)]
    results.append(await measured("every_many_2000_free_plan", store, db, FREE_MANY, FREE_PLAN,
                                  lambda: invocation(db, FREE_PLAN).every_many(nothing, inputs, "1d")))
    ids = (await Items(db, lambda: T0).hand_over(calendars(MANY))).ids  # the same again: the same ids
    results.append(await measured("cancel_many_10000", store, db, MANY, INVOCATION_STATEMENTS,
                                  lambda: invocation(db, INVOCATION_STATEMENTS).cancel_many(ids)))
    return results


HANDED_IN_RUN: list = []


async def enrol():
    HANDED_IN_RUN.append(await items.hand_over(calendars(MANY, first=10**6)))


async def in_a_run(db: Database, store: str) -> dict:
    """A tick capped as a Worker's is, whose one due run hands 10,000 over."""
    enrolling = [Schedule("enrol", Every(MINUTE), enrol)]
    await tick(db, enrolling, T0, max_statements=TICK_STATEMENTS)  # sees it: due a minute on
    counters = Counters(db)
    started = time.perf_counter()
    report = await tick(db, enrolling, T0 + MINUTE, max_statements=TICK_STATEMENTS)
    seconds = time.perf_counter() - started
    done = HANDED_IN_RUN.pop()
    return {"bench": "hand_over_10000_in_a_run", "store": store, "items": MANY, "cap": TICK_STATEMENTS,
            "done": len(done.ids), "left_over": len(done.left_over),
            "outcomes": [str(run.outcome) for run in report.runs], **counters.taken(),
            "seconds": round(seconds, 3)}


async def rates(db: Database, store: str, rounds: int, per_round: int) -> dict:
    """Single hand-overs a second, `every` and `calendar` in turn each round; the medians."""
    clock = [T0]

    def now() -> int:
        clock[0] += 1000
        return clock[0]

    handed = Items(db, now)
    taken: dict[str, list[float]] = {"every": [], "calendar": []}
    item = 0
    for _ in range(rounds):
        for kind in taken:
            started = time.perf_counter()
            for _ in range(per_round):
                item += 1
                if kind == "every":
                    await handed.every(nothing, {"customer": item}, "1d")
                else:
                    await handed.calendar(nothing, {"customer": item}, "0 9 * * 1", zone=ZONES[item % len(ZONES)])
            taken[kind].append(per_round / (time.perf_counter() - started))
    every, calendar = (statistics.median(taken[k]) for k in ("every", "calendar"))
    return {"bench": "single_hand_over_rate", "store": store, "items": rounds * per_round,
            "every_per_second": round(every), "calendar_per_second": round(calendar),
            "calendar_to_every": round(calendar / every, 2)}


def missed(results: list[dict]) -> list[str]:
    found = []
    by = {r["bench"]: r for r in results}
    for name, r in by.items():
        if "left_over" in r and (r["left_over"] or r["done"] != r["items"]):
            found.append(f"{r['store']}: {name}: {r['done']} of {r['items']} done, {r['left_over']} left over")
        if "statements" in r and r["statements"] > r["cap"]:
            found.append(f"{r['store']}: {name} made {r['statements']} statements, over the cap of {r['cap']}")
    store = results[0]["store"]
    if by["hand_over_10000_calendars"]["statements"] > GOALS["statements_for_10000"]:
        found.append(f"{store}: 10,000 handed over in {by['hand_over_10000_calendars']['statements']} statements "
                     f"(goal: at most {GOALS['statements_for_10000']})")
    if by["every_many_2000_free_plan"]["statements"] > GOALS["statements_for_2000_free"]:
        found.append(f"{store}: 2,000 handed over in {by['every_many_2000_free_plan']['statements']} statements "
                     f"(goal: within the Free plan's {FREE_PLAN})")
    if by["hand_over_10000_in_a_run"]["outcomes"] != ["succeeded"]:
        found.append(f"{store}: the run handing 10,000 over ended {by['hand_over_10000_in_a_run']['outcomes']}")
    ratio = by["single_hand_over_rate"]["calendar_to_every"]
    if ratio < GOALS["calendar_to_every_rate"]:
        found.append(f"{store}: a calendar hand-over runs at {ratio}x the rate of an `every` one "
                     f"(goal: at least {GOALS['calendar_to_every_rate']}x)")
    return found


async def measure(dbs: list[Database], store: str, rounds: int, per_round: int) -> list[dict]:
    """Every measurement, on three empty migrated databases."""
    bulk, run, single = dbs
    return await in_bulk(bulk, store) + [await in_a_run(run, store), await rates(single, store, rounds, per_round)]


async def main() -> list[dict]:
    return await measure([migrated_sqlite() for _ in range(3)], "cpython_sqlite", rounds=9, per_round=200)


async def host_main(ctx, js_env) -> str:
    """On the host's Pyodide: `js_env` binds DB_BULK, DB_RUN and DB_SINGLE, empty and migrated,
    each reached as the Worker reaches its store (`self.env.<binding>`)."""
    import entry  # the Worker's own entry: its Default wraps env as the runtime does
    from tickwork.adapters.workers import D1Database

    env = entry.Default(ctx, js_env).env
    dbs = [D1Database(getattr(env, name)) for name in ("DB_BULK", "DB_RUN", "DB_SINGLE")]
    results = await measure(dbs, "host_d1", rounds=5, per_round=20)
    return json.dumps({"results": results, "missed": missed(results)})


if __name__ == "__main__":
    results = asyncio.run(main())
    report("hand_over_in_bulk", results, missed(results))
