"""`make bench`: metrics (issue 27). A tick's D1 cost with an Analytics Engine dataset bound is the
one without it (`writeDataPoint` is no D1 statement): a nothing-due tick 2 statements, 1 round trip,
1 row written and no point, a due run's statements and rows unchanged; and `tickwork status`'s lag
percentiles read the window's run records, not the table: rows read follow the runs of its window.
The bench fails where either does not hold."""

import asyncio
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(root / "src"), str(Path(__file__).resolve().parent)]

from backfill import counting_sqlite  # noqa: E402
from bench_common import Counters, migrated_sqlite, report  # noqa: E402
from tickwork import Schedule  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.store.lags import lags_since  # noqa: E402
from tickwork.testing import MemoryDataset  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import HOUR, MINUTE, utc  # noqa: E402

NINE = utc("2026-03-02 09:00")
SCHEDULES = 10


async def nothing():
    pass


async def tick_costs(dataset) -> dict:
    """A nothing-due tick, then one with all due, with `dataset` bound or not (None)."""
    db = migrated_sqlite()
    schedules = [Schedule(f"quarterly_{n}", Every(15 * MINUTE), nothing) for n in range(SCHEDULES)]
    await tick(db, schedules, NINE)
    await tick(db, schedules, NINE + 13 * MINUTE)
    await db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (NINE + 15 * MINUTE,))
    costs = {}
    for label, at in (("none_due", NINE + 14 * MINUTE), ("all_due", NINE + 15 * MINUTE)):
        counters = Counters(db)
        written = len(dataset.points) if dataset else 0
        await tick(db, schedules, at, metrics=dataset)
        costs[label] = {**counters.taken(), "points": (len(dataset.points) - written) if dataset else 0}
    return costs


async def status_reads(hours: int, per_minute: int, window: int) -> dict:
    """What the lag percentiles read with `hours` of runs kept, over a window of `window` ms: on
    CPython's SQLite, which counts no rows read, its virtual machine's steps, which follow them."""
    db = counting_sqlite()
    schedules = [Schedule(f"minutely_{n}", Every(MINUTE), nothing) for n in range(per_minute)]
    end = NINE + hours * HOUR
    for at in range(NINE, end + 1, MINUTE):
        await tick(db, schedules, at)
    db.counting(True)
    [overall, *_] = await lags_since(db, end - window)
    db.counting(False)
    return {"runs_kept": (hours * 60) * per_minute, "window_ms": window, "runs_in_window": overall.runs,
            "sqlite_steps": db.steps}


async def main() -> tuple[list[dict], list[str]]:
    without, bound = await tick_costs(None), await tick_costs(MemoryDataset())
    results = [{"bench": "metrics_tick_cost", "schedules": SCHEDULES, "without": without, "bound": bound}]
    problems = []
    strip = ("statements", "round_trips", "rows_written")
    for label in ("none_due", "all_due"):
        if {k: bound[label][k] for k in strip} != {k: without[label][k] for k in strip}:
            problems.append(f"{label}: a tick with metrics bound cost {bound[label]}, without {without[label]}")
    if {k: bound["none_due"][k] for k in (*strip, "points")} != {"statements": 2, "round_trips": 1,
                                                                 "rows_written": 1, "points": 0}:
        problems.append(f"a nothing-due tick with metrics bound cost {bound['none_due']}")
    if bound["all_due"]["points"] != SCHEDULES:
        problems.append(f"{SCHEDULES} due runs wrote {bound['all_due']['points']} points")
    reads = [await status_reads(hours, 20, HOUR) for hours in (1, 4)]
    results += [{"bench": "status_lag_reads", **read} for read in reads]
    if reads[1]["sqlite_steps"] > 1.2 * reads[0]["sqlite_steps"]:
        problems.append(f"status's lags read more as more runs are kept outside its window: {reads}")
    return results, problems


if __name__ == "__main__":
    report("metrics", *asyncio.run(main()))
