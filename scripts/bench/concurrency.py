"""`make bench`: concurrency per key (issue 25). After an outage: 5,000 one-off items naming
`api:acme` with a limit of 4, due one after another across the hour the ticks stopped (09:30 to
10:30), beside 10 declared schedules, on the SQLite store with D1's semantics: the statements,
round trips and rows written of a tick with nothing due while the key is in use, and of each tick
working the backlog off once the ticks are back (its runs, and the most under way at once). Goals:
a nothing-due tick stays 2 statements, 1 round trip, 1 row written; each tick back makes 4 runs, in
no more statements than a tick of 4 unkeyed runs, oldest due first; all 5,000 made, none skipped:
the catch-up goes out 4 at a time."""

import asyncio
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(root / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import migrated_sqlite, report  # noqa: E402

from tickwork import Schedule, call  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.per_item import Items  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import MINUTE, utc  # noqa: E402

OWED, LIMIT = 5_000, 4
OUTAGE = 60 * MINUTE  # the ticks stopped at 09:30 and came back at 10:30
DUE_ORDER: list[int] = []  # each call's due time, in the order made
UNDER_WAY = {"now": 0, "most": 0, "made": 0}


async def nothing():
    pass


async def call_the_api():
    UNDER_WAY["now"] += 1
    UNDER_WAY["most"] = max(UNDER_WAY["most"], UNDER_WAY["now"])
    UNDER_WAY["made"] += 1
    DUE_ORDER.append(call.at)
    await asyncio.sleep(0)
    UNDER_WAY["now"] -= 1


async def measured(db, schedules, moment) -> dict:
    statements, trips, written, made = db.statements_run, db.round_trips, db.rows_written, UNDER_WAY["made"]
    await tick(db, schedules, moment)
    return {"statements": db.statements_run - statements, "round_trips": db.round_trips - trips,
            "rows_written": db.rows_written - written, "runs": UNDER_WAY["made"] - made}


async def main() -> tuple[list[dict], list[str]]:
    schedules = [Schedule(f"daily_{n}", Every(24 * 60 * MINUTE), nothing) for n in range(10)]  # none due meanwhile
    keyed, plain = migrated_sqlite(), migrated_sqlite()
    nine = utc("2026-03-02 09:00")
    outage = nine + 30 * MINUTE
    items = Items(keyed, lambda: nine)
    for part in range(0, OWED, 1_000):  # due across the outage, 0.72 s apart
        await items.hand_over([{"action": call_the_api, "input": {"k": k}, "at": outage + k * OUTAGE // OWED,
                                "concurrency": ("api:acme", LIMIT)} for k in range(part, part + 1_000)])
    await Items(plain, lambda: nine).once_many(call_the_api, [{"k": k} for k in range(LIMIT)], nine + 30 * MINUTE)
    for db in (keyed, plain):  # a tick a minute, as the Worker's cron: no gap recorded
        for k in range(30):
            await tick(db, schedules, nine + k * MINUTE)
    none_due = await measured(keyed, schedules, nine + 29 * MINUTE + 30_000)
    plain_tick = await measured(plain, schedules, nine + 30 * MINUTE)
    UNDER_WAY["made"] = UNDER_WAY["most"] = 0
    DUE_ORDER.clear()
    back = outage + OUTAGE  # no tick in between: the outage
    backlog = [await measured(keyed, schedules, back + k * MINUTE) for k in range(OWED // LIMIT)]
    made = UNDER_WAY["made"]
    skipped = (await keyed.all("SELECT COUNT(*) AS n FROM tickwork_runs WHERE outcome = 'skipped'"))[0]["n"]
    # The typical tick (an hourly one does housekeeping besides: its statements are shown apart).
    keyed_tick = sorted(backlog, key=lambda m: m["statements"])[len(backlog) // 2]
    results = [
        {"bench": "concurrency_nothing_due", **none_due},
        {"bench": "concurrency_tick_with_the_key_in_use", **keyed_tick, "most_under_way": UNDER_WAY["most"],
         "ticks": len(backlog), "most_statements": max(m["statements"] for m in backlog), "made": made,
         "skipped": skipped, "in_due_order": DUE_ORDER == sorted(DUE_ORDER)},
        {"bench": "concurrency_tick_of_as_many_unkeyed_runs", **plain_tick},
    ]
    missed = []
    if (none_due["statements"], none_due["round_trips"], none_due["rows_written"]) != (2, 1, 1):
        missed.append(f"a nothing-due tick with a key in use: {none_due} (goal: 2 statements, 1 round trip, 1 row)")
    if UNDER_WAY["most"] > LIMIT or made != OWED or skipped:
        missed.append(f"{made} of {OWED} made, {skipped} skipped, {UNDER_WAY['most']} at once (goal: all, 0, {LIMIT})")
    if DUE_ORDER != sorted(DUE_ORDER):
        missed.append("the backlog went out in another order than its due times (goal: oldest due first)")
    if any(m["runs"] != LIMIT for m in backlog):
        missed.append(f"ticks working the backlog off made {sorted({m['runs'] for m in backlog})} runs (goal: {LIMIT})")
    if keyed_tick["statements"] > plain_tick["statements"]:
        missed.append(f"a tick with the key in use took {keyed_tick['statements']} statements, one of as many unkeyed "
                      f"runs {plain_tick['statements']} (goal: no more)")
    return results, missed


if __name__ == "__main__":
    results, missed = asyncio.run(main())
    report("concurrency_per_key", results, missed)
