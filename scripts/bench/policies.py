"""`make bench`: what a tick costs with every policy of issue 25 in use at once, on the SQLite
store with D1's semantics: retries with a ceiling, a jitter and an `except`, `overdue:` on an
`every:` schedule and a pulse, a calendar with skip dates (a named list) and a grace, jitter on
an `every:` schedule and a calendar, `overlap: buffer`, a start, and `concurrency:` (the action's
own key and a named one). Goal: a tick with nothing due is 2 statements, 1 round trip and 1 row
written (the tick's mark), however many schedules use them; exits non-zero naming a goal missed."""

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
from tickwork.kinds.rules import retry_of  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import HOUR, MINUTE, utc  # noqa: E402

HOLIDAYS = (("2026-03-02", "holidays"), ("2026-12-25", "holidays"))
EACH = 25  # schedules of each sort


async def nothing():
    pass


def schedules() -> list[Schedule]:
    retry = retry_of("8 after 1m up to 30m jitter 30s except invalid_input", False)
    made: list[Schedule] = []
    for n in range(EACH):
        made += [
            Schedule(f"billing_{n}", Every(15 * MINUTE, overdue=5 * MINUTE), nothing, retry=retry,
                     overlap="buffer", jitter=2 * MINUTE, starts=utc("2026-03-01 00:00"),
                     concurrency=("bench.nothing", 4)),
            Schedule(f"statement_{n}", Calendar(cron_calendar("0 9 * * *", "Europe/Berlin"), HOUR, HOLIDAYS),
                     nothing, retry=retry, jitter=5 * MINUTE),
            Schedule(f"pulse_{n}", Pulse(HOUR, 4, overdue=10 * MINUTE), nothing, retry=retry,
                     concurrency=("api:acme", 2)),
        ]
    return made


async def cost(db: SQLiteDatabase, declared: list[Schedule], moment: str) -> dict:
    before = db.statements_run, db.round_trips, db.rows_written
    await tick(db, declared, utc(f"2026-03-02 {moment}"), monotonic=lambda: 0.0)
    after = db.statements_run, db.round_trips, db.rows_written
    spent = [a - b for a, b in zip(after, before, strict=True)]
    return dict(zip(("statements", "round_trips", "rows_written"), spent, strict=True))


async def main() -> tuple[dict, list[str]]:
    db = SQLiteDatabase()
    db.apply_migrations(root / "migrations")
    declared = schedules()
    for moment in ("10:00", "10:01", "10:02", "10:03", "10:04"):  # the first tick, and its due runs made
        await tick(db, declared, utc(f"2026-03-02 {moment}"), monotonic=lambda: 0.0)
    await db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (utc("2026-03-02 11:00"),))
    await cost(db, declared, "10:05")  # on time: a tick a minute before, as on the clock
    none_due = await cost(db, declared, "10:06")
    result = {"bench": "every_policy_tick_cost", "schedules": len(declared), "none_due": none_due}
    goal = {"statements": 2, "round_trips": 1, "rows_written": 1}
    missed = [f"none due: {none_due} (goal: {goal})"] if none_due != goal else []
    return result, missed


if __name__ == "__main__":
    found, missed = asyncio.run(main())
    print(json.dumps(found))
    for line in missed:
        print(f"goal missed: {line}", file=sys.stderr)
    sys.exit(1 if missed else 0)
