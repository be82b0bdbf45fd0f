"""`make bench`: the D1 statements one tick makes with 10 schedules, none, one and all due
(a batch counts each of its statements), on the SQLite store with D1's semantics."""

import asyncio
import json
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(root / "src"))

from tickwork import Schedule  # noqa: E402
from tickwork.adapters.sqlite import SQLiteDatabase  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import MINUTE, utc  # noqa: E402


async def nothing():
    pass


async def main() -> dict:
    db = SQLiteDatabase()
    db.apply_migrations(root / "migrations")
    schedules = [Schedule("quarterly", Every(15 * MINUTE), nothing)]
    schedules += [Schedule(f"hourly_{n}", Every(60 * MINUTE), nothing) for n in range(9)]
    counts = {}
    for label, moment in (("first_tick", "09:00"), ("none_due", "09:14"), ("one_due", "09:15"), ("all_due", "10:00")):
        before = db.statements_run
        await tick(db, schedules, utc(f"2026-03-02 {moment}"))
        counts[label] = db.statements_run - before
    return {"bench": "d1_statements_per_tick", "schedules": len(schedules), **counts}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
