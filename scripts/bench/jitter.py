"""`make bench`: what `jitter: 5m` does to a crowd due at one moment (issue 25), on the SQLite
store with D1's semantics.

10,000 schedules due at 09:00, every hour, with `jitter: 5m`, ticked each minute across the window
(09:01 to 09:05) and, on a store of their own, at each 10-second mark (09:00:10 to 09:05): the runs
each tick makes must stay flat across the window (the largest tick within 1.5 times the mean),
every schedule must run once, and a tick inside the window costs what the runs it makes cost. For
scale, the same crowd without jitter: all of it in the tick at 09:00.

Prints one JSON line per measurement and exits non-zero naming the goals missed.
"""

import asyncio
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from bench_common import migrated_sqlite, report  # noqa: E402
from tickwork import Schedule  # noqa: E402
from tickwork.adapters.workers import TICK_STATEMENTS  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import HOUR, MINUTE, SECOND, utc  # noqa: E402

NINE = utc("2026-03-02 09:00")
CROWD = 10_000
JITTER = 5 * MINUTE
FLAT = 1.5  # the goal: the largest tick's runs at most this many times the mean


async def act() -> None:
    pass


def frozen() -> float:
    return 0.0


def crowd(jitter: int | None) -> list[Schedule]:
    return [Schedule(f"item_{k:05d}", Every(HOUR), act, jitter=jitter) for k in range(CROWD)]


async def window(step: int, jitter: int | None = JITTER) -> dict:
    """The crowd ticked every `step` from 09:00 to the window's end: runs and statements a tick."""
    db, schedules = migrated_sqlite(), crowd(jitter)
    await tick(db, schedules, NINE - HOUR, monotonic=frozen, max_statements=TICK_STATEMENTS)
    per_tick, statements, began = [], [], time.perf_counter()
    for k in range(JITTER // step + 1):
        before = db.statements_run
        report = await tick(db, schedules, NINE + k * step, monotonic=frozen, max_statements=TICK_STATEMENTS)
        per_tick.append(len(report.runs))
        statements.append(db.statements_run - before)
    ran = (await db.all("SELECT COUNT(*) AS n, COUNT(DISTINCT schedule) AS s FROM tickwork_runs"))[0]
    inside = per_tick[1:] if jitter else per_tick  # the tick at 09:00 itself takes the offsets of 0 alone
    mean = sum(inside) / len(inside)
    db.close()
    return {"bench": "jitter", "jitter_ms": jitter, "step_s": step // SECOND, "schedules": CROWD,
            "runs_per_tick": per_tick, "statements_per_tick": statements, "runs": ran["n"],
            "schedules_run": ran["s"], "max_over_mean": round(max(inside) / mean, 3) if mean else None,
            "seconds": round(time.perf_counter() - began, 1)}


def missed(results: list[dict]) -> list[str]:
    problems = []
    for r in results:
        if r["runs"] != CROWD or r["schedules_run"] != CROWD:
            problems.append(f"step {r['step_s']}s, jitter {r['jitter_ms']}: {r['runs']} runs of "
                            f"{r['schedules_run']} schedules, not one each of {CROWD:,}")
        if r["jitter_ms"] and (r["max_over_mean"] is None or r["max_over_mean"] > FLAT):
            problems.append(f"step {r['step_s']}s: the largest tick made {r['max_over_mean']} times the mean "
                            f"runs across the window (goal: at most {FLAT})")
        if max(r["statements_per_tick"]) > TICK_STATEMENTS:
            problems.append(f"step {r['step_s']}s: a tick made {max(r['statements_per_tick'])} statements")
    return problems


async def main() -> list[dict]:
    return [await window(MINUTE), await window(10 * SECOND), await window(MINUTE, jitter=None)]


if __name__ == "__main__":
    logging.getLogger("tickwork").setLevel(logging.ERROR)  # the hour before the window is a gap it notes
    measured = asyncio.run(main())
    report("jitter", measured, missed(measured))
