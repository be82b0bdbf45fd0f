"""`make bench`: what the overlap policy costs a tick (issue 25), on the SQLite store with D1's
semantics: ten `overlap: buffer` schedules with nothing due, then with one due time waiting behind
its run. Goal: each stays 2 statements, 1 round trip, 1 row written (the tick's mark); exits
non-zero naming a goal missed."""

import asyncio
import json
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(root / "src"))

from tickwork import Schedule  # noqa: E402
from tickwork.adapters.sqlite import SQLiteDatabase  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.store.claims import Claim  # noqa: E402
from tickwork.store.facade import ScheduleStore  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import MINUTE, utc  # noqa: E402


async def nothing():
    pass


async def cost(db: SQLiteDatabase, schedules: list[Schedule], moment: str) -> dict:
    before = db.statements_run, db.round_trips, db.rows_written
    await tick(db, schedules, utc(f"2026-03-02 {moment}"), monotonic=lambda: 0.0)
    after = db.statements_run, db.round_trips, db.rows_written
    spent = [a - b for a, b in zip(after, before, strict=True)]
    return dict(zip(("statements", "round_trips", "rows_written"), spent, strict=True))


async def main() -> tuple[dict, list[str]]:
    db = SQLiteDatabase()
    db.apply_migrations(root / "migrations")
    schedules = [Schedule(f"buffered_{n}", Every(15 * MINUTE), nothing, overlap="buffer") for n in range(10)]
    await tick(db, schedules, utc("2026-03-02 09:00"), monotonic=lambda: 0.0)
    await db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (utc("2026-03-02 10:00"),))
    await cost(db, schedules, "09:13")  # on time: a tick a minute before, as on the clock
    none_due = await cost(db, schedules, "09:14")
    # a run of buffered_0 goes on past 09:30 (its worker took the lease at 09:15): 09:30 waits
    run = f"z{utc('2026-03-02 09:15'):012x}benchrun{'0' * 11}"
    claim = Claim("buffered_0", utc("2026-03-02 09:15"), utc("2026-03-02 09:30"), run)
    await ScheduleStore(db).claim([claim], utc("2026-03-02 09:45"), tick=utc("2026-03-02 09:15"),
                                  started=utc("2026-03-02 09:15"))
    await cost(db, schedules[:1], "09:30")  # the others leave the declared set: the tick after it is measured
    waiting = await cost(db, schedules[:1], "09:31")
    [row] = await db.all("SELECT due_at, lease_run FROM tickwork_schedules WHERE name = 'buffered_0'")
    assert (row["due_at"], row["lease_run"]) == (utc("2026-03-02 09:30"), run), row  # still waiting behind it
    result = {"bench": "overlap_buffer_tick_cost", "schedules": len(schedules), "none_due": none_due,
              "one_waiting": waiting}
    goal = {"statements": 2, "round_trips": 1, "rows_written": 1}
    missed = [f"{label}: {found} (goal: {goal})" for label, found in (("none due", none_due), ("one waiting", waiting))
              if found != goal]
    return result, missed


if __name__ == "__main__":
    result, missed = asyncio.run(main())
    print(json.dumps(result))
    if missed:
        sys.exit("overlap bench missed its goals: " + "; ".join(missed))
