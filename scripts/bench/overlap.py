"""`make bench`: what the overlap policy costs a tick (issue 25), on the SQLite store with D1's
semantics: ten `overlap: buffer` schedules with nothing due, then with one due time waiting behind
its run; ten `overlap: allow` schedules with nothing due while a run goes on. Goal: each stays 2
statements, 1 round trip, 1 row written (the tick's mark). And a due run of an `overlap: allow`
schedule beside a run going on: goal, the same statements and rows as a due run of a schedule
without it. Exits non-zero naming a goal missed."""

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


async def due_run(overlap: str | None, beside: bool) -> dict:
    """A tick at 09:15 making one due run of `census` (its earlier run going on, where `beside`)."""
    db = SQLiteDatabase()
    db.apply_migrations(root / "migrations")
    census = [Schedule("census", Every(15 * MINUTE), nothing, overlap=overlap)]
    await tick(db, census, utc("2026-03-02 09:00"), monotonic=lambda: 0.0)
    await db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (utc("2026-03-02 10:00"),))
    if beside:  # a worker's run of 09:00 goes on past 09:15
        run = f"z{utc('2026-03-02 09:01'):012x}benchrun{'0' * 11}"
        await db.all("UPDATE tickwork_schedules SET lease_run = ?1, lease_until = ?2", (run, utc("2026-03-02 09:30")))
        await db.all("INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, outcome, lease_until) "
                     "VALUES (?1, 'census', ?2, ?2, ?2, 'running', ?3)", (run, utc("2026-03-02 09:01"),
                                                                          utc("2026-03-02 09:30")))
    await cost(db, census, "09:14")
    spent = await cost(db, census, "09:15")
    made = await db.all("SELECT outcome FROM tickwork_runs WHERE due_at = ?1", (utc("2026-03-02 09:15"),))
    assert [r["outcome"] for r in made] == ["succeeded"], made
    return spent


async def allow() -> tuple[dict, list[str]]:
    db = SQLiteDatabase()
    db.apply_migrations(root / "migrations")
    schedules = [Schedule(f"allowed_{n}", Every(15 * MINUTE), nothing, overlap="allow") for n in range(10)]
    await tick(db, schedules, utc("2026-03-02 09:00"), monotonic=lambda: 0.0)
    await db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (utc("2026-03-02 10:00"),))
    run = f"z{utc('2026-03-02 09:00'):012x}benchrun{'0' * 11}"
    await db.all("UPDATE tickwork_schedules SET lease_run = ?1, lease_until = ?2 WHERE name = 'allowed_0'",
                 (run, utc("2026-03-02 09:20")))
    await db.all("INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, outcome, lease_until) "
                 "VALUES (?1, 'allowed_0', ?2, ?2, ?2, 'running', ?3)", (run, utc("2026-03-02 09:00"),
                                                                         utc("2026-03-02 09:20")))
    await cost(db, schedules, "09:13")
    none_due = await cost(db, schedules, "09:14")  # a run going on beside none due
    plain, beside = await due_run(None, False), await due_run("allow", True)
    result = {"bench": "overlap_allow_tick_cost", "schedules": len(schedules), "none_due": none_due,
              "due_run_without_allow": plain, "due_run_beside_a_run_going": beside}
    goal = {"statements": 2, "round_trips": 1, "rows_written": 1}
    missed = [f"allow, none due: {none_due} (goal: {goal})"] if none_due != goal else []
    missed += [f"a due run beside: {beside} (goal: {plain}, as without allow)"] if beside != plain else []
    return result, missed


if __name__ == "__main__":
    result, missed = asyncio.run(main())
    print(json.dumps(result))
    allowed, missed_too = asyncio.run(allow())
    print(json.dumps(allowed))
    missed += missed_too
    if missed:
        sys.exit("overlap bench missed its goals: " + "; ".join(missed))
