"""`make bench`: what a tick costs with every policy of issue 25 in use at once, on the SQLite
store with D1's semantics: retries with a ceiling, a jitter and an `except`, `overdue:` on an
`every:` schedule and a pulse, a calendar with skip dates (a named list) and a grace, jitter on
an `every:` schedule and a calendar, `overlap: buffer` and `overlap: allow`, a start, and
`concurrency:` (the action's own key and a named one); and issue 27's features with them: a wake
queue, an Analytics Engine dataset, and schedules through a Workflow (each run settled). Goal: a
tick with nothing due is 2 statements, 1 round trip and 1 row written (the tick's mark), however
many schedules use them; exits non-zero naming a goal missed. (A tick while a Workflow instance
is open asks its status: one read more, said as `instance_open`, no goal.)"""

import asyncio
import json
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(root / "src"))

from tickwork import Schedule, env  # noqa: E402
from tickwork.adapters.sqlite import SQLiteDatabase  # noqa: E402
from tickwork.kinds.calendar import Calendar, cron_calendar  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.kinds.pulse import Pulse  # noqa: E402
from tickwork.kinds.rules import retry_of  # noqa: E402
from tickwork.metrics import MemoryDataset  # noqa: E402
from tickwork.testing import DelayedQueue, Workflows  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.tick.wakes import Wakes  # noqa: E402
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
            Schedule(f"sync_{n}", Every(30 * MINUTE), nothing, retry=retry, overlap="allow"),
            Schedule(f"export_{n}", Every(HOUR), nothing, retry=retry, overlap="allow", workflow="EXPORTS",
                     concurrency=("workflow:EXPORTS", 4)),
        ]
    made += [Schedule(f"export_at_10_0{m}", Calendar(cron_calendar(f"{m} 10 * * *", "UTC")), nothing,
                      workflow="EXPORTS", overlap="allow") for m in (2, 7)]
    return made


FLOWS = Workflows()
QUEUE = DelayedQueue()
DATASET = MemoryDataset()


async def ticked(db: SQLiteDatabase, declared: list[Schedule], moment: str) -> None:
    at = utc(f"2026-03-02 {moment}")
    QUEUE.now = at
    await tick(db, declared, at, monotonic=lambda: 0.0, wakes=Wakes(QUEUE, QUEUE.clock), metrics=DATASET)


async def cost(db: SQLiteDatabase, declared: list[Schedule], moment: str) -> dict:
    before = db.statements_run, db.round_trips, db.rows_written
    await ticked(db, declared, moment)
    after = db.statements_run, db.round_trips, db.rows_written
    spent = [a - b for a, b in zip(after, before, strict=True)]
    return dict(zip(("statements", "round_trips", "rows_written"), spent, strict=True))


async def main() -> tuple[dict, list[str]]:
    db = SQLiteDatabase()
    db.apply_migrations(root / "migrations")
    declared = schedules()
    for moment in ("10:00", "10:01", "10:02", "10:03", "10:04"):  # the first tick, and its due runs made
        await ticked(db, declared, moment)
        for id in FLOWS.ids:
            FLOWS.complete(id)  # export_at_10_02's instance, settled by the next tick
    await db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (utc("2026-03-02 11:00"),))
    await cost(db, declared, "10:05")  # on time: a tick a minute before, as on the clock
    none_due = await cost(db, declared, "10:06")
    made = {"workflow_instances": len(FLOWS.ids), "points": len(DATASET.points)}
    await ticked(db, declared, "10:07")  # export_at_10_07's run creates its instance
    FLOWS.running(FLOWS.ids[-1])  # export_at_10_07's goes on: the next tick asks it
    instance_open = await cost(db, declared, "10:08")
    result = {"bench": "every_policy_tick_cost", "schedules": len(declared), "none_due": none_due, **made,
              "instance_open": instance_open}
    goal = {"statements": 2, "round_trips": 1, "rows_written": 1}
    missed = [f"none due: {none_due} (goal: {goal})"] if none_due != goal else []
    return result, missed


if __name__ == "__main__":
    with env.given(EXPORTS=FLOWS):
        found, missed = asyncio.run(main())
    print(json.dumps(found))
    for line in missed:
        print(f"goal missed: {line}", file=sys.stderr)
    sys.exit(1 if missed else 0)
