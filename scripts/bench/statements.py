"""`make bench`: the D1 statements one tick makes with 10 schedules, none, one and all due
(a batch counts each of its statements), on the SQLite store with D1's semantics; and a tick with
none due while issue 25's policies are in use (an `every:` and a pulse with `overdue:`, calendars
with a named list of skip dates, today one of them): 2 statements, 1 round trip, 1 row written
still, or the bench fails."""

import asyncio
import json
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(root / "src"))

from tickwork import Schedule  # noqa: E402
from tickwork.adapters.sqlite import SQLiteDatabase  # noqa: E402
from tickwork.kinds.calendar import Calendar, cron_calendar  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.kinds.pulse import Pulse  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import HOUR, MINUTE, utc  # noqa: E402

HOLIDAYS = (("2026-12-24", "holidays"), ("2026-12-25", "holidays"), ("2026-12-26", "holidays"))
NONE_DUE = {"statements": 2, "round_trips": 1, "rows_written": 1}


async def nothing():
    pass


def database() -> SQLiteDatabase:
    db = SQLiteDatabase()
    db.apply_migrations(root / "migrations")
    return db


async def main() -> dict:
    db = database()
    schedules = [Schedule("quarterly", Every(15 * MINUTE), nothing)]
    schedules += [Schedule(f"hourly_{n}", Every(60 * MINUTE), nothing) for n in range(9)]
    counts = {}
    for label, moment in (("first_tick", "09:00"), ("none_due", "09:14"), ("one_due", "09:15"), ("all_due", "10:00")):
        before = db.statements_run
        await tick(db, schedules, utc(f"2026-03-02 {moment}"))
        counts[label] = db.statements_run - before
    return {"bench": "d1_statements_per_tick", "schedules": len(schedules), **counts,
            "none_due_with_policies": await none_due_with_policies()}


async def none_due_with_policies() -> dict:
    """The tick at 09:14 on a skip date, a minute after the one before, with nothing due."""
    db = database()
    schedules = [Schedule("quarterly", Every(15 * MINUTE, overdue=5 * MINUTE), nothing),
                 Schedule("sweep", Pulse(HOUR, 4, overdue=10 * MINUTE), nothing)]
    schedules += [Schedule(f"statement_{n}", Calendar(cron_calendar(f"{n} 10 * * *", "Europe/Berlin"), HOUR, HOLIDAYS),
                           nothing) for n in range(8)]
    await tick(db, schedules, utc("2026-12-25 09:00"))
    await tick(db, schedules, utc("2026-12-25 09:13"))
    await db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (utc("2026-12-25 09:14"),))
    before = db.statements_run, db.round_trips, db.rows_written
    await tick(db, schedules, utc("2026-12-25 09:14"))
    after = db.statements_run, db.round_trips, db.rows_written
    return dict(zip(NONE_DUE, (b - a for a, b in zip(before, after, strict=True)), strict=True))


if __name__ == "__main__":
    result = asyncio.run(main())
    print(json.dumps(result))
    if result["none_due_with_policies"] != NONE_DUE:
        print(f"d1_statements_per_tick: a tick with none due and the policies in use cost "
              f"{result['none_due_with_policies']} (goal: {NONE_DUE})", file=sys.stderr)
        sys.exit(1)
